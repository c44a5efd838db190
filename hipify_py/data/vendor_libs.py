"""RCCL, ROCm SMI and roctx facts per target: what NCCL, NVML and NVTX code finds on AMD (HIP140-142).

Three tables: mappings/generated/nccl-api.yaml (the NCCL API, the NCCL release of each name; generated
by scripts/gen_nccl_api.py from NVIDIA/nccl's header at every release tag), mappings/hand-kept/nvml-rsmi.yaml
(each NVML name's ROCm SMI counterparts and what differs), and mappings/probed/vendor-libs-<HIP version>.yaml
(probed by scripts/probe_vendor_libs.py: whether each library is installed or packaged for the release,
and which of those names it lacks).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from hipify_py.data import derived
from hipify_py.data.target import short_version
from hipify_py.data.versions import read_versioned
from hipify_py.util.locations import generated_dir, hand_kept_dir, probed_dir

PREFIX = "vendor-libs-"
NCCL_API_FILE = "nccl-api.yaml"
NVML_FILE = "nvml-rsmi.yaml"


class Library(NamedTuple):
    """One ROCm library as a probed release has it."""

    name: str  # rccl, rocm_smi, roctx
    header: str
    installed: bool  # its header was beside the release's hipcc where the table was probed
    packaged: bool  # Debian has an installable package of it for the release
    package: str  # the package probed, or why there is none
    version: str  # its own version (RCCL: the NCCL API it follows), when its header says
    lacks: frozenset[str]  # names the tables rely on that its header does not declare
    release: str  # the HIP version the table was probed for
    unusable: frozenset[str] = frozenset()  # its other headers that do not compile as packaged


class NvmlRow(NamedTuple):
    rsmi: tuple[str, ...]  # counterparts, preferred first
    exact: bool  # renamed (extras.yaml), not reported
    differs: str


class VendorFacts(NamedTuple):
    libraries: Mapping[str, Library]  # by the CUDA family it stands for: nccl, nvml, nvtx
    nccl_added: Mapping[str, str]  # NCCL name -> the NCCL release that added it
    nvml: Mapping[str, NvmlRow]


@functools.lru_cache(maxsize=8)
def load_facts(hip_version: str | None = None, directory: Path | None = None) -> VendorFacts:
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("vendor-libs", _build, hip_version)
    return _build(hip_version, directory)


def _build(hip_version: str | None, directory: Path | None = None) -> VendorFacts:
    import yaml  # why here: a warm run served from the derived cache never parses YAML

    # why one folder when given: a test's tables lie side by side; the shipped ones are sorted by kind
    if directory is not None:
        probed = generated = hand_kept = directory
    else:
        probed, generated, hand_kept = probed_dir(), generated_dir(), hand_kept_dir()
    release, data = read_versioned(probed, PREFIX, hip_version)
    libraries = {
        str(row["family"]): _library(name, row, release)
        for name, row in (data.get("libraries") or {}).items()
    }
    api = yaml.safe_load((generated / NCCL_API_FILE).read_text()) or {}
    nccl_added = {str(r["name"]): str(r["added"]) for r in api.get("names") or () if "removed" not in r}
    table = yaml.safe_load((hand_kept / NVML_FILE).read_text()) or {}
    nvml = {
        str(r["nvml"]): NvmlRow(tuple(r.get("rsmi") or ()), bool(r.get("exact")), str(r.get("differs") or ""))
        for r in table.get("nvml") or ()
    }
    return VendorFacts(libraries, nccl_added, nvml)


def _library(name: str, row: Mapping[str, Any], release: str) -> Library:
    return Library(
        name,
        str(row["header"]),
        bool(row.get("installed")),
        bool(row.get("packaged")),
        str(row.get("package") or ""),
        str(row.get("version") or ""),
        frozenset(str(n) for n in row.get("lacks") or ()),
        release,
        frozenset(str(h) for h in row.get("unusable") or ()),
    )


def probed_for(library: Library, hip_version: str | None) -> bool:
    """The table was probed for the target release itself (not the nearest older one): only then does
    its packaging fact speak for the target."""
    return bool(hip_version) and short_version(hip_version or "") == library.release
