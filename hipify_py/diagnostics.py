"""Diagnostic type and the rule registry (stable ids, severities, hints, docs)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum


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
