"""CUDA's host min/max overloads, which HIP on AMD lacks: a helper that declares them (HIP155).

CUDA's crt/math_functions.hpp declares `min`/`max` __host__ __device__ for (int, int), (unsigned,
unsigned), (int, unsigned), (unsigned, int), the same four for long/unsigned long and for long long /
unsigned long long, and (float, float), (double, double), (float, double), (double, float). HIP on AMD
declares only `min(int, int)`/`max(int, int)` for the host: HIP 5.2 `__host__ inline static int
min(int, int)` (amd_detail/amd_math_functions.h); ROCm 6.4 and 7.2 clang's __clang_hip_math.h, where the
others are under __HIP_DEFINE_EXTENDED_HOST_MIN_MAX__ / __HIP_DEFINE_MIXED_HOST_MIN_MAX__, macros that
header sets to 0 unless the command line sets them (it is pre-included, so a `#define` in the file comes
too late). Host code therefore compiles and computes something else: `min(size_t 5e9, size_t 6e9)` is
705032704, `min(-1, 5u)` is -1 as int, `min(1.5, 2.5)` is 1; `dim3 b{min(512, uint32_t(x))}` does not
compile (narrowing from int).

Each unqualified `min(a, b)`/`max(a, b)` in a host function, or in a __host__ __device__ one (its host
compile resolves against the same host overloads: HIP gives 1 for `min(1.5f, 2.5f)` there too), whose
arguments are not all evidently int (a literal that fits int, a variable declared int/short/char/bool:
both compilers pick min(int, int) for those), has CUDA's missing overloads inserted once per file before
the declaration that first calls them. They are host-only functions, so device code keeps HIP's device
overloads; the block is off on HIP's NVIDIA platform (not HIP-clang: CUDA has them), where the target's
header already defines a set (the macro set to non-zero) and under hipRTC. With CUDA's whole set
present, overload resolution is CUDA's: nothing CUDA resolves becomes ambiguous. A file that defines
min or max itself (a macro or a function, in any branch hipcc compiles, or in a header of its include
closure: run/helper_defs.py) gets none; nor does a C file, or a .cpp that neither includes a CUDA header
nor holds CUDA code (nvcc hands it to the host compiler without CUDA's headers: no CUDA overloads
there). Device code is left alone: HIP's device template min<T>(T, T) serves same-type calls; a
mixed-type device call does differ (`min(int, unsigned)` is HIP's min(int, int), an int, where CUDA's
returns unsigned: a static_assert shows it on 5.2 and 7.2), but without a GPU it cannot be run here.
"""

from __future__ import annotations

import re

from hipify_py.analysis import callargs
from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data.shim_table import GUARD_PREFIX
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.source import newline_of
from hipify_py.rules import Insertion, RuleResult
from hipify_py.rules.detectors.common import DeviceSpans
from hipify_py.rules.detectors.host_math import surely_host
from hipify_py.rules.detectors.overloads import _CAST, _function_start, last_declaration
from hipify_py.rules.registry import declare
from hipify_py.rules.shims import _below_top_comments, _declares, _position
from hipify_py.util.lazyre import lazy

NAMES = (b"min", b"max")
# the guard macros (one per name: run/helper_defs.py then checks the include closure for either name)
GUARDS = tuple(GUARD_PREFIX + n.decode() for n in NAMES)
# unqualified calls: not `std::min(`, `a.min(`, `p->min(`, `min<int>(`
_CALL = lazy(rb"(?<![\w$.:])(?<!->)(min|max)(?=\s*\()")
# types that promote to int (or are int): CUDA and HIP both call min(int, int) with them
_INT_LIKE = frozenset((b"int", b"short", b"char", b"bool"))
_WIDENING = frozenset((b"unsigned", b"long"))  # `unsigned int x`, `long int x`: not int
_INT_LITERAL = lazy(rb"-?\s*(?:[0-9]+|'(?:[^'\\]|\\[^']{1,4})')")
# C++ files nvcc hands to the host compiler: CUDA's overloads only where the file includes a CUDA
# header or is CUDA code itself (a .cu file, a header: included from one)
_HOST_SUFFIXES = (".cpp", ".cc", ".cxx", ".c++", ".C")
_CUDA_MARK = lazy(rb"#\s*include\s*[<\"]cuda|__(?:host|device|global)__")
_C_SUFFIXES = (".c",)  # C: no overloads (CUDA's set is C++)
_WORD_BEFORE = lazy(rb"(\w+)\s*$")
_OPERATOR = lazy(rb"[-+*/%<>?&|^,=!]")
_FUNCTIONAL = lazy(rb"(\w+)\s*\((.*)\)", re.DOTALL)
# Sources: CUDA 11-13 crt/math_functions.hpp (the host definitions: umin/llmin/ullmin for the integers,
# fminf/fmin for the floating types); ROCm 6.4/7.2 __clang_hip_math.h (the same set, behind the two
# macros, with the mixed integer ones returning the unsigned type, as CUDA's do).
_EXTENDED = (
    ("unsigned int", "unsigned int", "unsigned int"),
    ("long", "long", "long"),
    ("unsigned long", "unsigned long", "unsigned long"),
    ("long long", "long long", "long long"),
    ("unsigned long long", "unsigned long long", "unsigned long long"),
)
_FLOATING = (
    ("float", "float", "float", "f"),
    ("double", "double", "double", ""),
    ("double", "float", "double", ""),
    ("double", "double", "float", ""),
)  # fmin(f)
_MIXED = (
    ("unsigned int", "int", "unsigned int"),
    ("unsigned int", "unsigned int", "int"),
    ("unsigned long", "long", "unsigned long"),
    ("unsigned long", "unsigned long", "long"),
    ("unsigned long long", "long long", "unsigned long long"),
    ("unsigned long long", "unsigned long long", "long long"),
)


def insert_host_minmax(ctx: Context) -> RuleResult:
    result = RuleResult()
    if not any(n in ctx.identifiers for n in NAMES) or ctx.options.filename.endswith(_C_SUFFIXES):
        return result  # a C file: no overloads in C, CUDA's set does not apply to it
    if ctx.options.filename.endswith(_HOST_SUFFIXES) and not _CUDA_MARK.search(ctx.source):
        return result  # a host C++ file nvcc does not pre-include CUDA's headers into: no CUDA overloads
    src, dead = ctx.source, ctx.branches.dead
    defined = any(n.decode() in ctx.options.defined_elsewhere for n in NAMES)
    device: DeviceSpans | None = None
    first: tuple[int, int] | None = None
    calls = 0
    for m, where in ctx.code_matches(_CALL):
        start, end = m.span(1)
        if any(a <= start < b for a, b in dead):
            continue  # a branch hipcc never compiles: no call, no definition
        if _declares(ctx, start, end) or _declares_macro(ctx, start):
            defined = True  # the file's own min/max (a function, a macro): CUDA's set is not wanted
            continue
        if where not in REWRITABLE or ctx.is_protected(start):
            continue
        if device is None:
            device = DeviceSpans(ctx)
        if not _host_side(ctx, device, start):
            continue
        call = callargs.from_text(src, (start, end))
        if call is None or len(call.args) != 2:
            continue
        if all(_evidently_int(ctx, call.text(src, i), start) for i in range(2)):
            continue  # min(int, int): HIP declares it too
        calls += 1
        if first is None:
            first = (start, end)
    if first is None or defined or GUARDS[0].encode() in src:  # ours from an earlier run: it is there
        return result
    at = _below_top_comments(ctx, _position(ctx, first[0]))
    result.requests.append(Insertion.helper(at, helper_text(newline_of(src))))
    result.counts["shims"] += 1  # the run then checks the include closure for the project's own min/max
    result.counts["host_minmax"] += calls
    line = ctx.lines.line_col(at)[0]
    msg = (
        f"`{src[first[0] : first[1]].decode()}` in host code: HIP on AMD declares only min(int, int) and "
        "max(int, int) for the host, so other argument types would convert to int (or be ambiguous); "
        f"CUDA's host overloads were inserted before line {line}"
    )
    result.diagnostics.append(ctx.diag("HIP155", first[0], first[1], msg))
    return result


def _host_side(ctx: Context, device: DeviceSpans, offset: int) -> bool:
    """A host function, or a __host__ __device__ one (its host compile sees the same overloads)."""
    if device.contains(offset):
        return device.host_too(ctx.source, offset)
    return surely_host(ctx, offset)


def _declares_macro(ctx: Context, start: int) -> bool:
    """`#define min(a, b) ...` (the name is followed by `(`, so _CALL finds it)."""
    line = ctx.lines.line_start(start)
    return ctx.source[line:start].replace(b" ", b"").replace(b"\t", b"") == b"#define"


def _evidently_int(ctx: Context, arg: bytes, at: int) -> bool:
    """The argument is an int literal, a cast to int, or a variable the code declares int (or narrower)."""
    arg = arg.strip()
    literal = _INT_LITERAL.fullmatch(arg)
    if literal is not None:
        digits = arg.lstrip(b"-").strip()
        if digits.startswith(b"'"):
            return True  # a char literal: int after promotion
        return (digits == b"0" or not digits.startswith(b"0")) and int(digits) < 2**31  # not octal, fits
    cast = _CAST.match(arg)
    if cast is not None:  # `(int)x`, `static_cast<int>(n.size())`: int where nothing follows the operand
        name, star = (cast.group(1), cast.group(2)) if cast.group(1) else (cast.group(3), cast.group(4))
        return name in _INT_LIKE and not star and not _OPERATOR.search(arg, cast.end())
    functional = _FUNCTIONAL.fullmatch(arg)  # `int(x)`
    if functional is not None:
        return functional.group(1) in _INT_LIKE and callargs.balanced_parens(functional.group(2))
    if not arg.replace(b"_", b"a").isalnum() or arg[:1].isdigit():
        return False  # an expression: its type is not evident here
    start = _function_start(ctx, at)
    for lo, hi in ((start, at), (0, start)):
        d = last_declaration(ctx.source, arg, lo, hi)
        if d is not None:
            if d.group(2) or d.group(4) or d.group(1) not in _INT_LIKE:
                return False
            before = _WORD_BEFORE.search(ctx.source, max(0, d.start() - 24), d.start())
            return d.group(1) != b"int" or before is None or before.group(1) not in _WIDENING
    return False


def helper_text(nl: bytes = b"\n") -> bytes:
    """CUDA's host overloads HIP lacks; each set off where the target's header defines it."""
    guard = " && ".join(f"!defined({g})" for g in GUARDS)

    def pair(ret: str, a: str, b: str) -> str:
        return f"HIPIFY_PY_MIN_MAX({ret}, {a}, {b})\n"

    floating = "".join(
        f"inline {r} {name}({a} a, {b} b) {{ return __builtin_f{name}{f}(a, b); }}\n"
        for name in ("min", "max")
        for r, a, b, f in _FLOATING
    )
    text = (
        "// hipify-py: CUDA declares min/max for the host for every integer and floating type; HIP on AMD\n"
        "// only min(int, int) and max(int, int) (unless the build defines the two macros below)\n"
        f"#if defined(__HIP__) && !defined(__HIP_PLATFORM_NVIDIA__) && !defined(__HIPCC_RTC__) && {guard}\n"
        + "".join(f"#define {g}\n" for g in GUARDS)
        + "#define HIPIFY_PY_MIN_MAX(R, A, B) \\\n"
        "  inline R min(A a, B b) { return a < b ? a : b; } \\\n"
        "  inline R max(A a, B b) { return a > b ? a : b; }\n"
        "#if !(defined(__HIP_DEFINE_EXTENDED_HOST_MIN_MAX__) && __HIP_DEFINE_EXTENDED_HOST_MIN_MAX__)\n"
        + "".join(pair(*t) for t in _EXTENDED)
        + floating
        + "#endif\n"
        "#if !(defined(__HIP_DEFINE_MIXED_HOST_MIN_MAX__) && __HIP_DEFINE_MIXED_HOST_MIN_MAX__)\n"
        + "".join(pair(*t) for t in _MIXED)
        + "#endif\n"
        "#undef HIPIFY_PY_MIN_MAX\n"
        "#endif\n"
    )
    return text.replace("\n", nl.decode()).encode()


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={135: insert_host_minmax},
    texts=(
        Rule(
            "HIP155",
            "host-min-max-overloads",
            Severity.INFO,
            "min/max in host code: CUDA's host overloads for other types were written into the file",
            "Nothing to do; the block is off on HIP's NVIDIA platform and where the build defines "
            "__HIP_DEFINE_EXTENDED_HOST_MIN_MAX__ / __HIP_DEFINE_MIXED_HOST_MIN_MAX__. To keep the file as "
            "it was, call std::min/std::max with one type, or define your own min/max.",
            "CUDA declares min and max __host__ __device__ for int, unsigned, long, unsigned long, long "
            "long, unsigned long long, their signed/unsigned mixes, float, double and float/double "
            "(crt/math_functions.hpp). HIP on AMD declares only min(int, int)/max(int, int) for the host "
            "(HIP 5.2 amd_math_functions.h; ROCm 6.4/7.2 clang's __clang_hip_math.h, the rest only under "
            "__HIP_DEFINE_EXTENDED_HOST_MIN_MAX__ and __HIP_DEFINE_MIXED_HOST_MIN_MAX__ set on the command "
            "line), so translated host code computes something else without a warning: min of two size_t "
            "above 2^32 truncates, min(-1, 5u) is -1, min(1.5, 2.5) is 1. Where a host or __host__ "
            "__device__ function calls min/max with arguments that are not evidently int, hipify-py writes "
            "CUDA's missing host overloads once per file, before the declaration that first calls them, "
            "guarded by `defined(__HIP__) && !defined(__HIP_PLATFORM_NVIDIA__)` and by the two macros. "
            "Files that define min or max themselves (or include a project header that does) get none.",
        ),
    ),
    fixtures=("host_minmax",),
)
