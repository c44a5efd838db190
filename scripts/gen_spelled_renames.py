#!/usr/bin/env python3
"""Generate mappings/version-renames-spelled.yaml: CUDA names the reference tables give no HIP
counterpart that the probed ROCm releases declare under HIP's spelling.

AMD's reference tables (from HIPIFY) mark CUDA's FP8 API (`__nv_fp8_e4m3`, `__NV_SATFINITE`,
`__nv_cvt_float_to_fp8`, ...) and some bf16 names as unsupported, but ROCm's hip_fp8.h / hip_bf16.h
declare them as `__hip_fp8_e4m3`, `__HIP_SATFINITE`, `__hip_cvt_float_to_fp8`, and hip_bf16.h declares
`__halves2bfloat162`, `__low2bfloat16`... as CUDA spells them. A row is written for every CUDA name the
tables leave without a HIP name whose HIP spelling (`__nv_` -> `__hip_`, `__NV_` -> `__HIP_`, or for a
`__` device function the same name) is declared by the HIP headers (`<prefix>/include/hip/`) of EVERY
prefix given; it holds from the oldest of their versions. Names the hand-kept version-renames.yaml or
the warp-builtin adaptations (version-adaptations.yaml) already decide are left to them.

    gen_spelled_renames.py --prefix PREFIX [--prefix PREFIX ...] [--out FILE] [--check]

PREFIXes are installations (e.g. the ones scripts/provision_rocm.py makes); deterministic, so
`--check` (run by the tests) guards the file.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import write_or_check  # noqa: E402

from hipify_py.data.mappings import compare_versions, hand_kept_dir, load_mappings  # noqa: E402
from hipify_py.data.renames import TABLE_NAME, _build_table  # noqa: E402
from hipify_py.data.target import parse_version_header, short_version  # noqa: E402

DEFAULT_OUT = REPO / "mappings" / "generated" / "version-renames-spelled.yaml"
_WORD = re.compile(rb"\b[A-Za-z_]\w*\b")
_FUNCTION = re.compile(rb"[\w>*&][ \t]+([A-Za-z_]\w*)[ \t]*\(")
# CUDA_R_8F_E4M3 -> HIP_R_8F_E4M3: library data types (cudaDataType/hipDataType enumerators, the same
# formats and values); only those, as other CUDA_ names (CUDA_VERSION) are not HIP_ ones
_SPELLINGS = (
    (re.compile(r"^__nv_"), "__hip_"),
    (re.compile(r"^__NV_"), "__HIP_"),
    (re.compile(r"^CUDA_(?=[RC]_\d)"), "HIP_"),
)


def declared(prefix: Path) -> frozenset[str]:
    """Every identifier in the HIP headers of an installation prefix, and as `NAME(` every name declared
    as a function there (a type, then the name and a parenthesis: `__half2 make_half2(`), for the plain
    names a word alone would not prove (`saturate` is only a parameter name in them)."""
    folder = prefix / "include" / "hip"
    words: set[bytes] = set()
    for header in sorted(folder.rglob("*.h")):
        text = header.read_bytes()
        words.update(_WORD.findall(text))
        words.update(m + b"(" for m in _FUNCTION.findall(text))
    return frozenset(w.decode() for w in words)


def version_of(prefix: Path) -> tuple[str, str]:
    """(major.minor, full) of an installation's hip/hip_version.h."""
    full = parse_version_header((prefix / "include" / "hip" / "hip_version.h").read_bytes())
    if full is None:
        raise SystemExit(f"no HIP version under {prefix}")
    return short_version(full), full


def hip_spellings(cuda: str, family: str) -> list[str]:
    """HIP's spellings to look for: the HIP prefix, and for device functions the CUDA name itself
    (hip_bf16.h declares __halves2bfloat162, __low2bfloat16... as CUDA spells them; amd_hip_fp16.h
    `make_half2`, which a plain name must show as a declared function: `make_half2(`)."""
    found = [pattern.sub(replacement, cuda) for pattern, replacement in _SPELLINGS if pattern.match(cuda)]
    if family != "device":
        return found
    return [*found, cuda if cuda.startswith("__") else cuda + "("]


def rows(declared_by: list[tuple[str, frozenset[str]]]) -> list[tuple[str, str, str]]:
    """(CUDA name, HIP name, since) for the table rows without a HIP name whose HIP spelling the newest
    release declares: since the oldest release from which every later one declares it too."""
    from hipify_py.data.adaptations import load_table as load_adaptations

    hand_kept = {r.cuda for r in _build_table(hand_kept_dir() / TABLE_NAME)[0]}
    hand_kept |= {r.cuda for r in load_adaptations()}  # warp builtins: adapted per target
    found = []
    for cuda, entry in sorted(load_mappings().by_cuda.items()):
        if entry.hip or cuda in hand_kept:
            continue
        for hip in hip_spellings(cuda, entry.family):
            since = _since(hip, declared_by)
            if since is not None:
                found.append((cuda, hip.removesuffix("("), since))
                break
    return found


def _since(name: str, declared_by: list[tuple[str, frozenset[str]]]) -> str | None:
    """The oldest version of the unbroken run of releases, up to the newest, that declare `name`."""
    since = None
    for version, names in reversed(declared_by):  # newest first
        if name not in names:
            break
        since = version
    return since


def render(found: list[tuple[str, str, str]], versions: list[tuple[str, str]]) -> str:
    probed = ", ".join(full for _, full in versions)
    head = f"""# GENERATED by scripts/gen_spelled_renames.py - do not edit. Read with version-renames.yaml
# (same schema; data/renames.py). CUDA names AMD's reference tables leave without a HIP counterpart that
# ROCm declares under HIP's spelling (__nv_ -> __hip_, __NV_ -> __HIP_, CUDA_R_ -> HIP_R_) or CUDA's own
# (device functions): the FP8 API of hip_fp8.h, bf16 raw types and bf16 functions, the FP8 and integer data
# types. Probed: the HIP headers of {probed}.
# A row holds from the oldest of them from which every later one declares its HIP name.

sources:
  spelled: "declared by hip/*.h of HIP {probed} (scripts/gen_spelled_renames.py)"

names:
"""
    body = "".join(
        f'- {{cuda: {cuda}, hip: {hip}, since: "{since}", source: spelled}}\n' for cuda, hip, since in found
    )
    return head + body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--prefix", type=Path, action="append", required=True, help="a HIP installation")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 when --out differs from a fresh generation")
    args = ap.parse_args(argv)
    versions = sorted((version_of(p) for p in args.prefix), key=lambda v: v[1])
    if any(compare_versions(v, "6.0") < 0 for v, _ in versions):
        raise SystemExit("give ROCm 6+ installations (older HIP has no hip_fp8.h)")
    by_version = sorted(((version_of(p), declared(p)) for p in args.prefix), key=lambda v: v[0][1])
    text = render(rows([(v[0], names) for v, names in by_version]), versions)
    return write_or_check(
        args.out, text, args.check, "gen_spelled_renames", f"{text.count(chr(10) + '- ')} rows"
    )


if __name__ == "__main__":
    sys.exit(main())
