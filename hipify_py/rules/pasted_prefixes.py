"""CUDA names built by token pasting (`#define GPU_PREFIX(val) cuda##val`) -> the HIP prefix (HIP148).

Portability headers build API names from a prefix and a suffix: `GPU_PREFIX(Malloc)`, `GPU_PREFIX(Error_t)`.
The tables cannot see such names, so hipcc compiled `cudaMalloc` (an undeclared identifier). Where the
uses of the macro in the file name CUDA APIs whose HIP counterpart is known (most of them: a branch for
HIP may paste its own suffixes, `PointerAttribute_t`), the pasted prefix becomes the one most of those
counterparts share (`hip##val`). A use whose counterpart is spelled otherwise (`PointerAttributes`:
`hipPointerAttribute_t`) is replaced by that name when the macro is nothing but the paste; when it is
more (`CHECK(MallocHost, ...)` around a call), the use's suffix becomes the one that builds the
counterpart with the new prefix (`HostMalloc`: `hipHostMalloc`), and where no suffix does, the use is
reported (error, HIP149) unless HIP's runtime declares the pasted name. Macros with no use in the file,
or mostly uses the tables do not know, keep HIP102.
"""

from __future__ import annotations

import re
from collections import Counter

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.rules import RuleResult
from hipify_py.rules.macro_order import hip_identifiers
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# `#define NAME(params) body` (continued lines included)
_MACRO = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\(([^)]*)\)((?:[^\n\\]|\\\r?\n|\\)*)", re.M)
# a CUDA prefix pasted to a parameter, with nothing pasted after it: `cuda##val`, `CUBLAS_ ## op`
_PASTE = lazy(
    rb"\b(cuda|cu|CU|CUDA_?|cublas|CUBLAS_?|curand|CURAND_?|cufft|CUFFT_?|cusparse|CUSPARSE_?)\s*##\s*(\w+)\b(?!\s*##)"
)
_SETTLES = frozenset({"HIP102"})
# each CUDA prefix that is pasted and its HIP family's (scripts/realworld_check.py reads it too)
HIP_PREFIXES = {
    b"cu": b"hip",
    b"CU": b"HIP",
    b"CUDA": b"HIP",
    b"cuda": b"hip",
    b"CUDA_": b"HIP_",
    b"cublas": b"hipblas",
    b"CUBLAS_": b"HIPBLAS_",
    b"curand": b"hiprand",
    b"CURAND_": b"HIPRAND_",
    b"cufft": b"hipfft",
    b"CUFFT_": b"HIPFFT_",
    b"cusparse": b"hipsparse",
    b"CUSPARSE_": b"HIPSPARSE_",
    b"CUBLAS": b"HIPBLAS",
    b"CURAND": b"HIPRAND",
    b"CUFFT": b"HIPFFT",
    b"CUSPARSE": b"HIPSPARSE",
}
_DEFINITION = lazy(rb"[ \t]*#[ \t]*define[ \t]+\Z")


def translate_pasted_prefixes(ctx: Context) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    if b"##" not in src:  # why: a C-speed test spares most files the scan
        return result
    for macro in _MACRO.finditer(src):
        params = [p.strip() for p in macro.group(2).split(b",")]
        body_at = macro.start(3)
        pastes = [p for p in _PASTE.finditer(macro.group(3)) if p.group(2) in params]
        if len(pastes) != 1 or ctx.is_protected(macro.start()):
            continue
        paste = pastes[0]
        position = params.index(paste.group(2))
        pure = macro.group(3).strip() == paste.group(0)
        _translate(ctx, result, macro, paste, body_at, position, pure)
    return result


def _translate(
    ctx: Context,
    result: RuleResult,
    macro: re.Match[bytes],
    paste: re.Match[bytes],
    body_at: int,
    position: int,
    pure: bool,
) -> None:
    prefix = paste.group(1)
    uses = list(_uses(ctx, macro.group(1), position, macro.end()))
    if not uses:
        _translate_unused(ctx, result, macro, paste, body_at, position)
        return
    counterparts = []
    for start, end, suffix in uses:
        entry = ctx.tables.names.get(prefix + suffix)
        hip = getattr(entry, "hip", None)
        if hip is not None:
            counterparts.append((start, end, suffix, hip.encode()))
    if not counterparts or 2 * len(counterparts) < len(uses):
        return  # mostly names the tables do not know (the project's own?): HIP102 stays
    shares = Counter(hip[: -len(suffix)] for _, _, suffix, hip in counterparts if hip.endswith(suffix))
    # no use keeps its suffix (one `CHECK(MallocHost, ...)`): the family's own prefix, where every
    # counterpart starts with it
    fallback = HIP_PREFIXES.get(prefix)
    if not shares and fallback and all(hip.startswith(fallback) for _, _, _, hip in counterparts):
        shares[fallback] = 1
    if not shares:
        return
    hip_prefix = shares.most_common(1)[0][0]
    name = macro.group(1).decode()
    text = f"`{prefix.decode()}##` pasted in `{name}` builds HIP names: `{hip_prefix.decode()}##`"
    _paste_hip_prefix(ctx, result, macro, body_at + paste.start(1), prefix, hip_prefix, text)
    runtime = hip_identifiers(ctx.options.hip_version)[0] if hip_prefix == b"hip" else None
    for start, end, suffix, hip in counterparts:
        if hip == hip_prefix + suffix:
            continue
        if pure:
            result.edits.append(Edit(start, end, hip))
            continue
        if hip.startswith(hip_prefix) and _IDENT.fullmatch(hip[len(hip_prefix) :]):
            # `CALL(MallocHost, ...)` -> `CALL(HostMalloc, ...)`: the paste builds the counterpart itself
            # (`hipHostMalloc`, whose template takes a T**), even where HIP declares the pasted name too
            # (`hipMallocHost`, deprecated, void** only)
            at = _argument_at(ctx.source, start, end, position, suffix)
            if at is not None:
                result.edits.append(Edit(at, at + len(suffix), hip[len(hip_prefix) :]))
                continue
        if runtime is None or hip_prefix + suffix in runtime:
            continue  # HIP declares the pasted name too (`hipMallocHost`, deprecated), or we cannot tell
        text = (
            f"`{name}({suffix.decode()})` pastes `{(hip_prefix + suffix).decode()}`, but the HIP counterpart "
            f"of `{(prefix + suffix).decode()}` is `{hip.decode()}`"
        )
        result.diagnostics.append(ctx.diag("HIP149", start, end, text))
    result.counts["pasted prefixes"] += 1


_IDENT = lazy(rb"[A-Za-z_]\w*")
# API prefixes whose pasted names are the library's own functions and types (not `CUDA_`/`CU`: projects
# paste those to their own constants, `CUDA_##NUM_THREADS`)
_API_PREFIXES = frozenset((b"cuda", b"cublas", b"curand", b"cufft", b"cusparse"))


def _translate_unused(
    ctx: Context,
    result: RuleResult,
    macro: re.Match[bytes],
    paste: re.Match[bytes],
    body_at: int,
    position: int,
) -> None:
    """A paste macro with no use in its file (a header that defines it for others: Celeritas'
    `CELER_DEVICE_PREFIX(TOK) cuda##TOK`): the prefix the file's HIP definition of the same macro pastes,
    else the family's for an API prefix. The uses elsewhere would name CUDA APIs, undeclared under hipcc."""
    prefix = paste.group(1)
    name = macro.group(1)
    twin = _hip_twin(ctx, name, position, macro.start())
    hip_prefix = twin if twin is not None else HIP_PREFIXES.get(prefix) if prefix in _API_PREFIXES else None
    if hip_prefix is None:
        return
    why = "as the file's HIP definition of it does" if twin is not None else "the family's HIP prefix"
    text = (
        f"`{prefix.decode()}##` pasted in `{name.decode()}`, which this file does not use: "
        f"`{hip_prefix.decode()}##`, {why}"
    )
    _paste_hip_prefix(ctx, result, macro, body_at + paste.start(1), prefix, hip_prefix, text)
    result.counts["pasted prefixes"] += 1


def _paste_hip_prefix(
    ctx: Context, result: RuleResult, macro: re.Match[bytes], at: int, prefix: bytes, hip: bytes, text: str
) -> None:
    """The pasted prefix at `at` becomes `hip`; the macro's HIP102 is settled, HIP148 says why."""
    result.edits.append(Edit(at, at + len(prefix), hip))
    result.settled.append((macro.start(), macro.end(), _SETTLES))
    result.diagnostics.append(ctx.diag("HIP148", at, at + len(prefix), text))


def _hip_twin(ctx: Context, name: bytes, position: int, skip: int) -> bytes | None:
    """The HIP prefix another definition of macro `name` in the file pastes to its parameter at
    `position` (`#elif CELERITAS_USE_HIP / #define CELER_DEVICE_PREFIX(TOK) hip##TOK`)."""
    for other in _MACRO.finditer(ctx.source):
        if other.group(1) != name or other.start() == skip:
            continue
        params = [p.strip() for p in other.group(2).split(b",")]
        if position >= len(params):
            continue
        m = re.search(rb"\b(hip\w*|HIP\w*)\s*##\s*" + re.escape(params[position]) + rb"\b", other.group(3))
        if m is not None and m.group(1) in HIP_PREFIXES.values():
            return m.group(1)
    return None


def _argument_at(source: bytes, start: int, end: int, position: int, suffix: bytes) -> int | None:
    """Offset of argument `position` (the identifier `suffix`) of the macro call at start..end."""
    at = source.index(b"(", start, end) + 1
    for _ in range(position):
        depth = 0
        for i in range(at, end):  # step over one argument, nested brackets included
            c = source[i]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                depth -= 1
            elif c == 0x2C and depth == 0:
                at = i + 1
                break
        else:
            return None
    m = re.compile(rb"\s*(" + re.escape(suffix) + rb")\b").match(source, at)
    return m.start(1) if m else None


def _uses(ctx: Context, name: bytes, position: int, after: int) -> list[tuple[int, int, bytes]]:
    """(start, end, argument) of each use of macro `name` in code hipcc compiles whose argument at
    `position` is one identifier; a use with any other argument there ends the search (empty list)."""
    found = []
    for m in re.finditer(rb"\b" + re.escape(name) + rb"\s*\(", ctx.source[after:]):
        start = after + m.start()
        line_start = ctx.source.rfind(b"\n", 0, start) + 1
        if _DEFINITION.match(ctx.source, line_start, start) or ctx.is_protected(start):
            continue  # another definition of the macro (`#elif ... #define GPU_PREFIX(val) hip##val`)
        if ctx.classify(start, start + len(name)) not in REWRITABLE:
            continue
        args, end = _arguments(ctx.source, after + m.end())
        # one identifier, or a call (`DEVICE_CALL(Malloc(&p, n))` pastes `cudaMalloc(&p, n)`)
        lead = _LEAD.fullmatch(args[position]) if end >= 0 and position < len(args) else None
        if lead is None:
            return []
        found.append((start, end, lead.group(1)))
    return found


_LEAD = lazy(rb"([A-Za-z_]\w*)(?:\s*\(.*)?", re.S)


def _arguments(source: bytes, at: int) -> tuple[list[bytes], int]:
    """The arguments of a macro call whose `(` ends just before `at`, stripped, and the offset after its
    `)`; (_, -1) when it does not close on this logical line's stretch."""
    depth, args, begin = 0, [], at
    for i in range(at, min(len(source), at + 4096)):
        c = source[i]
        if c in b"([{":
            depth += 1
        elif c in b")]}":
            if depth == 0:
                args.append(source[begin:i].strip())
                return args, i + 1
            depth -= 1
        elif c == 0x2C and depth == 0:  # ','
            args.append(source[begin:i].strip())
            begin = i + 1
    return [], -1


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={25: translate_pasted_prefixes},
    texts=(
        Rule(
            "HIP148",
            "pasted-prefix",
            Severity.INFO,
            "CUDA names built by token pasting now build HIP names",
            "Nothing to do; check the macro's uses in other files name APIs HIP spells the same way.",
            "`#define GPU_PREFIX(val) cuda##val` builds API names the tables cannot see. Where every use in "
            "the file (`GPU_PREFIX(Malloc)`, `GPU_PREFIX(Error_t)`) names a CUDA API with a known HIP "
            "counterpart, the pasted prefix becomes the one most of those counterparts share (`hip##val`); "
            "a use spelled otherwise in HIP (`GPU_PREFIX(PointerAttributes)`: `hipPointerAttribute_t`) is "
            "replaced by the HIP name when the macro is only the paste; in a macro that is more "
            "(`CHECK(MallocHost, ...)`) the use's suffix becomes the one that builds the counterpart with "
            "the new prefix (`HostMalloc`: `hipHostMalloc`); HIP149 where no suffix does.",
        ),
        Rule(
            "HIP149",
            "pasted-name-differs",
            Severity.ERROR,
            "A token-pasted CUDA name whose HIP counterpart is spelled differently",
            "Spell the HIP name out at this use, or give the macro a second parameter for it.",
            "The macro's pasted prefix now builds HIP names, but this use's CUDA API has a HIP counterpart "
            "that no suffix builds with the HIP prefix, and the target's runtime header declares no such "
            "name (mappings/probed/hip-identifiers-<HIP>.yaml), so hipcc stops there.",
        ),
    ),
    fixtures=("macros/token_pasting*", "macros/pasted_prefix*"),
)
