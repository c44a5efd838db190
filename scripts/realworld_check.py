#!/usr/bin/env python3
"""Check the translator on a directory of real CUDA code (no network, nothing written to the tree).

Every source file is translated in-process with hipify_py.pipeline.translate.translate and checked for:

  internal     translate() raised
  idempotence  translate(translate(x)) != translate(x)
  literals     the sequence of comment / string-literal tokens changed (include paths excepted)
  outside      a changed region is not explained by an edit kind the translator makes: CUDA -> HIP
               identifier renames, include lines, launch punctuation, HIP_SYMBOL(...) wrapping

Optional:
  --torch      torch's identifier pass (the regex torch.utils.hipify.hipify_python.preprocessor applies)
               on the same files; identifiers one tool rewrote and the other did not, by name
  --compile N  up to N translated files that include only system/HIP headers are compiled with
               `HIP_PLATFORM=amd hipcc --offload-arch=gfx90a -fsyntax-only`; failures by first error

Usage: python3 scripts/realworld_check.py DIR... [--torch] [--compile N] [--json FILE]
Exit status: 1 if any check found a problem (internal/idempotence/literals/outside), else 0.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hipify_py.data.tables import Tables
from hipify_py.engine import lexer
from hipify_py.engine.options import Options
from hipify_py.engine.source import UTF8_BOM
from hipify_py.pipeline.translate import default_tables, translate
from hipify_py.rules.pasted_prefixes import HIP_PREFIXES
from hipify_py.run.discover import SKIP_DIRS, SOURCE_EXTENSIONS

CHECKS = ("internal", "idempotence", "literals", "outside")
Translator = Callable[[bytes, Options], bytes]


@dataclass(frozen=True)
class Problem:
    check: str
    path: str
    detail: str


@dataclass
class Summary:
    files: int = 0
    lines: int = 0
    changed: int = 0
    problems: list[Problem] = field(default_factory=list)
    # identifier -> number of occurrences rewritten only by torch / only by hipify-py
    torch_only: Counter[str] = field(default_factory=Counter)
    ours_only: Counter[str] = field(default_factory=Counter)
    torch_example: dict[str, str] = field(default_factory=dict)
    compile_candidates: int = 0  # translated files whose every include resolves
    compile_results: Counter[str] = field(default_factory=Counter)  # first error (or "ok") -> files
    compile_examples: dict[str, str] = field(default_factory=dict)


def source_files(roots: Iterable[Path], suffixes: tuple[str, ...]) -> Iterator[Path]:
    for root in roots:
        if root.is_file():
            yield root
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(files):
                if name.endswith(suffixes):
                    yield Path(folder, name)


def default_translator(source: bytes, options: Options) -> bytes:
    return translate(source, options).text


# -- literals: comments and string literals must come out unchanged ----------------------------
_INCLUDE_BEFORE = re.compile(rb"#[ \t]*include[ \t]*\Z")
# a header named by a macro that a computed include expands (rules/include_macros.py)
_DEFINE_BEFORE = re.compile(rb"#[ \t]*define[ \t]+\w+[ \t]+\Z")
_HEADER_STRING = re.compile(rb'"[^"\n]+\.(?:h|hpp|hxx|cuh|inl)"\Z')


def literal_tokens(text: bytes) -> list[bytes]:
    """Comment and string/char literal tokens, in order, without `#include "path"` operands."""
    tokens = []
    for start, end in lexer.skipped_spans(text):
        line_start = text.rfind(b"\n", 0, start) + 1
        if _INCLUDE_BEFORE.search(text, line_start, start) and text[start : start + 1] == b'"':
            continue
        if _DEFINE_BEFORE.search(text, line_start, start) and _HEADER_STRING.match(text[start:end]):
            continue
        tokens.append(text[start:end])
    return tokens


def check_literals(before: bytes, after: bytes) -> str | None:
    old, new = literal_tokens(before), literal_tokens(after)
    if old == new:
        return None
    for a, b in zip(old, new, strict=False):
        if a != b:
            return f"{_short(a)} -> {_short(b)}"
    return f"{len(old)} literal/comment tokens -> {len(new)}"


# -- outside: every change must be an edit kind the translator makes --------------------------
_HUNK_TOKEN = re.compile(
    rb"//[^\n]*|/\*.*?(?:\*/|\Z)|\"(?:\\.|[^\"\\\n])*\"?|<<<|>>>|[A-Za-z_]\w*|\d[\w.']*|\\\r?\n|\s+|.",
    re.DOTALL,
)
_INCLUDE_LINE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\n]+)[>"]')
_HEADER_DEFINE = re.compile(rb'^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+[<"]([^>"\n]+)[>"]')
# nvcc's launch brackets may be split by blanks, comments and continuations (`k << < g, b >> > (x)`)
_GAP = rb"(?:[ \t\r\n\f\v]|\\\r?\n|/\*.*?\*/|//[^\n]*)*"
_SPLIT_BRACKETS = re.compile(rb"<" + _GAP + rb"<" + _GAP + rb"<|>" + _GAP + rb">" + _GAP + rb">", re.DOTALL)
_CLOSING_BRACKETS = re.compile(rb">" + _GAP + rb">" + _GAP + rb">", re.DOTALL)
_KEPT_IN_BRACKETS = re.compile(rb"/\*.*?\*/|//[^\n]*", re.DOTALL)
# (a braced grid or block, `<<<{x, y}, ...>>>`, becomes `dim3(x, y)`: rules/launch.py)
_LAUNCH_TOKENS = frozenset(
    {b"<<<", b">>>", b"hipLaunchKernelGGL", b"dim3", b"(", b")", b",", b"0", b"{", b"}"}
)
_SYMBOL_TOKENS = frozenset({b"HIP_SYMBOL", b"(", b")"})
# a cache-hint call the target lacks goes to the helper hipify-py writes (rules/cache_hints.py)
_CACHE_HINT_HELPER = re.compile(rb"(?<![\w$])hipify_py_(?=(?:ld|st)(?:g|cg|ca|cs|lu|cv|wb|wt)\b)")
# the storage class clang rejects in C++17 (rules/cxx.py drops it with the blanks after it)
# `register` dropped (C++17), also where it ends a line (`#define REGISTER register`)
_REGISTER = re.compile(rb"(?<![\w$])register(?:[ \t]+(?!\w+\s+\w+\s*(?:asm|__asm__)\b)|(?=[ \t]*\r?$))", re.M)
# `::template f<` (rules/template_keyword.py inserts the keyword before a dependent member template)
_TEMPLATE_KEYWORD = re.compile(rb"::[ \t]*template[ \t]+(?=[A-Za-z_]\w*[ \t]*<)")
# `min(a, b)` of a mixed-sign pair written `std::min<U>(a, b)` (rules/mixed_minmax.py)
# `auto z = (double (*)[n2][n1])p` (HIP228), compared as the declaration it was
_VLA_AUTO = re.compile(
    rb"\bauto[ \t]+(\w+)[ \t]*=[ \t]*\([ \t]*([^()\n]*?)[ \t]*\([ \t]*\*[ \t]*\)"
    rb"((?:[ \t]*\[[^\]\n;]+\])+)[ \t]*\)"
)
_POINTER_PARENS = re.compile(rb"[ \t]*\([ \t]*\*[ \t]*(\w*)[ \t]*\)")
_FP_LIMITS = re.compile(rb"\bhipify_py_FpLimits(?=[ \t]*<)")
_STD_MIN_MAX = re.compile(rb"(?<![\w$])std::(min|max)<[\w ]+>(?=[ \t]*\()")
# cudaPointerAttributes' member as the target spells it (rules/pointer_attributes.py: memoryType or type)
_MEMORY_TYPE = re.compile(rb"(\.|->)([ \t]*)memoryType\b")
_GUARD_LINE = re.compile(rb"^#if !defined\(__HIP_PLATFORM_AMD__\)[ \t]*\r?\n", re.MULTILINE)
# the runtime header put before a user macro that would rewrite it (rules/macro_order.py)
_RUNTIME_FIRST = re.compile(
    rb"^#if defined\(__HIPCC__\) \|\| defined\(__HIP_PLATFORM_AMD__\)\r?\n#include <hip/hip_runtime\.h>\r?\n"
    rb"#endif\r?\n",
    re.MULTILINE,
)
# `#define M(val) cuda##val`: rules/pasted_prefixes.py writes a use HIP spells otherwise out in full
_PURE_PASTE = re.compile(
    rb"^[ \t]*#[ \t]*define[ \t]+(\w+)\([ \t]*(\w+)[ \t]*\)[ \t]*(\w+?)[ \t]*##[ \t]*\2[ \t]*$", re.M
)
# a CUDA prefix pasted in a macro body (`CU##stub`) and the HIP one rules/pasted_prefixes.py writes
# (`cuda##` is compared by _paste_prefixes below, use by use)
_PASTED_PREFIXES = {k: v for k, v in HIP_PREFIXES.items() if k != b"cuda"}
_PASTED_PREFIX = re.compile(
    rb"(?<![\w$])(" + b"|".join(sorted(_PASTED_PREFIXES, key=len, reverse=True)) + rb")(?=[ \t]*##)"
)
_DEFINE_LINE = re.compile(rb"^[ \t]*#[ \t]*define\b[^\n]*", re.M)
_PP_OPEN = re.compile(rb"^[ \t]*#[ \t]*if(?:n?def)?\b")
_PP_CLOSE = re.compile(rb"^[ \t]*#[ \t]*endif\b")


@dataclass(frozen=True)
class Canon:
    """What a CUDA name and its HIP replacement have in common: both map to the HIP name."""

    names: dict[bytes, tuple[bytes, ...]]  # tokens: a target may be `void*`
    headers: frozenset[bytes]  # CUDA header paths and their HIP targets
    adapted: frozenset[bytes] = frozenset()  # CUDA calls whose arguments rules/calls.py may change
    adaptation_tokens: frozenset[bytes] = frozenset()  # what those changes write (casts, values, names)
    header_prefixes: tuple[bytes, ...] = ()  # folders every header of which has a counterpart (cub/)

    def known_header(self, path: bytes) -> bool:
        return path in self.headers or path.startswith(self.header_prefixes)

    @classmethod
    def of(cls, tables: Tables) -> Canon:
        names = {}
        for cuda, entry in tables.names.items():
            target = entry.hip or entry.roc
            if entry.hip == "":  # dropped names (CUDART_CB), with the blanks after them
                names[cuda] = ()
            elif target:
                names[cuda] = tuple(_HUNK_TOKEN.findall(target.encode()))
        for ns, target in tables.cuda_namespaces.items():
            names[ns] = (target,)
        for child, rows in tables.nested_namespaces.items():  # thrust::cuda -> thrust::hip
            for _, target in rows:
                names[child] = names[target] = (target,)
        for guard, rows in tables.mappings.guards.items():  # header guards in #if conditions
            hip = next((t for row in rows for t in (row.hip, row.roc) if t), None)
            if hip:
                names[guard.encode()] = (hip.encode(),)
                for t in {t for row in rows for t in (row.hip, row.roc) if t}:
                    names[t.encode()] = (hip.encode(),)
        names[b"__NVCC__"] = (b"__HIPCC__",)  # rules/nvcc_guards.py: a test around GPU code (HIP137)
        from hipify_py.data.detector_data import FUNCTION_VALUES  # rules/function_values.py (HIP161)

        for cuda, hip in FUNCTION_VALUES.items():
            names[hip] = names.get(cuda, (hip,))
        names.update(_pasted_suffixes(tables, names))
        # version-dependent renames (data/renames.py): every range's HIP name compares as the CUDA name
        from hipify_py.data.renames import load_table as load_renames

        rename_names, rename_headers = load_renames()
        # HIP names some table row already renames to (a driver name renamed to the runtime's HIP name)
        targets = {v[0] for v in names.values() if len(v) == 1}
        for row in rename_names:
            cuda, hip = row.cuda.encode(), row.hip.encode()
            # one canonical form for every name of the group: nv_bfloat16 and __nv_bfloat16 both
            # become __hip_bfloat16 (5.7+) or hip_bfloat16 (before), the tables' target included
            group = [cuda, hip, *names.get(cuda, ())]
            canonical = next((names[n] for n in group if n in names and n != cuda), None)
            if hip in targets and hip not in names:
                # another row's own counterpart (nvrtcGetPTXSize -> hiprtcGetCodeSize), which this row's
                # reference-table name (hiprtcGetBitcodeSize) must not replace
                canonical = (hip,)
            if canonical is None and hip in targets:
                canonical = names.setdefault(cuda, (hip,))
            canonical = canonical or names.setdefault(cuda, (cuda,))
            for name in group:
                if _HUNK_TOKEN.fullmatch(name):
                    names[name] = canonical
        names[b"make_uint3"] = (b"dim3",)  # where a dim3 is wanted (rules/dim3_construct.py)
        names[b"uint3"] = (b"dim3",)  # `uint3{x, y, z}` returned as a dim3 (the same rule)
        headers = set()
        headers.update(t.encode() for row in rename_headers for t in (row.cuda, row.hip))
        for path, header in tables.headers.items():
            headers.add(path)
            headers.update(t.encode() for t in (header.hip, header.roc, header.legacy) if t)
        prefixes = [prefix for prefix, _ in tables.header_prefixes]  # `dir/*` rows (cub/*, thrust/...)
        for _, row in tables.header_prefixes:
            for target in (t for t in (row.hip, row.roc, row.legacy) if t):
                if target.endswith("*"):
                    prefixes.append(target[:-1].encode())
                else:
                    headers.add(target.encode())
        # C headers nvcc includes implicitly, which rules/implicit_includes.py adds for ROCm 7
        headers.update(_implicit_headers())
        headers.add(b"algorithm")  # for rules/mixed_minmax.py's std::min<U>
        from hipify_py.rules.calls import load_call_table

        table = load_call_table()
        adapted = frozenset(table.changes) | frozenset(table.overloads)
        tokens = {b"(", b")", b",", b"<", b">", b"*", b"const", b"void", b"reinterpret_cast", b"HIP_SYMBOL"}
        for changes in table.changes.values():
            for change in changes:
                for text in (change.with_, change.value):
                    tokens.update(t for t in _HUNK_TOKEN.findall(text.encode()) if not t.isspace())
        # compute types written for a data type (rules/calls.py `compute_type`): values and the test
        from hipify_py.rules.calls import _DATA_TO_COMPUTE

        tokens.update(_DATA_TO_COMPUTE.values())
        tokens.update((b"==", b"||", b"?", b":", b"HIP_R_64F", b"HIP_C_64F", b"HIP_R_16F", b"HIP_R_32I"))
        tokens.add(b"HIP_C_32I")
        for cuda, by_count in table.overloads.items():
            tokens.update(by_count.values())
            tokens.update(names.get(cuda, ()))
        # device-call casts (rules/device_casts.py): `static_cast<long long>(...)` around an argument
        from hipify_py.rules.device_casts import load_casts

        casts = load_casts()
        adapted |= frozenset(casts.casts)
        tokens.add(b"static_cast")
        for rows in casts.casts.values():
            for row in rows:
                tokens.update(_HUNK_TOKEN.findall(row.cast))
        tokens.discard(b" ")
        return cls(names, frozenset(headers), adapted, frozenset(tokens), tuple(prefixes))


def _implicit_headers() -> set[bytes]:
    from hipify_py.data.mappings import probed_dir
    from hipify_py.rules.implicit_includes import PREFIX, _build

    versions = (p.name[len(PREFIX) : -len(".yaml")] for p in probed_dir().glob(f"{PREFIX}*.yaml"))
    return {header for version in versions for header in _build(version)[1].values()}


def _pasted_suffixes(tables: Tables, names: dict[bytes, tuple[bytes, ...]]) -> dict[bytes, tuple[bytes, ...]]:
    """`MallocHost` -> `HostMalloc`: the argument of a pasting macro (`CHECK(MallocHost, ...)` around
    `cuda##name`) that rules/pasted_prefixes.py rewrites so the paste builds the counterpart
    (`hipHostMalloc`); only suffixes one way, and not CUDA names themselves."""
    found: dict[bytes, set[bytes]] = {}
    for cuda, entry in tables.names.items():
        for prefix, hip_prefix in HIP_PREFIXES.items():
            hip = (entry.hip or "").encode()
            if cuda.startswith(prefix) and hip.startswith(hip_prefix):
                old, new = cuda[len(prefix) :], hip[len(hip_prefix) :]
                if old != new and old and new:
                    found.setdefault(old, set()).add(new)
    return {old: (next(iter(new)),) for old, new in found.items() if len(new) == 1 and old not in names}


def _normal_tokens(lines: list[bytes], canon: Canon, drop: frozenset[bytes], blanks: bool) -> list[bytes]:
    out = []
    for line in lines:
        include = _INCLUDE_LINE.match(line)
        if include and canon.known_header(include.group(1).strip()):
            # include rewrites, collapsed duplicates, the inserted runtime include (a trailing comment stays)
            line = line[include.end() :].lstrip(b" \t")
            if not line.strip():
                continue
        define = _HEADER_DEFINE.match(line)
        if define and canon.known_header(define.group(1).strip()):
            line = line[: define.start(1) - 1] + line[define.end() :]  # the header a computed include names
        dropped = False
        for tok in _HUNK_TOKEN.findall(line):
            if tok in drop or (not blanks and (tok.isspace() or tok.startswith(b"\\"))):
                continue
            if dropped and tok.isspace() and b"\n" not in tok:
                dropped = False
                continue
            # dropped after renaming too: an adaptation writes HIP names (`hipMemcpyHostToDevice`)
            mapped = tuple(t for t in canon.names.get(tok, (tok,)) if t not in drop)
            dropped = not mapped
            out.extend(mapped)
    return out


def _canonical_pastes(text: bytes) -> bytes:
    return _DEFINE_LINE.sub(
        lambda d: _PASTED_PREFIX.sub(lambda m: _PASTED_PREFIXES[m.group(1)], d.group()), text
    )


def check_outside(before: bytes, after: bytes, canon: Canon) -> str | None:
    """A line diff whose every hunk is equal once renames/launch/symbol/include edits are normalised."""
    if before.startswith(UTF8_BOM) != after.startswith(UTF8_BOM):
        return "the byte order mark was added or removed"
    # the BOM stays first even when a line is inserted above the first line: compare without it
    before, after = before.removeprefix(UTF8_BOM), after.removeprefix(UTF8_BOM)
    before, after = _without_guards(before), _without_guards(after)
    before, after = _RUNTIME_FIRST.sub(b"", before), _RUNTIME_FIRST.sub(b"", after)
    before, after = _REGISTER.sub(b"", before), _REGISTER.sub(b"", after)
    before, after = _TEMPLATE_KEYWORD.sub(b"::", before), _TEMPLATE_KEYWORD.sub(b"::", after)
    before, after = _conditions(_ptx_builtins(before)), _conditions(_ptx_builtins(after))
    before = _value_rewrites(before)
    if b"__restrict" in before:  # moved after a pointer's `*` (rules/restrict_placement.py, HIP173)
        before, after = _RESTRICT_WORD.sub(b"", before), _RESTRICT_WORD.sub(b"", after)
    if b"_VERSION" in before:  # a CUDA version taken apart in code (rules/version_values.py, HIP172), or
        # left where hipcc never compiles it: one spelling on both sides
        before = _VERSION_TAKEN_APART.sub(b"VERSION_VALUE", before)
        after = _VERSION_TAKEN_APART.sub(b"VERSION_VALUE", after)
        after = after.replace(b"(HIP_VERSION_MAJOR * 1000 + HIP_VERSION_MINOR * 10)", b"VERSION_VALUE")
    after = _without_deviceptr_math(_CACHE_HINT_HELPER.sub(b"__", after))
    after = _FP_LIMITS.sub(b"FpLimits", after)  # rules/fp_limits.py: the helper's name
    if b"(*)" in after:  # rules/vla_pointer_casts.py (HIP228), in one spelling on both sides
        after = _VLA_AUTO.sub(rb"\2 (*\1)\3 = (\2 (*)\3)", after)
        before, after = _POINTER_PARENS.sub(rb" (*\1)", before), _POINTER_PARENS.sub(rb" (*\1)", after)
    before, after = _STD_MIN_MAX.sub(rb"\1", before), _STD_MIN_MAX.sub(rb"\1", after)
    before, after = _MEMORY_TYPE.sub(rb"\1\2type", before), _MEMORY_TYPE.sub(rb"\1\2type", after)
    if b"##" in before:  # both sides: a paste the translator keeps (`CUDA_##`, a project's constants)
        before, after = _canonical_pastes(before), _canonical_pastes(after)
    prefixes = _paste_prefixes(before)  # the original's: both texts then spell each use alike
    before, after = _pasted_uses(before, prefixes), _pasted_uses(after, prefixes)
    before, after = _DECLARATOR_END.sub(b") ", before), _DECLARATOR_END.sub(b") ", after)
    old_lines, new_lines = before.splitlines(keepends=True), after.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for i1, i2, j1, j2 in _hunks(matcher.get_opcodes(), old_lines, new_lines):
        old, new = old_lines[i1:i2], new_lines[j1:j2]
        # why line by line when possible: launch/symbol tokens are ignored only in the statement they occur
        split = any(b"\n" in m.group() for m in _SPLIT_BRACKETS.finditer(b"".join(old)))
        same_shape = len(old) == len(new) and not split  # brackets split over lines: compare the whole hunk
        pairs = list(zip(old, new, strict=True)) if same_shape else [(b"".join(old), b"".join(new))]
        launch = symbol = False
        for a, b in pairs:
            launch = launch or bool(_SPLIT_BRACKETS.search(a)) or b"hipLaunchKernelGGL" in b
            symbol = symbol or b"Symbol" in a or any(t in canon.adapted for t in _HUNK_TOKEN.findall(a))
            if not _same_modulo_edits(a, b, canon, launch, symbol):
                return f"line {i1 + 1}: {_short(b''.join(old))} -> {_short(b''.join(new))}"
            if b";" in a:  # the statement ends: later lines are compared strictly again
                launch = symbol = False
    return None


# #if/#elif rewrites (rules/device_pass.py HIP143, rules/version_errors.py HIP145, rules/identifiers.py's
# `#if __CUDACC__` -> `#if defined(__HIPCC__)`), compared in one spelling
_IFDEF = re.compile(rb"^([ \t]*#[ \t]*)if(n?)def[ \t]+(\w+)", re.MULTILINE)
_DEFINED = re.compile(rb"\bdefined[ \t]*(?:\([ \t]*(\w+)[ \t]*\)|[ \t]+(\w+))")
_DEVICE_PASS = re.compile(
    rb"\(defined\(__CUDA_ARCH__\) \|\| defined\((?:__HIP_DEVICE_COMPILE__|__HIPCC__)\)\)"
)
_AMD_TURN = re.compile(
    rb"^([ \t]*#[ \t]*(?:el)?if) \((.*)\) (?:\|\| |&& !)defined\(__HIP_PLATFORM_AMD__\)", re.MULTILINE
)
_VALUE_DEFINED = re.compile(rb"defined\((__HIPCC__|__CUDACC__|__NVCC__)\)")
# rules/version_atoms.py: one toolkit comparison widened inside a condition
_AMD_ATOM = re.compile(rb"\(([^()\n]*?) (?:\|\| |&& !)defined\(__HIP_PLATFORM_AMD__\)\)")
# rules/nvcc_features.py: a test of an nvcc feature macro made to hold on AMD
_FEATURE_TEST = re.compile(
    rb"\(defined\((\w+)\) \|\| defined\(__HIP_PLATFORM_AMD__\)\)"
    rb"|((?:(?<=#if )|(?<=# if ))!?defined\(\w+\)) (?:\|\| |&& !)defined\(__HIP_PLATFORM_AMD__\)"
)


# rules/version_errors.py before a file's first CUDA/HIP include: the AMD test also reads hip-clang's own
_AMD_EARLY = b"(defined(__HIP_PLATFORM_AMD__) || defined(__HIP__))"


def _conditions(text: bytes) -> bytes:
    if b"#" not in text:
        return text
    text = text.replace(_AMD_EARLY, b"defined(__HIP_PLATFORM_AMD__)")
    text = _IFDEF.sub(
        lambda m: m.group(1) + b"if " + (b"!" if m.group(2) else b"") + b"defined(" + m.group(3) + b")", text
    )
    text = _DEFINED.sub(lambda m: b"defined(" + (m.group(1) or m.group(2)) + b")", text)
    text = _DEVICE_PASS.sub(b"defined(__CUDA_ARCH__)", text)
    text = _FEATURE_TEST.sub(lambda m: b"defined(" + m.group(1) + b")" if m.group(1) else m.group(2), text)
    text = _AMD_TURN.sub(rb"\1 \2", text)
    text = _AMD_ATOM.sub(rb"\1", text)
    return _VALUE_DEFINED.sub(rb"\1", text)


def _ptx_builtins(text: bytes) -> bytes:
    """asm statements rules/ptx_equivalents.py writes as HIP builtins, written so in the original."""
    if b"asm" not in text:
        return text
    from hipify_py.analysis.ptx_text import (
        ASM_STATEMENT,
        accesses,
        asm_key,
        moves,
        operations,
        prefetches,
        special_reads,
    )
    from hipify_py.data.detector_data import PTX_EQUIVALENTS

    text = ASM_STATEMENT.sub(lambda m: PTX_EQUIVALENTS.get(asm_key(m.group(1)), m.group()), text)
    out, pos = [], 0
    for start, end, assignment in sorted(
        moves(text) + prefetches(text) + special_reads(text) + operations(text) + accesses(text)
    ):
        out += [text[pos:start], assignment]
        pos = end
    return b"".join(out) + text[pos:]


def _value_rewrites(text: bytes) -> bytes:
    """The original with the rewrites that replace a CUDA name by a value or a cast, as the rules write
    them: never-returned errors (HIP164), carveout percentages (HIP165), CUdeviceptr casts (HIP162),
    handle structs (HIP163), library prefix macros (HIP167)."""
    from hipify_py.data.detector_data import CARVEOUT_VALUES, HANDLE_STRUCTS, NEVER_RETURNED_ERRORS
    from hipify_py.rules.deviceptr_casts import c_casts
    from hipify_py.rules.prefix_macros import _DEFINE, LIBRARY_PREFIXES

    if b"hip" in text or b"HIP" in text:  # the file's own HIP mapping of CUDA names (HIP170)
        from hipify_py.analysis.project_aliases import defined_aliases
        from hipify_py.pipeline.translate import default_tables

        for name, value in defined_aliases(text, default_tables().names).items():
            use = re.compile(rb"(?<!define )(?<![\w$])" + re.escape(name) + rb"(?![\w$])")
            lines = text.splitlines(keepends=True)  # code lines only: comments keep the name
            text = b"".join(ln if ln.lstrip().startswith(b"//") else use.sub(value, ln) for ln in lines)
    if b"cudaError" in text:
        names = b"|".join(NEVER_RETURNED_ERRORS)
        text = re.sub(
            rb"(?<!case )(?<![\w$.>:])(" + names + rb")\b",
            lambda m: b"((hipError_t)%d)" % NEVER_RETURNED_ERRORS[m.group(1)],
            text,
        )
    if b"arveout" in text or b"ARVEOUT" in text:
        names = b"|".join(CARVEOUT_VALUES)
        text = re.sub(
            rb"(?<![\w$.>:])(?<!enum )(" + names + rb")\b", lambda m: CARVEOUT_VALUES[m.group(1)], text
        )
    if b"CUdeviceptr" in text:
        out, pos = [], 0
        for start, open_, close in c_casts(text):
            out += [text[pos:start], b"((CUdeviceptr)", text[open_ : close + 1], b")"]
            pos = close + 1
        text = b"".join(out) + text[pos:]
    if any(name in text for name in HANDLE_STRUCTS):
        names = b"|".join(HANDLE_STRUCTS)
        text = re.sub(
            rb"(?<![\w$:.>])(?:(?:struct|class)\s+)?(?:" + names + rb")\b(?!\s*[;{:])", b"void", text
        )
    if b"::cub" in text:  # CUB in a wrapped namespace (rules/cub_wrapped.py, HIP238)
        from hipify_py.rules.cub_wrapped import _WRAPPED

        text = _WRAPPED.sub(lambda m: m.group().replace(m.group(1), b"hipcub", 1), text)
    text = macro_pragmas(text)
    return _DEFINE.sub(lambda m: m.group().replace(m.group(1), LIBRARY_PREFIXES[m.group(1)], 1), text)


_MACRO_PRAGMA = re.compile(
    rb'^([ \t]*#[ \t]*define[ \t]+\w+)[ \t]+#[ \t]*pragma[ \t]+([^\n\\"/]*?)[ \t]*(?=\r?$)', re.M
)


def macro_pragmas(text: bytes) -> bytes:
    """The original with `#define M #pragma X` written `_Pragma("X")` (rules/macro_pragmas.py, HIP237)."""
    return _MACRO_PRAGMA.sub(rb'\1 _Pragma("\2")', text) if b"pragma" in text else text


def _paste_prefixes(text: bytes) -> dict[bytes, bytes]:
    """Pure paste macros (`#define M(val) cuda##val`) and the prefix of their CUDA definition."""
    prefixes: dict[bytes, bytes] = {}
    if b"##" in text:
        for m in _PURE_PASTE.finditer(text):
            if not prefixes.get(m.group(1), b"").lower().startswith(b"cu"):  # the CUDA branch's prefix wins
                prefixes[m.group(1)] = m.group(3)
    return prefixes


def _pasted_uses(text: bytes, prefixes: dict[bytes, bytes]) -> bytes:
    """`M(Malloc)` -> `cudaMalloc` outside #define lines."""
    if not prefixes:
        return text
    use = re.compile(rb"(?<![\w$])(" + b"|".join(map(re.escape, prefixes)) + rb")\([ \t]*(\w+)[ \t]*\)")
    lines = text.splitlines(keepends=True)
    return b"".join(
        line if _PURE_PASTE.match(line) else use.sub(lambda m: prefixes[m.group(1)] + m.group(2), line)
        for line in lines
    )


def _without_guards(text: bytes) -> bytes:
    """Drop each `#if !defined(__HIP_PLATFORM_AMD__)` line and its `#endif` (rules/cxx.py guards)."""
    if not _GUARD_LINE.search(text):
        return text
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for i, line in enumerate(lines):
        if not _GUARD_LINE.match(line):
            continue
        depth = 0
        for j in range(i + 1, len(lines)):
            if _PP_OPEN.match(lines[j]):
                depth += 1
            elif _PP_CLOSE.match(lines[j]):
                if depth == 0:
                    drop.update((i, j))
                    break
                depth -= 1
    return b"".join(line for k, line in enumerate(lines) if k not in drop)


def _joined_brackets(text: bytes) -> bytes:
    """`<< /*c*/ <` -> `<<</*c*/`: the launch rule joins split brackets and keeps their comments."""
    return _SPLIT_BRACKETS.sub(
        lambda m: m.group()[:1] * 3 + b"".join(_KEPT_IN_BRACKETS.findall(m.group())), text
    )


def _adapted_names() -> frozenset[bytes]:
    from hipify_py.data.adaptations import load_table
    from hipify_py.rules.mem_locations import load_table as load_location_calls

    names = {row.cuda.encode() for row in load_table()}
    names |= {row.cuda.encode() for row in load_location_calls()}  # CUDA 13 cudaMemLocation calls
    return frozenset(names)


# Version adaptations (mappings/version-adaptations.yaml) rewrite whole calls; their exact output is
# checked by tests/fixtures/warp_sync and test_warp_sync.py, here a line holding such a call is explained.
_ADAPTED = re.compile(rb"\b(?:" + b"|".join(re.escape(n) for n in sorted(_adapted_names())) + rb")\b")
_OPT_IN = re.compile(rb"#if(?:ndef (\w+)| !defined\((\w+)\))\r?\n#define (?:\1|\2)\r?\n#endif\r?\n")


def _brace_types() -> re.Pattern[bytes]:
    from hipify_py.rules.brace_assign import load_facts

    names = sorted({fact.hip for fact in load_facts().values()}, key=lambda n: (-len(n), n))
    return re.compile(rb"=(\s*)(?:" + b"|".join(re.escape(n) for n in names) + rb")(?=\{)")


# `x = {}` -> `x = __half2{}` (rules/brace_assign.py): the type name written before the braces
_BRACE_TYPE = _brace_types()


_RESTRICT_WORD = re.compile(rb"(?<![\w$])__restrict(?:__)?(?![\w$])[ \t]*")
_VERSION_TAKEN_APART = re.compile(
    rb"(?<![\w$])(?:CUDA_VERSION|CUDART_VERSION)(?![\w$])(?=[ \t]*\)?[ \t]*[/%][ \t]*\(?[ \t]*\d)"
)


def _closing(text: bytes, open_: int) -> int:
    """The offset of the `)` matching the `(` at `open_` (len(text) when unmatched)."""
    depth = 0
    for at in range(open_, len(text)):
        depth += {40: 1, 41: -1}.get(text[at], 0)
        if depth == 0:
            return at
    return len(text)


_COMPOUND_BACK = re.compile(rb"([\w.>-]+) = \1 ([+-]) +")


def _without_deviceptr_math(text: bytes) -> bytes:
    """The output's CUdeviceptr arithmetic (rules/deviceptr_arith.py) read back: `((hipDeviceptr_t)(S))`
    -> S, `((uintptr_t)(...) ...)` -> its content, `(uintptr_t)(X)` -> X, `p = p + n` -> `p += n`."""
    if b"uintptr_t)(" not in text:
        return text
    for opening in (b"((hipDeviceptr_t)(", b"((uintptr_t)(", b"(uintptr_t)("):
        # the grouping `(` before a cast, not a call's (`f((uintptr_t)(p) + n)` keeps f's)
        where = re.compile(rb"(?<![\w)\]])" + re.escape(opening))
        while (found := where.search(text)) is not None:
            at = found.start()
            inner = at + len(opening) - 1 if opening != b"((uintptr_t)(" else at
            end = _closing(text, inner)
            if opening == b"((hipDeviceptr_t)(":  # its own `)` and the outer one
                text = text[:at] + text[inner + 1 : end] + text[end + 2 :]
            elif opening == b"((uintptr_t)(":  # the outer parentheses only; the cast goes next
                text = text[:at] + text[at + 1 : end] + text[end + 1 :]
            else:
                text = text[:at] + text[inner + 1 : end] + text[end + 1 :]
    return _COMPOUND_BACK.sub(rb"\1 \2= ", text)


def _same_modulo_edits(old: bytes, new: bytes, canon: Canon, launch: bool, symbol: bool) -> bool:
    new = _OPT_IN.sub(b"", new)
    new = _BRACE_TYPE.sub(rb"=\1", new)
    if _ADAPTED.search(old):
        return True
    # `symbol`: a statement with a call whose arguments are adapted (HIP_SYMBOL, casts, defaults...)
    adapted = _SYMBOL_TOKENS | canon.adaptation_tokens if symbol else frozenset()
    drop = (_LAUNCH_TOKENS if launch else frozenset()) | adapted
    if launch:
        old, new = _joined_brackets(old), _joined_brackets(new)
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    blanks = not (launch or symbol)  # inserted casts and arguments bring their own blanks
    return _normal_tokens(old_lines, canon, drop, blanks) == _normal_tokens(new_lines, canon, drop, blanks)


_LAUNCH_GAP = 40  # lines of a launch statement between its kernel name and its `>>>(`


def _hunks(
    opcodes: list[tuple[str, int, int, int, int]], old: list[bytes], new: list[bytes]
) -> Iterator[tuple[int, int, int, int]]:
    """Changed line ranges; a multi-line launch (`k<` ... `>>>(` lines apart) is one range."""
    current: list[int] | None = None
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            continue
        if current is not None:
            pending = b"".join(new[current[2] : current[3]])
            finished = bool(_CLOSING_BRACKETS.search(b"".join(old[current[0] : current[1]])))
            if b"hipLaunchKernelGGL" in pending and not finished and i1 - current[1] <= _LAUNCH_GAP:
                current[1], current[3] = i2, j2
                continue
            yield current[0], current[1], current[2], current[3]
        current = [i1, i2, j1, j2]
    if current is not None:
        yield current[0], current[1], current[2], current[3]


def _short(text: bytes, limit: int = 100) -> str:
    s = text.decode("utf-8", "replace").strip().replace("\n", "\\n")
    return s if len(s) <= limit else s[: limit - 3] + "..."


# -- one file ----------------------------------------------------------------------------------
def check_file(
    path: str, source: bytes, canon: Canon, translator: Translator = default_translator
) -> tuple[bytes | None, list[Problem]]:
    options = Options(filename=path)
    try:
        once = translator(source, options)
        twice = translator(once, options)
    except Exception as exc:  # any exception is the finding
        return None, [Problem("internal", path, f"{type(exc).__name__}: {exc}")]
    problems = []
    # code the translator disables or guards (#if 0 / #if !defined(__HIP_PLATFORM_AMD__) with a
    # `hipify-py:` comment, a commented-out case label) is compared as if the markers were not there
    source, marked = without_markers(source), once
    once = without_markers(once)
    if twice != marked:
        problems.append(
            Problem("idempotence", path, check_outside(marked, twice, canon) or _first_diff(marked, twice))
        )
    detail = check_literals(
        macro_pragmas(_ptx_builtins(source)), _ptx_builtins(_without_adaptation_texts(once))
    )
    if detail:
        problems.append(Problem("literals", path, detail))
    detail = check_outside(source, once, canon)
    if detail:
        problems.append(Problem("outside", path, detail))
    return marked, problems


_MARKER_IF = re.compile(rb"^[ \t]*#[ \t]*if\b[^\n]*//[ \t]*hipify-py:[^\n]*\n?", re.M)
_CONDITIONAL = re.compile(rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|endif)\b[^\n]*\n?", re.M)
# rules/wmma.py: the empty namespace that lets `using namespace nvcuda;` compile
_WMMA_NAMESPACE = re.compile(rb"^namespace nvcuda \{\}  // hipify-py:[^\n]*\n", re.M)
# rules/shims.py: a namespace closed and reopened around a shim, which goes to file scope
_NAMESPACE_AROUND_SHIM = re.compile(
    rb"^\}  // hipify-py: HIP's functions are global\r?\n|^[^\n]*\{  // hipify-py: reopened\r?\n", re.M
)
# rules/forward_structs.py: a forward-declared struct written as HIP's per-platform typedef
_FORWARD_TYPEDEF = re.compile(
    rb"^#if defined\(__HIPCC__\) && defined\(__HIP_PLATFORM_NVIDIA__\)\r?\n"
    rb"typedef struct (\w+) \w+;\r?\n#else\r?\ntypedef struct \w+ \w+;\r?\n#endif",
    re.M,
)
_MARKER_COMMENT = re.compile(rb"/\* hipify-py: [^:*]*: (.*?) \*/", re.DOTALL)
# what rules/vector_ops.py writes between its marker #if and #endif (HIP127: the user's operator wins)
# (the block it writes before a `{` or `;` may have split that line: see _DECLARATOR_END)
_PREFER_BLOCK = re.compile(
    rb"^#if defined\(__clang__\) && defined\(__HIP_PLATFORM_AMD__\) // hipify-py:[^\n]*\r?\n"
    rb'__attribute__\(\(enable_if\(true, ""\)\)\)\r?\n#endif\r?\n',
    re.M,
)
# `) {` / `)\n{` / `);` / `)\n;`: one spelling, on both sides
_DECLARATOR_END = re.compile(rb"\)[ \t]*\r?\n?[ \t]*(?=[{;])")


def _without_prefer_blocks(text: bytes) -> bytes:
    return _PREFER_BLOCK.sub(b"", text)


# an equivalent the translator writes for a name the target lacks (hipify_py/data/shim_table.py: definition;
# a header's, rules/header_shims.py, opens with the NVIDIA platform's include of CUDA's own header)
# (rules/host_minmax.py's block: more comment lines, then `#if defined(__HIP__) && ...HIPIFY_PY_SHIM_min...`)
_SHIM_BLOCK = re.compile(
    rb"^// hipify-py: [^\n]*\r?\n(?://[^\n]*\r?\n)*"
    rb"#if (?:!defined\(HIPIFY_PY_SHIM_\w+\)|defined\(__HIP_PLATFORM_NVIDIA__\)"
    rb"|defined\(__HIP__\) && !defined\(__HIP_PLATFORM_NVIDIA__\)[^\n]*HIPIFY_PY_SHIM_)",
    re.M,
)


def _without_shim_blocks(text: bytes) -> bytes:
    """`text` less each shim block, to its matching `#endif` (a block may nest its own #if groups)."""
    out, pos = [], 0
    for m in _SHIM_BLOCK.finditer(text):
        if m.start() < pos:
            continue
        depth = 0
        for c in _CONDITIONAL.finditer(text, m.start() + m.group().index(b"#if")):
            depth += -1 if c.group(1) == b"endif" else 1
            if depth == 0:
                out.append(text[pos : m.start()])
                pos = c.end()
                break
    return b"".join(out) + text[pos:]


_CG_SHUFFLE = re.compile(rb"(?<![\w$])hipify_py_(shfl(?:_up|_down|_xor)?)\(([A-Za-z_]\w*(?:\.\w+)*), ")
# a qualifier macro defined again for hipcc's two passes (rules/pass_qualifiers.py)
_PASS_QUALIFIER = re.compile(
    rb"^#if defined\(__HIP__\) /\* hipify-py: clang checks host/device calls in both passes \*/\r?\n"
    rb"#undef \w+\r?\n#define [^\n]*\r?\n#endif\r?\n",
    re.M,
)
# bits through the helper (rules/half_raw_init.py): `{hipify_py_half_raw(b)}` was `{b}`
_HALF_RAW = re.compile(rb"\{hipify_py_half2?_raw\((.*?)\)\}", re.S)
_BOUNDARY_MODE = re.compile(rb" hipify_py_boundary_mode\(([^()]*)\)")
_TILE_VOTE = re.compile(rb"(?<![\w$])hipify_py_tile_(ballot|any|all)\(([A-Za-z_]\w*), ")
_COMPUTE_TEST = re.compile(
    rb"\((\w+) == HIP_R_64F \|\| \1 == HIP_C_64F \? HIPBLAS_COMPUTE_64F : \1 == HIP_R_16F \? "
    rb"HIPBLAS_COMPUTE_16F : \1 == HIP_R_32I \|\| \1 == HIP_C_32I \? HIPBLAS_COMPUTE_32I : "
    rb"HIPBLAS_COMPUTE_32F\)"
)


def without_markers(text: bytes) -> bytes:
    """`text` without the lines and comments the translator adds to disable or guard code: an
    `#if ... // hipify-py: why` line and its `#endif`, `/* hipify-py: why: code */` around code, and
    the equivalents written for names the target lacks (shims)."""
    text = _FORWARD_TYPEDEF.sub(rb"struct \1;", text)
    if b"HIPBLAS_COMPUTE_64F :" in text:  # a data-type variable as a GEMM's compute type (rules/calls.py)
        text = _COMPUTE_TEST.sub(rb"\1", text)
    if b"hipify_py_shfl" in text:  # a group's shuffle through the helper (rules/cg_shuffles.py)
        text = _CG_SHUFFLE.sub(rb"\2.\1(", text)
    if b"hipify_py_tile_" in text:  # a tile's vote through the helper (rules/tile_votes.py)
        text = _TILE_VOTE.sub(rb"\2.\1(", text)
    if b"hipify_py_half" in text:
        text = _HALF_RAW.sub(rb"{\1}", text)
    if b"hipify_py_boundary_mode(" in text:  # a surface call's mode (rules/surface_modes.py)
        text = _BOUNDARY_MODE.sub(rb", \1", text)
    if b"clang checks host/device calls" in text:
        text = _PASS_QUALIFIER.sub(b"", text)
    if b"hipify-py:" not in text:
        return text
    text = _without_shim_blocks(_NAMESPACE_AROUND_SHIM.sub(b"", _WMMA_NAMESPACE.sub(b"", text)))
    text = _without_prefer_blocks(_MARKER_COMMENT.sub(lambda m: m.group(1), text))
    drop: list[tuple[int, int]] = []
    stack: list[bool] = []
    for m in _CONDITIONAL.finditer(text):
        if m.group(1) == b"endif":
            if stack and stack.pop():
                drop.append(m.span())
            continue
        marker = bool(_MARKER_IF.match(text, m.start())) and m.group(1) == b"if"
        stack.append(marker)
        if marker:
            drop.append(m.span())
    out, pos = [], 0
    for start, end in drop:
        out.append(text[pos:start])
        pos = end
    out.append(text[pos:])
    return b"".join(out)


def _without_adaptation_texts(text: bytes) -> bytes:
    """The output without the call texts version adaptations write (their string literals are ours)."""
    from hipify_py.data.adaptations import load_table

    for row in load_table():
        if row.op == "replace-call" and row.hip:
            text = text.replace(row.hip.encode(), b"")
    return text


def _first_diff(a: bytes, b: bytes) -> str:
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines(), strict=False), 1):
        if x != y:
            return f"line {n}: {_short(x)} -> {_short(y)}"
    return "line count differs"


# -- torch comparison ------------------------------------------------------------------------------
def torch_translator() -> Callable[[bytes], bytes]:
    """torch's identifier pass: the PYTORCH_MAP regex that hipify_python.preprocessor applies first."""
    from torch.utils.hipify import hipify_python as th

    def run(source: bytes) -> bytes:
        text = source.decode("utf-8", "surrogateescape")
        text = th.RE_PYTORCH_PREPROCESSOR.sub(lambda m: th.PYTORCH_MAP[m.group(0)], text)
        return text.encode("utf-8", "surrogateescape")

    return run


def code_identifiers(text: bytes) -> Counter[str]:
    """Identifiers outside comments, literals and #include lines."""
    kept = b"\n".join(line for line in text.split(b"\n") if not _INCLUDE_LINE.match(line))
    return Counter(tok.text.decode("latin-1") for tok in lexer.identifiers(kept))


def compare_with_torch(path: str, source: bytes, ours: bytes, theirs: bytes, summary: Summary) -> None:
    before, mine, torch_ids = code_identifiers(source), code_identifiers(ours), code_identifiers(theirs)
    for name, count in before.items():
        ours_rewritten = max(0, count - mine[name])
        torch_rewritten = max(0, count - torch_ids[name])
        if torch_rewritten > ours_rewritten:
            summary.torch_only[name] += torch_rewritten - ours_rewritten
            summary.torch_example.setdefault(name, path)
        elif ours_rewritten > torch_rewritten:
            summary.ours_only[name] += ours_rewritten - torch_rewritten
            summary.torch_example.setdefault(name, path)


# -- compilation ---------------------------------------------------------------------------------
_ANY_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:<([^>\n]+)>|"([^"\n]+)")', re.MULTILINE)


def system_include_dirs() -> list[Path]:
    dirs = [Path("/usr/include"), Path("/usr/include/x86_64-linux-gnu"), Path("/usr/local/include")]
    dirs += sorted(Path("/usr/include/c++").glob("*")) + sorted(
        Path("/usr/include/x86_64-linux-gnu/c++").glob("*")
    )
    dirs += sorted(Path("/usr/lib").glob("llvm-*/lib/clang/*/include"))
    return [d for d in dirs if d.is_dir()]


_COMPILED_SUFFIXES = (".cu", ".cuh", ".hip")


@dataclass
class CompileSample:
    """Translated files written to a mirror tree; a sample of them compiled there with hipcc."""

    limit: int
    hipcc: str
    mirror: Path
    include_dirs: list[Path]  # original directories given with --include-dir (mapped into the mirror)
    system_dirs: list[Path] = field(default_factory=system_include_dirs)
    candidates: list[Path] = field(default_factory=list)

    def add(self, root: Path, path: Path, out: bytes, changed: bool) -> None:
        target = self._mirrored(root, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out)
        if changed and path.suffix in _COMPILED_SUFFIXES:
            self.candidates.append(target)

    def _mirrored(self, root: Path, path: Path) -> Path:
        base = (root if root.is_dir() else root.parent).absolute()
        # why the whole path: two roots may share a name (cutlass/include, tools/util/include)
        return self.mirror / base.relative_to(base.anchor) / path.absolute().relative_to(base)

    def _resolvable(self, path: Path, dirs: list[Path], seen: dict[Path, bool]) -> bool:
        """Every include, transitively, exists: system/HIP headers, the project's own or -I dirs."""
        if path in seen:
            return seen[path]
        seen[path] = True  # an include cycle is fine
        text = path.read_bytes()
        for m in _ANY_INCLUDE.finditer(text):
            quoted = m.group(2) is not None
            name = (m.group(2) if quoted else m.group(1)).decode("utf-8", "replace").strip()
            found = next(
                (d / name for d in [*([path.parent] if quoted else []), *dirs] if (d / name).exists()), None
            )
            if found is None:
                seen[path] = False
                break
            if found.is_relative_to(self.mirror) and not self._resolvable(found, dirs, seen):
                seen[path] = False
                break
        return seen[path]

    def run(self, roots: list[Path], summary: Summary) -> None:
        mirrored_dirs = []
        for d in self.include_dirs:
            root = next((r for r in roots if d.absolute().is_relative_to(r.absolute())), None)
            if root is not None:
                mirrored_dirs.append(self._mirrored(root, d))
        dirs = [*mirrored_dirs, *self.system_dirs]
        seen: dict[Path, bool] = {}
        ready = [c for c in self.candidates if self._resolvable(c, dirs, seen)]
        summary.compile_candidates = len(ready)
        step = max(1, len(ready) // max(1, self.limit))  # spread the sample over the tree
        flags = [f"-I{d}" for d in mirrored_dirs]
        for target in ready[::step][: self.limit]:
            outcome = compile_one(target, self.hipcc, flags)
            summary.compile_results[outcome] += 1
            summary.compile_examples.setdefault(outcome, str(target.relative_to(self.mirror)))


_ERROR = re.compile(r"^(?:.*?:\d+:\d+: )?(?:fatal )?error: (.*)$", re.MULTILINE)


def compile_one(src: Path, hipcc: str, flags: list[str], timeout: int = 300) -> str:
    """ "ok" or the first error message (without file:line:col)."""
    env = {**os.environ, "HIP_PLATFORM": "amd"}
    cmd = [hipcc, "--offload-arch=gfx90a", "-std=c++17", "-fsyntax-only", "-x", "hip", *flags, str(src)]
    try:
        run = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired:
        return "timeout"
    if run.returncode == 0:
        return "ok"
    m = _ERROR.search(run.stderr)
    return m.group(1).strip() if m else (run.stderr.strip().splitlines() or ["unknown failure"])[-1]


# -- driver --------------------------------------------------------------------------------------
def run_checks(
    roots: list[Path],
    suffixes: tuple[str, ...] = SOURCE_EXTENSIONS,
    torch: bool = False,
    compile_n: int = 0,
    translator: Translator = default_translator,
    progress: bool = False,
    include_dirs: tuple[Path, ...] = (),
) -> Summary:
    summary = Summary()
    canon = Canon.of(default_tables())
    torch_run = torch_translator() if torch else None
    hipcc = shutil.which("hipcc") if compile_n else None
    with tempfile.TemporaryDirectory(prefix="realworld-check-") as tmp:
        sample = CompileSample(compile_n, hipcc, Path(tmp), list(include_dirs)) if hipcc else None
        for root in roots:
            for path in source_files([root], suffixes):
                try:
                    source = path.read_bytes()
                except OSError as exc:
                    summary.problems.append(Problem("internal", str(path), f"unreadable: {exc}"))
                    continue
                summary.files += 1
                summary.lines += source.count(b"\n")
                out, problems = check_file(str(path), source, canon, translator)
                summary.problems.extend(problems)
                if out is None:
                    continue
                summary.changed += out != source
                if torch_run is not None:
                    compare_with_torch(str(path), source, out, torch_run(source), summary)
                if sample is not None:
                    sample.add(root, path, out, out != source)
                if progress and summary.files % 500 == 0:
                    print(f"... {summary.files} files", file=sys.stderr)
        if sample is not None:
            sample.run(roots, summary)
    return summary


def report(summary: Summary, top: int) -> str:
    by_check = Counter(p.check for p in summary.problems)
    lines = [
        f"files: {summary.files}  lines: {summary.lines}  changed by translation: {summary.changed}",
        "problems: " + "  ".join(f"{c}={by_check[c]}" for c in CHECKS),
    ]
    for check in CHECKS:
        found = [p for p in summary.problems if p.check == check]
        for p in found[:top]:
            lines.append(f"  [{check}] {p.path}: {p.detail}")
        if len(found) > top:
            lines.append(f"  [{check}] ... {len(found) - top} more")
    if summary.torch_only or summary.ours_only:
        lines.append(
            f"torch disagreements: rewritten only by torch {sum(summary.torch_only.values())} occurrences"
            f" of {len(summary.torch_only)} names; only by hipify-py {sum(summary.ours_only.values())}"
            f" occurrences of {len(summary.ours_only)} names"
        )
        for title, counter in (("only torch", summary.torch_only), ("only hipify-py", summary.ours_only)):
            for name, count in counter.most_common(top):
                lines.append(f"  [{title}] {name}: {count}  (e.g. {summary.torch_example[name]})")
    if summary.compile_results:
        total = sum(summary.compile_results.values())
        lines.append(
            f"compiled: {total} of {summary.compile_candidates} self-contained translated files,"
            f" ok: {summary.compile_results['ok']}"
        )
        for outcome, count in summary.compile_results.most_common():
            if outcome != "ok":
                lines.append(f"  {count:4d}  {outcome[:140]}  (e.g. {summary.compile_examples[outcome]})")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="+", type=Path, help="files or directories of CUDA code")
    parser.add_argument("--suffix", action="append", help="file suffixes to check (default: hipify-py's)")
    parser.add_argument(
        "--torch", action="store_true", help="compare identifier rewrites with torch's hipify"
    )
    parser.add_argument(
        "--compile", type=int, default=0, metavar="N", help="compile up to N translated files"
    )
    parser.add_argument(
        "-I",
        "--include-dir",
        action="append",
        type=Path,
        default=[],
        help="include directory (inside PATH) for --compile",
    )
    parser.add_argument("--top", type=int, default=20, help="examples listed per check / disagreement list")
    parser.add_argument("--json", type=Path, help="also write every problem and count to this JSON file")
    parser.add_argument("--progress", action="store_true", help="print a line every 500 files")
    args = parser.parse_args(argv)
    for path in args.paths:
        if not path.exists():
            parser.error(f"no such path: {path}")
    suffixes = tuple(args.suffix) if args.suffix else SOURCE_EXTENSIONS
    summary = run_checks(
        args.paths,
        suffixes,
        args.torch,
        args.compile,
        progress=args.progress,
        include_dirs=tuple(args.include_dir),
    )
    print(report(summary, args.top))
    if args.json:
        data = {
            "files": summary.files,
            "lines": summary.lines,
            "changed": summary.changed,
            "problems": [vars(p) for p in summary.problems],
            "torch_only": dict(summary.torch_only.most_common()),
            "ours_only": dict(summary.ours_only.most_common()),
            "torch_examples": summary.torch_example,
            "compile": dict(summary.compile_results),
            "compile_examples": summary.compile_examples,
        }
        args.json.write_text(json.dumps(data, indent=1))
    return 1 if summary.problems else 0


if __name__ == "__main__":
    sys.exit(main())
