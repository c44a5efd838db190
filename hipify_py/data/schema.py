"""The mapping tables' schema: families, file names, and the record types (Entry, Header, Namespace,
Guard, IncludeNeed, Mappings) every table loader and rule shares. data/mappings.py fills them from YAML."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from hipify_py.data.versions import compare_versions

# Precedence when one CUDA name appears in several families (e.g. CUstream_st: runtime and driver).
FAMILY_ORDER: tuple[str, ...] = (
    "runtime",
    "driver",
    "device",
    "complex",
    "rtc",
    "cublas",
    "curand",
    "cufft",
    "cusparse",
    "cusolver",
    "cub",
    "cudnn",
)
HEADERS_FILE = "headers.yaml"
NAMESPACES_FILE = "namespaces.yaml"
# hand-kept tables of facts beyond names (each row says why and where the fact comes from)
GUARDS_FILE = "guards.yaml"  # CUDA header guard/feature macros -> the macro the HIP header defines
EXTRAS_FILE = "extras.yaml"  # CUDA names real code uses that the reference tables lack
INCLUDE_ORDER_FILE = "include-order.yaml"  # HIP headers that need another HIP header first
# names checked absent in a real install (made by scripts/check_hip_headers.py)
HIP_HEADERS_GLOB = "hip-headers-*.yaml"
CUSTOM_FAMILY = "custom"


class Entry(NamedTuple):
    cuda: str
    hip: str | None
    family: str
    group: str = ""
    roc: str | None = None
    kind: str = ""
    group_status: str = ""
    cuda_added: str = ""
    cuda_deprecated: str = ""
    cuda_changed: str = ""
    cuda_removed: str = ""
    hip_added: str = ""
    hip_deprecated: str = ""
    hip_changed: str = ""
    hip_removed: str = ""
    hip_experimental: str = ""
    roc_added: str = ""
    roc_deprecated: str = ""
    roc_changed: str = ""
    roc_removed: str = ""
    roc_experimental: str = ""
    note: str = ""  # why a hand-kept row (extras.yaml) maps as it does; shown with its findings

    @property
    def supported(self) -> bool:
        return self.hip is not None


class Header(NamedTuple):
    cuda: str
    hip: str | None
    family: str
    legacy: str | None = None
    roc: str | None = None
    note: str = ""
    hip_added: str = ""  # first HIP release shipping the header, when headers.yaml says so
    # CUDA headers this one includes whose declarations the HIP counterpart does not bring along
    # (cublasLt.h includes cublas_api.h; hipblaslt.h only hipblas-common.h): added where they are used
    brings: str = ""  # blank-separated
    # a type header's names in code (a regex): where a library header brings it, it is added on a use
    uses: str = ""


class Namespace(NamedTuple):
    cuda: str
    hip: str | None
    family: str
    note: str = ""


class Guard(NamedTuple):
    """A CUDA header's include guard or feature macro, and the macro its HIP counterpart defines.

    `hip` None: the HIP side defines nothing alike (code under the guard is dropped on ROCm).
    since/until: the HIP versions [since, until) whose header defines `hip` ("" = open).
    """

    cuda: str
    hip: str | None
    roc: str | None = None  # with --roc, where the roc* header defines another macro
    cuda_header: str = ""
    hip_header: str = ""
    since: str = ""
    until: str = ""
    reason: str = ""
    checked: str = ""

    def holds_for(self, version: str | None) -> bool:
        if not version:
            return not self.until
        return (not self.since or compare_versions(version, self.since) >= 0) and (
            not self.until or compare_versions(version, self.until) < 0
        )


class IncludeNeed(NamedTuple):
    """A HIP header that does not compile on its own: `needs` must be included before it."""

    hip: str
    needs: str
    reason: str = ""
    checked: str = ""


class Mappings(NamedTuple):
    by_cuda: Mapping[str, Entry]
    families: Mapping[str, tuple[Entry, ...]]
    libraries: Mapping[str, Mapping[str, str]]
    headers: Mapping[str, Header]
    by_hip: Mapping[str, tuple[Entry, ...]]
    digest: str
    latest_hip_version: str
    namespaces: tuple[Namespace, ...]
    # HIP/ROC name -> highest library version whose installed headers were checked not to declare it,
    # below the first checked version that declares it (not yet added there)
    absent_in: Mapping[str, str]
    # name -> first checked version whose headers lack it after an older checked one declared it (removed
    # by then: hipBLAS 3's `_v2` names in ROCm 7.2, declared in 6.4)
    removed_in: Mapping[str, str]
    # name -> earliest version whose real headers declare it although the tables date it later
    present_in: Mapping[str, str]
    guards: Mapping[str, tuple[Guard, ...]]  # by CUDA macro
    include_needs: Mapping[str, IncludeNeed]  # by HIP header


ENTRY_FIELDS: tuple[str, ...] = Entry._fields
HEADER_FIELDS: tuple[str, ...] = Header._fields
NAMESPACE_FIELDS: tuple[str, ...] = Namespace._fields
GUARD_FIELDS: tuple[str, ...] = Guard._fields
INCLUDE_NEED_FIELDS: tuple[str, ...] = IncludeNeed._fields
