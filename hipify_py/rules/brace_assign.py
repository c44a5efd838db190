"""`x = {...}` on CUDA value types whose HIP counterparts reject the braced list.

HIP's __half/__half2 declare several `operator=` overloads, so `h2 = {};` (nvcc: zero) is ambiguous on
ROCm; HIP's vector types are classes, so `f1 = {1}` on a float1 has no matching operator=.
mappings/brace-assign-<HIP version>.yaml (scripts/probe_brace_assign.py: nvcc and hipcc, and a host
run comparing the bytes each sets) lists per type the element counts where `x = T{...}` means what
CUDA meant: those assignments get the type name before the braces. The counts where it does not
(CUDA zero-fills `float4 v; v = {1}`, HIP's float4{1} broadcasts) are reported (HIP130).

The type comes only from what the file declares (hipify_py/analysis/declared.py: a local, a parameter, a
file-level variable, a member of a struct defined in the file, typedefs resolved): an assignment
whose target type cannot be found is left alone, never guessed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from hipify_py.analysis.context import Context
from hipify_py.analysis.declared import declared_type, member_type
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node, ancestors
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

PREFIX = "brace-assign-"
# `=` first and the operator check behind it (== `(?<![=!<>+\-*/%&|^])=`): a pattern that starts with a
# literal gets the regex engine's fast search for it, one with a lookbehind is tried at every byte
_ASSIGN = lazy(rb"=(?<![=!<>+\-*/%&|^]=)\s*\{")


class TypeFacts(NamedTuple):
    hip: bytes  # HIP's name of the type
    rewrite: frozenset[int]  # element counts where `x = hip{...}` is CUDA's meaning
    unresolved: frozenset[int]  # element counts HIP rejects and `hip{...}` would change


@functools.lru_cache(maxsize=8)
def load_facts(hip_version: str | None = None, directory: Path | None = None) -> Mapping[bytes, TypeFacts]:
    """Type name (CUDA's and HIP's spelling) -> its facts."""
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("brace-assign", _build_facts, hip_version)
    return _build_facts(hip_version, directory)


def _build_facts(hip_version: str | None, directory: Path | None = None) -> Mapping[bytes, TypeFacts]:
    _, data = read_versioned(directory or probed_dir(), PREFIX, hip_version)
    facts: dict[bytes, TypeFacts] = {}
    for row in data.get("types") or ():
        fact = TypeFacts(row["hip"].encode(), frozenset(row["rewrite"]), frozenset(row["unresolved"]))
        facts[row["cuda"].encode()] = fact
        facts.setdefault(fact.hip, fact)
    return facts


def fix_brace_assignments(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"{" not in ctx.source:
        return result
    facts = load_facts(ctx.options.hip_version)
    if not facts or ctx.identifiers.isdisjoint(facts):
        return result  # the declared type is spelled in the file or not known at all
    dead = ctx.branches.dead
    for m in _ASSIGN.finditer(ctx.source):
        eq, brace = m.start(), m.end() - 1
        if ctx.is_protected(eq) or any(a <= eq < b for a, b in dead):
            continue  # why dead: code hipcc never compiles (pixeltrack's `#ifndef __CUDACC__` emulation)
        node = ctx.root.descendant_for_byte_range(eq, eq + 1)
        assignment = node.parent if node is not None else None
        if assignment is None or assignment.type != "assignment_expression" or assignment.has_error:
            continue
        left = assignment.child_by_field_name("left")
        right = assignment.child_by_field_name("right")
        if left is None or right is None or right.type != "initializer_list" or right.start_byte != brace:
            continue
        elements = [c for c in right.named_children if c.type != "comment"]
        if any(c.type in ("initializer_list", "initializer_pair") for c in elements):
            continue
        found = _target_type(ctx.source, left, ctx.root)
        fact = facts.get(found) if found is not None else None
        if fact is None or _defined_here(ctx.source, found):
            continue
        count = len(elements)
        if count in fact.rewrite:
            result.edits.append(Edit(brace, brace, fact.hip))
            result.counts["brace_assignments"] += 1
        elif count in fact.unresolved:
            text = ctx.source[assignment.start_byte : assignment.end_byte].decode("utf-8", "replace")
            result.diagnostics.append(
                ctx.diag(
                    "HIP130",
                    assignment.start_byte,
                    assignment.end_byte,
                    f"`{' '.join(text.split())}`: HIP's {fact.hip.decode()} has no assignment from a braced "
                    f"list of {count} element(s), and {fact.hip.decode()}{{...}} is not known to mean the "
                    "same (CUDA's list sets the members in order and zero-fills the rest; HIP's "
                    "constructors may broadcast or convert)",
                )
            )
    return result


def _defined_here(source: bytes, name: bytes) -> bool:
    """The file defines a type of that name itself (`namespace compat { struct dim3 {...}; }`): the
    user's, not CUDA's."""
    pattern = rb"\b(?:struct|class|union)\s+" + re.escape(name) + rb"\s*(?:final\s*)?[:{]"
    return re.search(pattern, source) is not None


def _target_type(source: bytes, left: Node, root: Node) -> bytes | None:
    """The declared type of an assignment's target: `x`, `s.m` (s of a struct defined in the file),
    `this->m` / `m` inside a member function defined in its class."""
    if left.type == "identifier":
        return declared_type(source, left)
    if left.type != "field_expression":
        return None
    owner = left.child_by_field_name("argument")
    field = left.child_by_field_name("field")
    operator = left.child_by_field_name("operator")
    if owner is None or field is None or operator is None:
        return None
    name = source[field.start_byte : field.end_byte]
    if operator.type == "." and owner.type == "identifier":
        struct = declared_type(source, owner)
        return member_type(source, struct, name, root) if struct is not None else None
    if operator.type == "->" and owner.type == "this":
        for scope in ancestors(left):
            if scope.type == "field_declaration_list":
                owner_type = scope.parent.child_by_field_name("name") if scope.parent is not None else None
                if owner_type is None:
                    return None
                return member_type(source, source[owner_type.start_byte : owner_type.end_byte], name, root)
    return None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={90: fix_brace_assignments},
    texts=(
        Rule(
            "HIP130",
            "braced-assignment",
            Severity.ERROR,
            "Braced-list assignment HIP's type does not accept",
            "Write every member (`v = float4{1, 0, 0, 0}` for CUDA's `v = {1}`) or assign the members.",
            "CUDA's vector and half types are aggregates (or take the list through one constructor), so `v "
            "= {1}` sets v.x and zero-fills the rest. HIP's types are classes with several constructors and "
            "operator= overloads: the assignment does not compile, and `float4{1}` would broadcast 1 to "
            "every member. Where `T{...}` means what CUDA meant (scripts/probe_brace_assign.py runs both on "
            "the host) the tool writes it; this finding is the forms where it does not.",
        ),
    ),
    loads=(load_facts,),
    fixtures=("cxx/brace_assign*",),
)
