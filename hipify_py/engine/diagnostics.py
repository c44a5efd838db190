"""Finding types: Severity, Rule, Diagnostic (the registry of rule texts: rule_texts.py)."""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Severity(IntEnum):
    INFO = 1
    WARNING = 2
    ERROR = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


class Rule(NamedTuple):
    id: str  # stable, e.g. "HIP201"
    name: str  # short kebab-case name, e.g. "warp-size-literal"
    severity: Severity
    title: str  # one line
    hint: str  # how to fix
    docs: str  # longer explanation for `hipify-py explain`


class Diagnostic(NamedTuple):
    rule: str  # rule id
    severity: Severity
    start: int  # byte offset in the ORIGINAL source
    end: int
    line: int  # 1-based
    col: int  # 1-based, in bytes
    message: str
    hint: str = ""
    source_line: str = ""  # the (decoded) source line, for display
    predicted_by: tuple[str, ...] = ()  # compile errors (HIP5xx): static findings of other rules on the line
    # error findings in code compiled only when these option macros are defined (`#ifdef PTX`): the run
    # settles the severity once it knows what the project defines (option_macros.py)
    requires: tuple[str, ...] = ()
