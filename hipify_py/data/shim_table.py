"""Shims: mappings/shims.yaml, loaded once, queried by target version.

A shim is the small definition hipify-py writes into a file for a name the target HIP lacks but that
has an exact equivalent (hipsparseGetErrorString before ROCm 6.0, CUDA's SIMD video intrinsics on
every HIP). Rules ask `shims_for(target)`; `definition(shim, ...)` renders the text to insert.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.data.mappings import hand_kept_dir, probed_dir
from hipify_py.data.version_ranges import holds_for, one_per_name, read_table
from hipify_py.data.versions import compare_versions

TABLE_NAME = "shims.yaml"
HALF_MATH_PREFIX = "half-math-gaps-"  # scripts/probe_half_math.py
GUARD_PREFIX = "HIPIFY_PY_SHIM_"
NVIDIA = "__HIP_PLATFORM_NVIDIA__"
# HIP's NVIDIA platform needs CUDA 11 or newer (HIP's nvidia_detail headers use cuda_bf16.h, 11.0's):
# a name CUDA defines since then needs no version test
_CUDA_FLOOR = "11.0"


class TableError(ValueError):
    """A malformed row in the shim table (a bug in the shipped data: tests load it)."""


class Cases(NamedTuple):
    """One `case` line per enumerator the tables map from `cuda`* to `hip`* (existing at the target)."""

    cuda: str
    hip: str


class Overload(NamedTuple):
    """The call whose argument type decides: `call(args...)` with argument `arg` (a pointer to it
    when `pointer`) of one of `types` (as source code spells them, CUDA's or HIP's names)."""

    call: str
    arg: int
    pointer: bool
    types: tuple[str, ...]  # the first: HIP's spelling, for comments and findings
    # the types HIP's own overloads take (`sincos`: double): given, a call whose argument the file
    # spells as any other type calls for the shim, a typedef of another header too (oxDNA's c_number);
    # an argument of no spelled type (`&r.first`) does not
    hip_types: tuple[str, ...] = ()


class Shim(NamedTuple):
    name: str  # the HIP name the translated code calls
    code: str  # the definition (may hold ${cases})
    source: str  # where the fact comes from
    since: str | None = None
    until: str | None = None
    guard: str | None = None  # preprocessor condition: the library release still lacks the name
    cases: Cases | None = None
    # the CUDA release whose headers define the name (None: CUDA has no such name, e.g. a hip* one):
    # on HIP's NVIDIA platform CUDA's own definition is used, ours would be a redefinition
    cuda: str | None = None
    device: bool = False  # only uses in device code call for it (a __device__ overload of a host function)
    host: bool = False  # only uses in host code call for it (a __host__ overload of a device-only function)
    strings: str | None = None  # ${cases} from the probed runtime's error table: "name" or "text"
    overload: Overload | None = None  # an overload for argument types: triggered by the call's type
    # what the helper does that CUDA's function does not (a device-side call HIP cannot answer):
    # reported as a warning (HIP227) instead of HIP223/HIP134
    differs: str | None = None
    # what the target lacks, where the helper is not a name HIP could add (`lacking` below); {hip}: the target
    gap: str | None = None

    @property
    def function(self) -> str:
        """The name the shim defines (an overload row's name only tells its macro apart)."""
        return self.overload.call if self.overload is not None else self.name

    def holds_for(self, target: str) -> bool:
        return holds_for(self.since, self.until, target)

    @property
    def lacks(self) -> str:
        """Why the target lacks the name, for comments and findings."""
        # `since` only says where the shim applies (e.g. from the release with hip_bf16.h), not a removal
        return f"added in HIP {self.until}" if self.until else "in no HIP release"

    @property
    def macro(self) -> str:
        return GUARD_PREFIX + self.name


_SIMD_BINARY = (  # string.Template text
    "static __host__ __device__ inline unsigned int ${name}(unsigned int a, unsigned int b) {\n"
    "  unsigned int r = 0;\n"
    "  for (int i = 0; i < 32; i += ${bits}) {\n"
    "    const int x = (${lane})(a >> i), y = (${lane})(b >> i);\n"
    "    ${combine}\n"
    "  }\n"
    "  return r;\n"
    "}\n"
)
_SIMD_UNARY = (
    "static __host__ __device__ inline unsigned int ${name}(unsigned int a) {\n"
    "  unsigned int r = 0;\n"
    "  for (int i = 0; i < 32; i += ${bits}) {\n"
    "    const int x = (${lane})(a >> i);\n"
    "    ${combine}\n"
    "  }\n"
    "  return r;\n"
    "}\n"
)


def _substitute(template: str, **values: object) -> str:
    """`string.Template(template).substitute(values)`. Why `string` is imported here: its import compiles
    Template's pattern (~0.3 ms before a run's first fork), and only building the shim table or
    inserting a shim needs it."""
    from string import Template

    return Template(template).substitute(**values)


_LANES = {  # lanes -> (bits, signed type, unsigned type, signed min, signed max, unsigned max)
    2: (16, "short", "unsigned short", -32768, 32767, 65535),
    4: (8, "signed char", "unsigned char", -128, 127, 255),
}


def simd_code(
    name: str, lanes: int, signed: bool, expr: str, unary: bool = False, total: bool = False
) -> str:
    """A SIMD intrinsic as a loop over its lanes (clang unrolls it); `expr` is one lane's result."""
    bits, s_type, u_type, s_min, s_max, u_max = _LANES[lanes]
    lo, hi = (s_min, s_max) if signed else (0, u_max)
    lane_expr = _substitute(expr, min=f"({lo})", max=f"({hi})")
    mask = f"0x{(1 << bits) - 1:x}u"
    combine = (
        f"r += (unsigned int)({lane_expr});"
        if total
        else f"r |= ((unsigned int)({lane_expr}) & {mask}) << i;"
    )
    template = _SIMD_UNARY if unary else _SIMD_BINARY
    return _substitute(template, name=name, bits=bits, lane=s_type if signed else u_type, combine=combine)


# bf16 -> integer conversions: C type, lowest value, exclusive upper bound (both exact in float), highest,
# what NaN gives (PTX cvt: 0 for 32- and 16-bit results, 0x8000000000000000 for 64-bit ones, as an H100
# gives for all 254 bf16 NaNs: scripts/gpu_shim_check.py)
_BF16_INTS = {
    "int": ("int", "(-2147483647 - 1)", "2147483648.0f", "2147483647", "0"),
    "uint": ("unsigned int", "0u", "4294967296.0f", "4294967295u", "0u"),
    "short": ("short", "(-32767 - 1)", "32768.0f", "32767", "0"),
    "ushort": ("unsigned short", "0", "65536.0f", "65535", "0"),
    "ll": (
        "long long",
        "(-9223372036854775807LL - 1)",
        "9223372036854775808.0f",
        "9223372036854775807LL",
        "(-9223372036854775807LL - 1)",
    ),
    "ull": (
        "unsigned long long",
        "0ull",
        "18446744073709551616.0f",
        "18446744073709551615ull",
        "0x8000000000000000ull",
    ),
}
_ROUNDING = {"rn": "rintf", "rd": "floorf", "ru": "ceilf", "rz": "truncf"}
_BF16_INT = (
    "static __host__ __device__ inline ${type} ${name}(const __hip_bfloat16 h) {\n"
    "  // as PTX cvt: rounded, NaN -> ${nan}, saturated to the type's range\n"
    "  const float f = ${round}(__bfloat162float(h));\n"
    "  if (f != f) return ${nan};\n"
    "  if (f <= static_cast<float>(${lo})) return ${lo};\n"
    "  return f >= ${hi} ? ${max} : static_cast<${type}>(f);\n"
    "}\n"
)


def bf16_int_code(to: str, rounding: str) -> tuple[str, str]:
    """(name, definition) of CUDA's `__bfloat162<to>_<rounding>` over hip_bf16.h's __bfloat162float."""
    c_type, lo, hi, top, nan = _BF16_INTS[to]
    name = f"__bfloat162{to}_{rounding}"
    code = _substitute(
        _BF16_INT, type=c_type, name=name, round=_ROUNDING[rounding], lo=lo, hi=hi, max=top, nan=nan
    )
    return name, code


def _bf16_ints(raw: Mapping[str, object], sources: Mapping[str, str]) -> list[Shim]:
    source = sources.get(str(raw.get("source")))
    targets = raw.get("to")
    if source is None or not isinstance(targets, list) or not set(map(str, targets)) <= set(_BF16_INTS):
        known = sorted(_BF16_INTS)
        raise TableError(f"{TABLE_NAME}: `bf16_int` needs a known `source` and `to` from {known}")
    shims = []
    for to in targets:
        for rounding in _ROUNDING:
            name, code = bf16_int_code(str(to), rounding)
            shims.append(
                Shim(name, code, source, _text(raw, "since"), _text(raw, "until"), cuda=_text(raw, "cuda"))
            )
    return shims


def _text(raw: Mapping[str, object], key: str) -> str | None:
    value = raw.get(key)
    return None if value is None else str(value)


def _shim(raw: Mapping[str, object], sources: Mapping[str, str], index: int) -> Shim:
    name, code = _text(raw, "name"), _text(raw, "code")
    if not name or not code:
        raise TableError(f"{TABLE_NAME}: shim {index + 1} needs `name` and `code`")
    source = _text(raw, "source") or ""
    if source not in sources:
        raise TableError(f"{TABLE_NAME}: shim {index + 1} ({name}): unknown source {source!r}")
    cases, strings = raw.get("cases"), _text(raw, "strings")
    if ("${cases}" in code) != (isinstance(cases, Mapping) or strings is not None):
        raise TableError(f"{TABLE_NAME}: shim {index + 1} ({name}): `cases` and ${{cases}} go together")
    if strings not in (None, "name", "text"):
        raise TableError(f"{TABLE_NAME}: shim {index + 1} ({name}): `strings` is `name` or `text`")
    return Shim(
        name=name,
        code=code,
        source=sources[source],
        since=_text(raw, "since"),
        until=_text(raw, "until"),
        guard=_text(raw, "guard"),
        cases=Cases(str(cases["cuda"]), str(cases["hip"])) if isinstance(cases, Mapping) else None,
        cuda=_text(raw, "cuda"),
        device=bool(raw.get("device", False)),
        host=bool(raw.get("host", False)),
        strings=strings,
        overload=_overload(raw, name, index),
        differs=_text(raw, "differs"),
        gap=_text(raw, "gap"),
    )


def _overload(raw: Mapping[str, object], name: str, index: int) -> Overload | None:
    call, types = _text(raw, "call"), raw.get("types")
    if call is None:
        return None
    if not isinstance(types, list) or not types or not isinstance(raw.get("arg", 0), int):
        raise TableError(f"{TABLE_NAME}: shim {index + 1} ({name}): `call` needs `types` and an int `arg`")
    hip_types = tuple(map(str, raw.get("hip_types") or ()))  # type: ignore[union-attr]
    return Overload(
        call, int(raw.get("arg", 0)), bool(raw.get("pointer", False)), tuple(map(str, types)), hip_types
    )


def _simd(raw: Mapping[str, object], source: str, index: int, cuda: str | None) -> Shim:
    name, expr, lanes = _text(raw, "name"), _text(raw, "expr"), raw.get("lanes")
    if not name or not expr or lanes not in _LANES or not isinstance(raw.get("signed"), bool):
        raise TableError(f"{TABLE_NAME}: simd row {index + 1} needs name, expr, lanes (2 or 4), signed")
    assert isinstance(lanes, int)
    code = simd_code(
        name, lanes, bool(raw["signed"]), expr, bool(raw.get("unary", False)), bool(raw.get("sum", False))
    )
    since, until = _text(raw, "since"), _text(raw, "until")
    return Shim(
        name=name, code=code, source=source, since=since, until=until, cuda=_text(raw, "cuda") or cuda
    )


@functools.lru_cache(maxsize=1)
def load_table(path: Path | None = None) -> tuple[Shim, ...]:
    if path is None:  # the shipped table: built once per code stamp (hipify_py/data/derived.py)
        from hipify_py.data import derived

        return derived.load("shims", _build_table)
    return _build_table(path)


def _build_table(path: Path | None = None) -> tuple[Shim, ...]:
    doc, sources = read_table(path or hand_kept_dir() / TABLE_NAME)
    rows = [_shim(raw, sources, i) for i, raw in enumerate(doc.get("shims") or ())]
    simd_source = sources.get(str(doc.get("simd_source")), "")
    if doc.get("simd") and not simd_source:
        raise TableError(f"{TABLE_NAME}: `simd_source` must name one of `sources`")
    simd_cuda = _text(doc, "simd_cuda")
    rows += [_simd(raw, simd_source, i, simd_cuda) for i, raw in enumerate(doc.get("simd") or ())]
    bf16_ints = doc.get("bf16_int")
    if bf16_ints is not None:
        rows += _bf16_ints(bf16_ints if isinstance(bf16_ints, Mapping) else {}, sources)
    half = doc.get("half_math")
    if half is not None:
        folder = path.parent if path is not None else probed_dir()
        rows += _half_math(half if isinstance(half, Mapping) else {}, sources, folder)
    return tuple(rows)


def _half_math(raw: Mapping[str, object], sources: Mapping[str, str], folder: Path) -> list[Shim]:
    """A shim per run of releases lacking the same 16-bit float overloads of one function
    (data/half_math.py; the gaps probed per release: mappings/half-math-gaps-<HIP>.yaml)."""
    import yaml

    from hipify_py.data import half_math
    from hipify_py.data.mappings import load_mappings

    source = sources.get(str(raw.get("source")))
    if source is None:
        raise TableError(f"{TABLE_NAME}: `half_math` needs a known `source`")
    gaps: dict[str, list[str]] = {}
    for table in folder.glob(f"{HALF_MATH_PREFIX}*.yaml"):
        doc = yaml.safe_load(table.read_text()) or {}
        gaps[str(doc["hip_version"])] = [str(case) for case in doc.get("lacks") or ()]
    order = sorted(gaps, key=lambda v: tuple(int(x) for x in v.split(".")))
    entries = load_mappings().by_cuda
    shims = []
    for run in half_math.runs(gaps, order):
        entry = entries.get(run.name)
        until = run.until
        hip_added = ".".join(entry.hip_added.split(".")[:2]) if entry is not None and entry.hip_added else ""
        if hip_added and run.since is None and (until is None or compare_versions(hip_added, until) < 0):
            until = hip_added  # the tables know the release that added it, between the probed ones
        cuda = entry.cuda_added if entry is not None and entry.cuda_added else _CUDA_FLOOR
        shims.append(Shim(run.name, half_math.code(run), source, run.since, until, cuda=cuda))
    return shims


@functools.lru_cache(maxsize=16)
def shims_for(target: str) -> Mapping[str, Shim]:
    """HIP name -> the shim a file calling it needs at `target` (at most one row per name holds)."""
    return one_per_name(
        load_table(), target, lambda s: s.name, Shim.holds_for, lambda m: TableError(f"{TABLE_NAME}: {m}")
    )


def case_lines(
    cases: Cases, enumerators: Iterable[tuple[str, str | None]], exists: Callable[[str], bool]
) -> str:
    """`    case HIP_X: return "HIP_X";` for each (cuda, hip) pair under the prefixes that exists."""
    lines = []
    seen = set()
    for cuda, hip in sorted(enumerators, key=lambda pair: pair[0]):
        if hip is None or not cuda.startswith(cases.cuda) or not hip.startswith(cases.hip) or hip in seen:
            continue
        if exists(hip):
            seen.add(hip)
            lines.append(f'  case {hip}: return "{hip}";')
    return "\n".join(lines)


def nvidia_condition(cuda: str | None) -> str:
    """` && <CUDA does not define the name here>` for a name CUDA defines since release `cuda`: on HIP's
    NVIDIA platform (hipcc runs nvcc on CUDA's headers) CUDA's own definition is used. nvcc predefines
    __CUDACC_VER_MAJOR__/__CUDACC_VER_MINOR__, so the test needs no header."""
    if cuda is None:
        return ""
    if compare_versions(cuda, _CUDA_FLOOR) <= 0:
        return f" && !defined({NVIDIA})"
    major, minor = (int(part) for part in [*cuda.split("."), "0"][:2])
    release = "__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__"
    return f" && !(defined({NVIDIA}) && {release} >= {major * 100 + minor})"


def definition(shim: Shim, target: str, cases: str = "", newline: bytes = b"\n") -> bytes:
    """The text inserted into a file: a comment saying why, the guarded definition."""
    body = _substitute(shim.code, cases=cases) if "${cases}" in shim.code else shim.code
    condition = (
        f"!defined({shim.macro})"
        + nvidia_condition(shim.cuda)
        + (f" && ({shim.guard})" if shim.guard else "")
    )
    text = (
        f"// hipify-py: {lacking(shim, target)}; an equivalent:\n"
        f"#if {condition}\n"
        f"#define {shim.macro}\n"
        f"{body.rstrip()}\n"
        "#endif\n"
    )
    return text.replace("\n", newline.decode()).encode()


def lacking(shim: Shim, target: str, quote: str = "") -> str:
    """What the target lacks, for the comment above a shim and (quote="`") its finding."""
    name = f"{quote}{shim.function}{quote}"
    if shim.gap:
        return shim.gap.format(hip=target).replace("`", quote)
    if shim.overload is not None:
        kind = shim.overload.types[0] + (" *" if shim.overload.pointer else "")
        return f"{name} has no HIP {target} overload for {kind}"
    if shim.device:
        return f"{name} has no device version in HIP {target}"
    if shim.host:
        return f"{name} has no host version in HIP {target}"
    return f"{name} is not in HIP {target} ({shim.lacks})"


GAPS_PREFIX = "device-gaps-"  # mappings/device-gaps-<HIP>.yaml: scripts/probe_device_gaps.py
ErrorTable = tuple[tuple[tuple[str, str, str], ...], tuple[str, str]]


@functools.lru_cache(maxsize=16)
def error_strings(target: str) -> ErrorTable:
    """((code, name, text) per code the target's runtime names, (name, text) of any other code), from
    the probe table of the target or the nearest older probed release."""
    from hipify_py.data.versions import read_versioned

    _, data = read_versioned(probed_dir(), GAPS_PREFIX, target)
    rows = tuple((str(c), str(n), str(t)) for c, n, t in data.get("errors") or ())
    unknown = data.get("unknown") or ("hipErrorUnknown", "unknown error")
    return rows, (str(unknown[0]), str(unknown[1]))


def error_string_cases(target: str, which: str) -> str:
    """The `case` lines (and `default`) of a device hipGetErrorName (`which` = "name") or
    hipGetErrorString ("text") that returns what the target's host function returns."""
    rows, unknown = error_strings(target)
    pick = 1 if which == "name" else 2

    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = [f"  case {row[1]}: return {quoted(row[pick])};" for row in rows]
    lines.append(f"  default: return {quoted(unknown[pick - 1])};")
    return "\n".join(lines)
