"""Diagnostic type and the rule registry (stable ids, severities, hints, docs)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


@dataclass(frozen=True)
class Rule:
    id: str  # stable, e.g. "HIP201"
    name: str  # short kebab-case name, e.g. "warp-size-literal"
    severity: Severity
    title: str  # one line
    hint: str  # how to fix
    docs: str  # longer explanation for `hipify-py explain`


@dataclass(frozen=True)
class Diagnostic:
    rule: str  # rule id
    severity: Severity
    start: int  # byte offset in the ORIGINAL source
    end: int
    line: int  # 1-based
    col: int  # 1-based, in bytes
    message: str
    hint: str = ""
    source_line: str = ""  # the (decoded) source line, for display


def _rules(*rules: Rule) -> dict[str, Rule]:
    return {r.id: r for r in rules}


# The registry: ids are stable forever (users silence them by id); add, never renumber.
# HIP1xx API support, HIP2xx portability, HIP3xx version macros, HIP4xx build/input.
RULES: Mapping[str, Rule] = MappingProxyType(
    _rules(
        Rule(
            "HIP101",
            "unsupported-api",
            Severity.ERROR,
            "CUDA API with no HIP counterpart",
            "Rewrite this code by hand (see the HIP docs for an alternative) or guard it with "
            "`#ifndef __HIP_PLATFORM_AMD__`.",
            "The mapping tables list this CUDA name but HIP has no counterpart for it, so the name is "
            "left as is and the translated file will not compile on ROCm until it is replaced.",
        ),
        Rule(
            "HIP102",
            "unknown-cuda-api",
            Severity.WARNING,
            "CUDA-looking identifier that is in no mapping table",
            "Check whether this is a CUDA API (then port it by hand) or a name of your own "
            "(then rename it or silence with `// hipify-py: ignore[HIP102]`).",
            "Identifiers that look like CUDA API names (cuda*, cu*, CU*) but are unknown to every "
            "mapping table are likely newer CUDA APIs the tables do not track yet.",
        ),
        Rule(
            "HIP103",
            "hip-version-too-old",
            Severity.WARNING,
            "HIP counterpart is newer than the target HIP version",
            "Raise --hip-version, or keep a CUDA-only path for older ROCm releases.",
            "The HIP counterpart of this CUDA name was added in a HIP release newer than the target "
            "given with --hip-version; the translated code will not compile against the older HIP.",
        ),
        Rule(
            "HIP104",
            "hip-deprecated-or-removed",
            Severity.WARNING,
            "HIP counterpart is deprecated or removed in the target HIP version",
            "Move to the replacement API named in the HIP documentation.",
            "The HIP counterpart exists but is deprecated or removed in the target HIP version.",
        ),
        Rule(
            "HIP105",
            "cuda-deprecated",
            Severity.INFO,
            "CUDA API is deprecated or removed in CUDA itself",
            "Consider moving to the current CUDA API first; its HIP counterpart is usually better supported.",
            "The CUDA name is deprecated or removed in CUDA; HIP may still provide a counterpart.",
        ),
        Rule(
            "HIP106",
            "roc-fallback",
            Severity.INFO,
            "No ROC library counterpart: translated to the hip* wrapper instead",
            "Mixing roc* and hip* calls on one handle does not work; use hip* for this library or "
            "port this call by hand.",
            "With --roc, names are translated to the roc* library (rocBLAS, rocRAND, ...) where the "
            "tables have a counterpart; this one has none, so the hip* wrapper name is used.",
        ),
        Rule(
            "HIP107",
            "experimental-mapping",
            Severity.INFO,
            "HIP counterpart is experimental",
            "Test this call carefully on ROCm; its behaviour may differ from CUDA.",
            "The mapping tables mark this HIP counterpart as experimental.",
        ),
        Rule(
            "HIP110",
            "partial-library",
            Severity.WARNING,
            "Library with no or only a partial HIP/ROCm counterpart",
            "Port the calls of this library by hand; see the note for the closest ROCm library.",
            "Some CUDA libraries (NVTX, NVML, cuTENSOR, cuDNN, NPP, nvJPEG, cuFile) have no HIP "
            "counterpart or one that covers only part of the API; renaming is not enough.",
        ),
        Rule(
            "HIP401",
            "build-construct-not-understood",
            Severity.WARNING,
            "CUDA build construct not understood: left as is",
            "Port this build setting by hand.",
            "The CMake/Makefile translator reports what it does not understand instead of guessing.",
        ),
        Rule(
            "HIP402",
            "nvcc-flag",
            Severity.WARNING,
            "nvcc-only flag dropped or mapped approximately",
            "Check the hipcc/clang equivalent of this flag.",
            "Some nvcc flags have no exact hip-clang equivalent; they are mapped or dropped and reported.",
        ),
        Rule(
            "HIP403",
            "unparsed-launch",
            Severity.WARNING,
            "Kernel launch could not be structured and was left as is",
            "Check the launch by hand; HIP also accepts the <<<>>> syntax.",
            "The parser could not recover the structure of this kernel launch (e.g. it is split "
            "across macros). It was left in triple-chevron form, which hip-clang also accepts.",
        ),
    )
)


def rule_info(rule_id: str) -> Rule:
    return RULES[rule_id]
