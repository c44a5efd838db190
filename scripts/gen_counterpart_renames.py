#!/usr/bin/env python3
"""Generate mappings/version-renames-counterparts.yaml: CUDA runtime/driver names the reference tables
leave without a HIP counterpart although the probed HIP releases declare one under HIP's spelling.

AMD's reference tables (from HIPIFY) lag HIP: `cuFuncSetCacheConfig`, `cudaStreamGetAttribute`,
`cudaErrorInvalidTexture`, `cudaDevAttrMemoryPoolSupportedHandleTypes`... are marked unsupported while
hip_runtime_api.h declares `hipFuncSetCacheConfig`, `hipStreamGetAttribute`... A row is written for every
runtime/driver name of the tables without a HIP name whose HIP spelling

    cudaX -> hipX, cudaDevAttrX -> hipDeviceAttributeX, cuX (driver function) -> hipDrvX or else hipX,
    CU_X -> HIP_X

is declared by the preprocessed hip/hip_runtime.h of a probed release, or defined there as a macro
(mappings/hip-identifiers-<v>.yaml `identifiers` and `macros`, scripts/probe_hip_identifiers.py).
It holds from the oldest probed release that declares it, while every later one does. A spelling
alone does not prove the same signature: the names in NOT_COUNTERPARTS were read in both APIs and
differ (the reason is kept here); names the hand-kept version-renames.yaml decides are left to it.

    gen_counterpart_renames.py [--out FILE] [--check]

Deterministic; `--check` (run by the tests) guards the committed file.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

from probe_common import write_or_check  # noqa: E402

from hipify_py.data.mappings import compare_versions, hand_kept_dir, load_mappings, probed_dir  # noqa: E402
from hipify_py.data.renames import TABLE_NAME, _build_table  # noqa: E402

DEFAULT_OUT = REPO / "mappings" / "generated" / "version-renames-counterparts.yaml"
FAMILIES = ("runtime", "driver")
# Spelled alike, not the same API: CUDA's declaration (cuda.h / cuda_runtime_api.h, CUDA 12) vs HIP's.
NOT_COUNTERPARTS = {
    "cuMemcpy": "cuMemcpy(dst, src, bytes) (unified addressing); hipMemcpy also takes a hipMemcpyKind",
    "cuMemcpyAsync": "cuMemcpyAsync(dst, src, bytes, stream); hipMemcpyAsync also takes a hipMemcpyKind",
    "cuMemcpyPeer": "cuMemcpyPeer takes contexts; hipMemcpyPeer device ordinals (cudaMemcpyPeer's form)",
    "cuMemcpyPeerAsync": "cuMemcpyPeerAsync takes contexts; hipMemcpyPeerAsync device ordinals",
    "cuMemcpy3DPeer": "cuMemcpy3DPeer takes a CUDA_MEMCPY3D_PEER; hipMemcpy3DPeer a hipMemcpy3DPeerParms",
    "cuMemcpy3DPeerAsync": "CUDA_MEMCPY3D_PEER vs hipMemcpy3DPeerParms (cudaMemcpy3DPeerAsync's form)",
    "cuDeviceGetTexture1DLinearMaxWidth": "(format, channels, CUdevice) vs HIP's "
    "(hipChannelFormatDesc*, int)",
    "cuFuncSetAttribute": "takes a CUfunction_attribute (-> hipFunction_attribute); hipFuncSetAttribute a "
    "hipFuncAttribute",
    "CUDA_POINTER_ATTRIBUTE_ACCESS_FLAGS": "a CUDA enum type; HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS is an "
    "enumerator of hipPointer_attribute",
    "CUDA_POINTER_ATTRIBUTE_P2P_TOKENS": "a CUDA struct type; HIP_POINTER_ATTRIBUTE_P2P_TOKENS is an "
    "enumerator",
}
_DRIVER_FUNCTION = re.compile(r"cu[A-Z]")


def probed_identifiers(directory: Path) -> dict[str, frozenset[str]]:
    """HIP version -> identifiers of its preprocessed hip_runtime.h and the HIP macros it defines (the
    committed probe tables)."""
    found = {}
    for path in sorted(directory.glob("hip-identifiers-*.yaml")):
        doc = yaml.safe_load(path.read_text())
        words = f"{doc.get('identifiers') or ''} {doc.get('macros') or ''}"
        found[str(doc["hip_version"])] = frozenset(words.split())
    return dict(sorted(found.items(), key=lambda kv: tuple(int(x) for x in kv[0].split("."))))


def hip_spellings(cuda: str) -> list[str]:
    if cuda.startswith("cudaDevAttr"):
        return ["hipDeviceAttribute" + cuda.removeprefix("cudaDevAttr")]
    if cuda.startswith("cuda"):
        return ["hip" + cuda.removeprefix("cuda")]
    if _DRIVER_FUNCTION.match(cuda):
        return ["hipDrv" + cuda[2:], "hip" + cuda[2:]]
    if cuda.startswith("CU_"):
        return ["HIP_" + cuda.removeprefix("CU_")]
    if cuda.startswith("CUDA_"):
        return ["HIP_" + cuda.removeprefix("CUDA_")]
    return []


def since_of(hip: str, declared: dict[str, frozenset[str]]) -> str | None:
    """The oldest probed release from which every probed release declares `hip`, or None."""
    since = None
    for version, names in declared.items():
        since = (since or version) if hip in names else None
    return since


def rows(declared: dict[str, frozenset[str]]) -> list[tuple[str, str, str]]:
    """(CUDA name, HIP name, since) for the runtime/driver rows without a HIP name."""
    hand_kept = {r.cuda for r in _build_table(hand_kept_dir() / TABLE_NAME)[0]}
    found = []
    for cuda, entry in sorted(load_mappings().by_cuda.items()):
        if entry.hip or entry.family not in FAMILIES or cuda in hand_kept or cuda in NOT_COUNTERPARTS:
            continue
        for hip in hip_spellings(cuda):
            since = since_of(hip, declared)
            if since is not None:
                found.append((cuda, hip, since))
                break
    return found


def render(found: list[tuple[str, str, str]], versions: list[str]) -> str:
    probed = ", ".join(versions)
    head = f"""# GENERATED by scripts/gen_counterpart_renames.py - do not edit. Read with version-renames.yaml
# (same schema; data/renames.py). CUDA runtime/driver names AMD's reference tables leave without a HIP
# counterpart that HIP declares under its own spelling (cudaX -> hipX, cudaDevAttrX ->
# hipDeviceAttributeX, cuX -> hipDrvX / hipX, CU_X -> HIP_X), from the oldest probed release that
# declares it or defines it as a macro (probed: {probed}; mappings/hip-identifiers-<version>.yaml).
# Names spelled alike whose signatures differ are listed, with why, in the script.

sources:
  counterpart: "declared or defined as a macro by hip/hip_runtime.h of the probed releases \
(scripts/gen_counterpart_renames.py)"

names:
"""
    row = '- {{cuda: {}, hip: {}, since: "{}", source: counterpart}}\n'
    body = "".join(row.format(cuda, hip, since) for cuda, hip, since in found)
    return head + body


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="exit 1 when --out differs from a fresh generation")
    args = ap.parse_args(argv)
    declared = probed_identifiers(probed_dir())
    if not declared or any(compare_versions(v, "5.0") < 0 for v in declared):
        raise SystemExit("no probed HIP identifier tables (scripts/probe_hip_identifiers.py)")
    text = render(rows(declared), list(declared))
    return write_or_check(
        args.out, text, args.check, "gen_counterpart_renames", f"{text.count(chr(10) + '- ')} rows"
    )


if __name__ == "__main__":
    sys.exit(main())
