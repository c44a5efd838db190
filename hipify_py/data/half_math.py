"""Helpers for CUDA's 16-bit float arithmetic, comparison and min/max functions a HIP release lacks.

cuda_fp16.h and cuda_bf16.h declare one family for __half/__half2 and __nv_bfloat16/__nv_bfloat162
(`__hmax`, `__hmax2_nan`, `__hadd_sat`, `__hequ2`, `__heq2_mask`, `__hfma_relu`, ...); HIP declares
part of it, per type and release: scripts/probe_half_math.py -> mappings/half-math-gaps-<HIP>.yaml.
For each function, a shim row per run of probed releases that lack the same types; its code defines
the overloads for exactly those types (the others are HIP's own), each computing what CUDA's
documentation says (CUDA Math API, Half/Bfloat16 Precision Intrinsics):

- max/min: the larger/smaller; a NaN input gives the other input, two NaNs the canonical NaN
  (0x7fff); +0.0 > -0.0 (equal inputs: the sign of 1/x tells zeros apart). `_nan` forms: any NaN
  input gives the canonical NaN.
- `_sat`: the operation in round-to-nearest-even (HIP's own operator), then clamped to [0.0, 1.0],
  NaN to +0.0. `_rn`: the operation rounded once, never contracted into an fma (computed in float,
  where the product of two 16-bit values is exact and a sum rounded twice rounds as once: 24 >= 2p+2).
- `__hfma_relu`: HIP's fma, then negative results clamped to +0.0, NaN to the canonical NaN.
- unordered comparisons (`__hequ`...): true when an input is NaN; `_mask` forms give 0xffff per half
  that holds (ordered forms: 0 with a NaN input).
Checked on the host against a model (tests/test_shims.py) and against CUDA's own functions on an
NVIDIA GPU by scripts/gpu_shim_check.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple


class Kind(NamedTuple):
    what: str  # max, min, max_nan, min_nan, sat, rn, fma_relu, fma_sat, cmp, cmpu, mask, masku
    op: str = ""  # the operator or comparison (`+`, `==`, ...) or HIP's function (`__hadd`)
    arity: int = 2


_CMP = {"eq": "==", "ne": "!=", "le": "<=", "ge": ">=", "lt": "<", "gt": ">"}
# scalar function -> kind; the pair forms (`__hmax2`, `__hadd2_sat`, ...) apply it to each half
SCALAR_KINDS: dict[str, Kind] = {
    "__hmax": Kind("max"),
    "__hmin": Kind("min"),
    "__hmax_nan": Kind("max_nan"),
    "__hmin_nan": Kind("min_nan"),
    "__hadd_sat": Kind("sat", "__hadd"),
    "__hsub_sat": Kind("sat", "__hsub"),
    "__hmul_sat": Kind("sat", "__hmul"),
    "__hfma_sat": Kind("sat", "__hfma", 3),
    "__hadd_rn": Kind("rn", "+"),
    "__hsub_rn": Kind("rn", "-"),
    "__hmul_rn": Kind("rn", "*"),
    "__hfma_relu": Kind("fma_relu", "__hfma", 3),
    **{f"__h{c}u": Kind("cmpu", op) for c, op in _CMP.items() if c not in ("eq", "ne")},
    "__hequ": Kind("cmpu", "=="),
    "__hneu": Kind("cmpu", "!="),
}
PAIR_KINDS: dict[str, Kind] = {
    "__hmax2": SCALAR_KINDS["__hmax"],
    "__hmin2": SCALAR_KINDS["__hmin"],
    "__hmax2_nan": SCALAR_KINDS["__hmax_nan"],
    "__hmin2_nan": SCALAR_KINDS["__hmin_nan"],
    "__hadd2_sat": SCALAR_KINDS["__hadd_sat"],
    "__hsub2_sat": SCALAR_KINDS["__hsub_sat"],
    "__hmul2_sat": SCALAR_KINDS["__hmul_sat"],
    "__hfma2_sat": SCALAR_KINDS["__hfma_sat"],
    "__hadd2_rn": SCALAR_KINDS["__hadd_rn"],
    "__hsub2_rn": SCALAR_KINDS["__hsub_rn"],
    "__hmul2_rn": SCALAR_KINDS["__hmul_rn"],
    "__hfma2_relu": SCALAR_KINDS["__hfma_relu"],
    **{f"__h{c}u2": Kind("cmpu2", op) for c, op in _CMP.items()},
    **{f"__h{c}2_mask": Kind("mask", op) for c, op in _CMP.items()},
    **{f"__h{c}u2_mask": Kind("masku", op) for c, op in _CMP.items()},
}


class Types(NamedTuple):
    scalar: str
    pair: str
    to_float: str
    from_float: str
    low: str
    high: str
    make: str


HALF = Types(
    "__half", "__half2", "__half2float", "__float2half", "__low2half", "__high2half", "__halves2half2"
)
BF16 = Types(
    "__hip_bfloat16",
    "__hip_bfloat162",
    "__bfloat162float",
    "__float2bfloat16",
    "__low2bfloat16",
    "__high2bfloat16",
    "__halves2bfloat162",
)
BY_NAME = {t.scalar: t for t in (HALF, BF16)} | {t.pair: t for t in (HALF, BF16)}


def _nan(t: Types) -> str:
    return (
        f"{{ {t.scalar} n; const unsigned short bits = 0x7fffu; "
        "__builtin_memcpy(static_cast<void*>(&n), &bits, sizeof n); return n; }"
    )


def _scalar_body(kind: Kind, t: Types) -> str:
    """Statements computing the scalar result from a, b (c) of type t.scalar."""
    x = f"  const float x = {t.to_float}(a), y = {t.to_float}(b);\n"
    zero, one = f"{t.from_float}(0.0f)", f"{t.from_float}(1.0f)"
    w = kind.what
    if w in ("max", "min", "max_nan", "min_nan"):
        nan = (
            f"  if (x != x || y != y) {_nan(t)}\n"
            if w.endswith("_nan")
            else f"  if (x != x && y != y) {_nan(t)}\n  if (x != x) return b;\n  if (y != y) return a;\n"
        )
        pick = (
            "x > y ? a : (y > x ? b : (1.0f / x < 0.0f ? b : a))"
            if w.startswith("max")
            else "x < y ? a : (y < x ? b : (1.0f / x < 0.0f ? a : b))"
        )
        return x + nan + f"  return {pick};\n"
    if w == "sat":
        args = "a, b, c" if kind.arity == 3 else "a, b"
        return (
            f"  const {t.scalar} r = {kind.op}({args});\n"
            f"  const float f = {t.to_float}(r);\n"
            f"  return f != f || f <= 0.0f ? {zero} : (f >= 1.0f ? {one} : r);\n"
        )
    if w == "rn":  # why the pragma: CUDA's _rn forms are never fused into an fma
        return f"#pragma clang fp contract(off)\n{x}  return {t.from_float}(x {kind.op} y);\n"
    if w == "fma_relu":
        return (
            f"  const {t.scalar} r = {kind.op}(a, b, c);\n"
            f"  const float f = {t.to_float}(r);\n"
            f"  if (f != f) {_nan(t)}\n"
            # why <=: CUDA's relu gives +0.0 for a -0.0 result (checked on an H100: scripts/gpu_shim_check.py)
            f"  return f <= 0.0f ? {zero} : r;\n"
        )
    if w == "cmpu":
        return x + f"  return x != x || y != y || x {kind.op} y;\n"
    raise ValueError(w)


def _lane_test(kind: Kind, x: str, y: str) -> str:
    """The condition a comparison holds on one lane (ordered: false with a NaN input)."""
    if kind.what in ("cmpu2", "masku"):
        return f"({x} != {x} || {y} != {y} || {x} {kind.op} {y})"
    return f"({x} == {x} && {y} == {y} && {x} {kind.op} {y})"


def overload(name: str, type_: str) -> str:
    """The definition of `name` for argument type `type_` (a scalar or pair type)."""
    t = BY_NAME[type_]
    if name in SCALAR_KINDS:
        kind = SCALAR_KINDS[name]
        params = ", ".join(f"const {t.scalar} {p}" for p in "abc"[: kind.arity])
        result = "bool" if kind.what == "cmpu" else t.scalar
        return f"static __device__ inline {result} {name}({params}) {{\n{_scalar_body(kind, t)}}}\n"
    kind = PAIR_KINDS[name]
    params = ", ".join(f"const {t.pair} {p}" for p in "abc"[: kind.arity])
    if kind.what in ("cmpu2", "mask", "masku"):
        lanes = (
            f"  const float xl = {t.to_float}({t.low}(a)), yl = {t.to_float}({t.low}(b));\n"
            f"  const float xh = {t.to_float}({t.high}(a)), yh = {t.to_float}({t.high}(b));\n"
        )
        low, high = _lane_test(kind, "xl", "yl"), _lane_test(kind, "xh", "yh")
        if kind.what == "cmpu2":
            one, zero = f"{t.from_float}(1.0f)", f"{t.from_float}(0.0f)"
            body = f"  return {t.make}({low} ? {one} : {zero}, {high} ? {one} : {zero});\n"
            return f"static __device__ inline {t.pair} {name}({params}) {{\n{lanes}{body}}}\n"
        body = f"  return ({low} ? 0xffffu : 0u) | ({high} ? 0xffff0000u : 0u);\n"
        return f"static __device__ inline unsigned int {name}({params}) {{\n{lanes}{body}}}\n"
    lane = f"hipify_py_{name.removeprefix('__')}_{t.scalar.removeprefix('__')}"
    scalar_params = ", ".join(f"const {t.scalar} {p}" for p in "abc"[: kind.arity])
    helper = f"static __device__ inline {t.scalar} {lane}({scalar_params}) {{\n{_scalar_body(kind, t)}}}\n"
    lo = ", ".join(f"{t.low}({p})" for p in "abc"[: kind.arity])
    hi = ", ".join(f"{t.high}({p})" for p in "abc"[: kind.arity])
    pair = (
        f"static __device__ inline {t.pair} {name}({params}) {{\n"
        f"  return {t.make}({lane}({lo}), {lane}({hi}));\n}}\n"
    )
    return helper + pair


def supported(name: str) -> bool:
    return name in SCALAR_KINDS or name in PAIR_KINDS


class Run(NamedTuple):
    name: str
    types: tuple[str, ...]
    since: str | None
    until: str | None


def runs(gaps: Mapping[str, Iterable[str]], order: Sequence[str]) -> list[Run]:
    """Per function, the runs of consecutive probed releases (`order`, oldest first) lacking the same
    types: `gaps` maps a release to its `name(type)` entries. The oldest run has no `since`, the newest
    no `until` (a later release is assumed to be like the newest probed)."""
    lacking: dict[str, dict[str, set[str]]] = {}
    for version in order:
        for case in gaps[version]:
            name, _, type_ = case.partition("(")
            if supported(name):
                lacking.setdefault(name, {}).setdefault(version, set()).add(type_.rstrip(")"))
    found = []
    for name in sorted(lacking):
        per = [tuple(sorted(lacking[name].get(v, ()), key=_type_order)) for v in order]
        start = 0
        for i in range(1, len(order) + 1):
            if i == len(order) or per[i] != per[start]:
                if per[start]:
                    since = order[start] if start else None
                    found.append(Run(name, per[start], since, order[i] if i < len(order) else None))
                start = i
    return found


def _type_order(type_: str) -> int:
    return list(BY_NAME).index(type_)


# the header that declares each type has been included (the helper goes after the file's includes):
# a file with only hip_fp16.h gets no bf16 overload, which would name an unknown type
_DECLARED = {
    HALF.scalar: "defined(HIP_INCLUDE_HIP_HIP_FP16_H) || defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H)",
    BF16.scalar: "defined(HIP_INCLUDE_HIP_HIP_BF16_H)",
}


def code(run: Run) -> str:
    parts = []
    for type_ in run.types:
        parts.append(f"#if {_DECLARED[BY_NAME[type_].scalar]}\n{overload(run.name, type_)}#endif\n")
    return "".join(parts)
