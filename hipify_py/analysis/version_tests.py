"""CUDA toolkit and library version tests: where hipcc meets an #error (HIP145) and those every current
toolkit decides alike (HIP147), for pp_branches.

`#if CUDA_VERSION >= 11000 ... #else ... #endif`: CUDA_VERSION is undefined under hipcc (0 in #if), so
ROCm compiles the branch for toolkits older than any supported one. pp_branches opens such a test (ROCm
takes the current toolkits' branch) and rules/version_errors.py rewrites its condition.

Only where the test chooses between two implementations of one thing (`#if ... A #else B #endif`, no
#elif, both with code, the one ROCm would take neither testing __CUDA_ARCH__ nor holding inline asm): a
test with no alternative, or whose branches only #define flags, gates a feature (CUDA 11 also brought
Ampere's cp.async and L2 persistence, which HIP lacks), and ROCm keeps skipping it, unless it defines a
function, type or macro that the branch another opened test gives ROCm uses (that use needs its
declaration). A condition is opened everywhere in the file or nowhere, so that a declaration and its uses
stay together. The exception is a branch hipcc takes that names the version macro in code (`#if
CUDA_VERSION < 9010 LOG << CUDA_VERSION;`): undefined there, it cannot compile, so that test is opened
whatever its shape (`names_version_in_code`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping

from hipify_py.data.detector_data import LIBRARY_VERSION_MACROS
from hipify_py.util.lazyre import lazy

# a comparison of the CUDA toolkit's own version (not a library's: its value is unknown here, and a
# presence test such as `#ifdef CUDART_VERSION` says "built with CUDA", not which CUDA)
_TOOLKIT = rb"(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR)__|__CUDA_API_VERSION)\b"
TOOLKIT_COMPARE = lazy(rb"\b" + _TOOLKIT + rb"\s*(?:[<>]=?|[!=]=)|(?:[<>]=?|[!=]=)\s*\b" + _TOOLKIT)


def current_toolkits_differ(amd: int | None, nvidia: set[int | None] | None, text: bytes) -> bool:
    """The condition `text` compares the CUDA toolkit's version, every current toolkit (11.8-13.0)
    decides it the same way (`nvidia`) and hipcc, where the macro is undefined, the other way (`amd`)."""
    if TOOLKIT_COMPARE.search(text) is None or b"\\\n" in text:  # a continued line is not rewritten
        return False
    if amd is None or not nvidia or None in nvidia:
        return False
    return {bool(v) for v in nvidia} == {not amd}


def hipcc_value(kind: bytes, amd: int | None, nvidia: set[int | None] | None, text: bytes) -> int | None:
    """The value of an `#if` under hipcc (`amd`), or where a name it tests is unknown there, the opposite
    of what every current toolkit decides: `#if CUDA_VERSION >= 10010 || defined(MFEM_USE_HIP)` is true on
    each of them whatever the project's own switch, and false under hipcc unless the switch is set, so it
    is a version test HIP147 may open (ROCm then takes the current toolkits' branch, as with the switch)."""
    if (
        kind != b"if"
        or amd is not None
        or not nvidia
        or None in nvidia
        or len({bool(v) for v in nvidia}) != 1
    ):
        return amd
    return int(not next(iter(nvidia))) if TOOLKIT_COMPARE.search(text) else None


_GROUP = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b", re.M)
_HARDWARE = lazy(rb"\b(?:__CUDA_ARCH__|asm|__asm__)\b")
_CODE_LINE = lazy(rb"^[ \t]*(?!#|//|/\*|\*|$)\S", re.M)  # a line that is neither a directive nor a comment


def choices_to_open(
    source: bytes,
    candidates: Iterable[tuple[int, int, bytes, object]],
    lacking: frozenset[bytes] = frozenset(),
    opened: Mapping[int, object] | None = None,
) -> dict[int, object]:
    """Of the HIP147 candidates (directive start, line end, condition, hipcc value), those to open:
    every test of their condition in the file is a two-way choice between code (see the docstring), and
    the branch ROCm would take then names no CUDA API of `lacking` (no HIP counterpart: OpenMM's
    `#if CUDA_VERSION < 11020` keeps its fallback where the other branch asks NVRTC for its archs). A
    one-way test opens where its branch declares a name that the branch ROCm now takes of another opened
    test uses (these, or `opened`: directive start -> hipcc value before, already decided)."""
    candidates = list(candidates)
    chosen = _choose(source, candidates, lacking, b"")
    # the two-way tests ROCm may take, chosen or not: a one-way test of the same condition declares
    # what its siblings use (DeepBench: `#if (__CUDACC_VER_MAJOR__ >= 8) int pad_m, pad_n; #endif` beside
    # `#if (__CUDACC_VER_MAJOR__ >= 8) ... pad_m ... #else ... #endif`); the group opens only as a whole
    acceptable = {s: amd for s, _, _, amd in candidates if _takes_acceptable(source, s, amd, lacking)}
    reached = _taken_text(source, {**acceptable, **(opened or {}), **chosen})
    return _choose(source, candidates, lacking, reached) if reached else chosen


def _takes_acceptable(source: bytes, start: int, amd: object, lacking: frozenset[bytes]) -> bool:
    """A two-way test whose branch ROCm would take names nothing HIP lacks, no arch test, no asm."""
    end = source.find(b"\n", start)
    branches = _two_way_branches(source, len(source) if end < 0 else end)
    if branches is None or amd is None:
        return False
    taken = branches[1] if amd else branches[0]
    return not lacking.intersection(_WORD.findall(taken)) and _HARDWARE.search(taken) is None


def _choose(
    source: bytes,
    candidates: Iterable[tuple[int, int, bytes, object]],
    lacking: frozenset[bytes],
    reached: bytes,
) -> dict[int, object]:
    by_condition: dict[bytes, list[tuple[int, object, bool]]] = {}
    for start, end, text, amd in candidates:
        key = b" ".join(text.split())
        branches = _two_way_branches(source, end)
        if branches is None and _pragmas_only(source, end):
            continue  # `#if CUDA_VERSION >= 9000 #pragma GCC diagnostic push #endif` (gloo): either way
        if branches is None and reached and amd is not None and not amd:
            branches = _declaring_branch(source, end, reached)  # its declarations join their opened uses
        # the branch ROCm takes once opened (either, where the hipcc value is unknown: toolkit_atoms.py)
        taken = branches if branches is None or amd is None else (branches[-1] if amd else branches[0],)
        # what ROCm would compile: no CUDA name HIP lacks, no arch test or inline asm (the branch it leaves
        # may have them: `#if CUDART_VERSION >= 11000 __stcs(...) #else asm("st.global.cs...") #endif`)
        ok = taken is not None and not any(
            lacking.intersection(_WORD.findall(b)) or _HARDWARE.search(b) for b in taken
        )
        by_condition.setdefault(key, []).append((start, amd, ok))
    return {s: amd for group in by_condition.values() if all(ok for _, _, ok in group) for s, amd, _ in group}


def _taken_text(source: bytes, opened: Mapping[int, object]) -> bytes:
    """The code ROCm now compiles in the two-way tests opened at these directive starts."""
    parts = []
    for start, amd in opened.items():
        end = source.find(b"\n", start)
        branches = _two_way_branches(source, len(source) if end < 0 else end)
        if branches is not None and amd is not None:
            parts.append(branches[1] if amd else branches[0])
    return b"\n".join(parts)


_WORD = lazy(rb"[A-Za-z_]\w*")


def _two_way_branches(source: bytes, line_end: int) -> tuple[bytes, bytes] | None:
    """(the #if branch, the #else branch) where the group from this `#if` to its #endif is
    `#if ... #else ... #endif` (no #elif) and both branches have code; None otherwise."""
    group = _group(source, line_end)
    if group is None:
        return None
    kinds = group[1]
    branches = [source[a:b] for a, b in group[0]]
    if kinds == [b"else", b"endif"] and all(_CODE_LINE.search(b) is not None for b in branches):
        return branches[0], branches[1]
    return None


def _declaring_branch(source: bytes, line_end: int, reached: bytes) -> tuple[bytes] | None:
    """The body of a one-way group (`#if ... #endif`, code, no __CUDA_ARCH__ or asm) that defines a
    function, type or macro that `reached` (code an opened test now gives ROCm) uses: `#if CUDART_VERSION
    >= 9000 template <...> __device__ void warp_reduce(...) {...} #endif` beside `#if CUDART_VERSION > 9000
    warp_reduce(s); #else ...` (ELPA). Where the use is opened, its declaration must be too; None for any
    other group."""
    span = _one_way_body(source, line_end)
    if span is None:
        return None
    body = source[span[0] : span[1]]
    if _CODE_LINE.search(body) is None or _HARDWARE.search(body) is not None:
        return None
    for m in _DECLARED.finditer(body):
        name = next(g for g in m.groups() if g is not None)
        if name not in _KEYWORDS and re.search(rb"\b" + re.escape(name) + rb"\b", reached):
            return (body,)
    return None


_DEFINE_LINE = lazy(rb"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
_OTHER_CODE = lazy(rb"^[ \t]*(?!#[ \t]*(?:define|undef)\b)(?!//)(?!/\*)(?!\*)\S", re.MULTILINE)


def backports(source: bytes, line_end: int, known: frozenset[bytes]) -> bool:
    """The one-way group opened on the line ending at `line_end` only #defines names, one of them a name
    of CUDA's own API (`known`): a backport, for toolkits older than any supported one, of what current
    CUDA declares itself (oxDNA's helper_cuda.h: `#if CUDA_VERSION < 4010 #define CUDA_ERROR_ASSERT 710
    ... #define CURAND_STATUS_DOUBLE_PRECISION_REQUIRED 106 #endif`). HIP declares those names too
    (the translation renames them), so under hipcc, which enters it, the group redefines HIP's own."""
    span = _one_way_body(source, line_end)
    if span is None:
        return False
    body = source[span[0] : span[1]]
    names = _DEFINE_LINE.findall(body)
    return bool(names) and _OTHER_CODE.search(body) is None and any(n in known for n in names)


# a line of a body that changes nothing the compiler builds: a conditional, a pragma, a comment, blank
_NEUTRAL_LINE = lazy(
    rb"[ \t]*(?:#[ \t]*(?:if|ifdef|ifndef|elif|else|endif|pragma)\b.*|//.*|/\*.*|\*.*)?", re.DOTALL
)


def _pragmas_only(source: bytes, line_end: int) -> bool:
    """The one-way group opened on the line ending at `line_end` holds only pragmas (diagnostic pushes
    and pops) and conditionals around them: taking it or not builds the same code."""
    span = _one_way_body(source, line_end)
    if span is None:
        return False
    lines = source[span[0] : span[1]].splitlines()
    return any(b"pragma" in ln for ln in lines) and all(_NEUTRAL_LINE.fullmatch(ln) for ln in lines)


def _one_way_body(source: bytes, line_end: int) -> tuple[int, int] | None:
    """(start, end) of the body of the group opened on the line ending at `line_end` when it has no
    #else or #elif."""
    group = _group(source, line_end)
    return group[0][0] if group is not None and group[1] == [b"endif"] else None


def _group(source: bytes, line_end: int) -> tuple[list[tuple[int, int]], list[bytes]] | None:
    """The branches of the group opened on the line ending at `line_end`: their spans, and the directive
    that ends each (#else, #elif, #endif); None where the file ends first."""
    depth, spans, kinds, at = 0, [], [], line_end
    for m in _GROUP.finditer(source, line_end):
        kind = m.group(1)
        if kind in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif kind == b"endif" and depth:
            depth -= 1
        elif depth == 0:
            spans.append((at, m.start()))
            kinds.append(kind)
            if kind == b"endif":
                return spans, kinds
            at = source.find(b"\n", m.end()) + 1 or len(source)
    return None


# what a body defines: a function (name, parameters, body), a class/struct/union/enum, a macro
_DECLARED = lazy(
    rb"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?(?:noexcept\s*)?\{"
    rb"|\b(?:struct|class|union|enum)\s+([A-Za-z_]\w*)\s*[:{]"
    rb"|^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)"
    # a variable: `cudaDataType_t A_type = CUDA_R_32F;`, `int algo;`, `int pad_m, pad_n;` (DeepBench)
    rb"|^[ \t]*(?!(?:return|delete|throw|goto|case|else|using|typedef|new)\b)(?:const[ \t]+|static[ \t]+)*"
    rb"[A-Za-z_][\w:]*(?:<[^;{}\n]*>)?(?:[ \t*&]+([A-Za-z_]\w*)[ \t]*(?:=|;|\[)"
    # a list's first name (`int pad_m, pad_n;`), not a product in a continued call (`n * k,`)
    rb"|[ \t]+[*&]*([A-Za-z_]\w*)[ \t]*,)",
    re.M,
)
_KEYWORDS = frozenset((b"if", b"for", b"while", b"switch", b"catch", b"return", b"sizeof"))


# the directives that open, split and close conditional groups, and #error
GROUP_LINE = lazy(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif|error)\b", re.M)
ERROR_LINE = lazy(rb"^[ \t]*#[ \t]*error\b", re.M)
# CUDA toolkit and library version macros (not __CUDA_ARCH__: an arch test before an #error says what
# hardware the code needs, which the translation cannot decide)
VERSION_MACROS = lazy(
    rb"\b(?:CUDA_VERSION|CUDART_VERSION|__CUDACC_VER_(?:MAJOR|MINOR|BUILD)__|__CUDA_API_VERSION|"
    + LIBRARY_VERSION_MACROS
    + rb")\b"
)


def group_directives(source: bytes, line_end: int) -> Iterator[re.Match[bytes]]:
    """The directives of the group whose opening line ends at `line_end`, at that group's own level
    (#elif, #else, #error; nested groups skipped), up to its #endif (not yielded)."""
    for m in _own_level(source, line_end):
        if m.group(1) == b"endif":
            return
        yield m


def _own_level(source: bytes, line_end: int) -> Iterator[re.Match[bytes]]:
    """The directives at the level of the group opened before `line_end`, its closing #endif last."""
    depth = 0
    for m in GROUP_LINE.finditer(source, line_end):
        kind = m.group(1)
        if kind in (b"if", b"ifdef", b"ifndef"):
            depth += 1
        elif depth:
            if kind == b"endif":
                depth -= 1
        else:
            yield m
            if kind == b"endif":
                return


def error_branch(source: bytes, line_end: int, taken: bool) -> int | None:
    """Where hipcc meets an `#error` of the branch it takes at this directive (its own body when the
    condition is true under hipcc, else the `#else` that follows directly), or None."""
    in_taken = taken
    for m in group_directives(source, line_end):
        if m.group(1) == b"error":
            if in_taken:
                return m.start()
        elif in_taken or m.group(1) != b"else":
            return None  # the taken branch ended, or an #elif whose value is not known here
        else:
            in_taken = True
    return None


# what a branch's code holds besides names: comments, string and character literals
_NOT_NAMES = lazy(rb"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
_DEFINES_VERSION = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(?:" + VERSION_MACROS.pattern[2:] + rb")", re.M)


def names_version_in_code(source: bytes, line_end: int, taken: bool) -> bool:
    """The branch hipcc takes at this `#if` (its own body when the condition is true under hipcc, else
    the `#else` right after it) names a CUDA version macro in code at its own level, outside nested
    groups, comments and literals: undefined under hipcc, it is an undeclared identifier there. False
    where the file defines such a macro itself."""
    if _DEFINES_VERSION.search(source) is not None:
        return False
    body_start, in_taken, depth = line_end, taken, 0
    for m in GROUP_LINE.finditer(source, line_end):
        kind = m.group(1)
        if kind in (b"if", b"ifdef", b"ifndef"):
            if depth == 0 and in_taken and _names_version(source, body_start, m.start()):
                return True
            depth += 1
        elif kind == b"endif" and depth:
            depth -= 1
            if depth == 0:
                body_start = source.find(b"\n", m.end()) + 1 or len(source)
        elif depth == 0 and kind != b"error":
            if in_taken:
                return _names_version(source, body_start, m.start())
            if kind != b"else":
                return False  # an #elif whose value is not known here
            in_taken = True
            body_start = source.find(b"\n", m.end()) + 1 or len(source)
    return False


def _names_version(source: bytes, start: int, end: int) -> bool:
    lines = [ln for ln in source[start:end].split(b"\n") if not ln.lstrip().startswith(b"#")]
    return VERSION_MACROS.search(_NOT_NAMES.sub(b" ", b"\n".join(lines))) is not None


_INCLUDE_LINE = lazy(rb'[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"][ \t]*(?://.*)?')
_BLANK_OR_COMMENT = lazy(rb"[ \t]*(?://.*)?")


def includes_only(source: bytes, line_end: int, headers: frozenset[bytes]) -> bool:
    """The group of this `#if` has one branch (no #elif/#else), holding nothing but includes of `headers`
    (CUDA headers whose HIP counterpart the target has) besides blank and `//` comment lines: taking it
    only declares more (`#if CUDART_VERSION >= 11000 #include <cuda_bf16.h> #endif`)."""
    if not headers or next(group_directives(source, line_end), None) is not None:
        return False  # an #elif, #else or #error at this level
    close = _group_end(source, line_end)
    if close is None:
        return False
    found = False
    for line in source[line_end:close].split(b"\n"):
        include = _INCLUDE_LINE.fullmatch(line.rstrip(b"\r"))
        if include is not None:
            if include.group(1) not in headers:
                return False
            found = True
        elif _BLANK_OR_COMMENT.fullmatch(line.rstrip(b"\r")) is None:
            return False
    return found


def _group_end(source: bytes, line_end: int) -> int | None:
    """Where the #endif line that closes the group opened before `line_end` starts, or None."""
    last = None
    for m in _own_level(source, line_end):
        last = m
    return last.start() if last is not None and last.group(1) == b"endif" else None
