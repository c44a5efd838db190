"""Per-file analysis context shared by all rules: the tree, token classification, regions.

Built once per translate() call; rules only read from it. Caches here live and die with the call.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from hipify_py.analysis.defines import define_lines
from hipify_py.analysis.nv_target import DISPATCH, ArchBlock, arch_blocks
from hipify_py.data.tables import Tables, identifiers_of
from hipify_py.data.versions import compare_versions
from hipify_py.engine import lexer
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.options import Options
from hipify_py.engine.parser import Node, Tree, ancestors, parse
from hipify_py.engine.rule_texts import rule_info
from hipify_py.engine.source import LineIndex
from hipify_py.util.lazyattr import cached
from hipify_py.util.lazyre import lazy
from hipify_py.util.spans import merged

# why module-level: compiled from the shipped programs (util/lazyre.py), not by each worker
# the first HIP whose runtime API follows CUDA 11's removals (ROCm 6.0): version tests every current
# CUDA toolkit decides alike are opened for it and later (HIP147, rules/version_errors.py)
CURRENT_TOOLKITS_HIP = "6.0"
_DEFINED_NAME = lazy(rb"^[ \t]*#[ \t]*define[ \t]+(\w+)", re.MULTILINE)
_NEGATION = lazy(rb"!\s*(?:defined\b|\w)")
# a condition that ORs a HIP test with nvcc's own (device pass, compiler): code for both GPU builds,
# which the translation converts as any other (hypre's warp reductions), not a HIP-only branch
_SHARED = lazy(
    rb"\|\|[^\n]*?\b(?:__CUDA_ARCH__|__CUDACC__|__NVCC__)\b|\b(?:__CUDA_ARCH__|__CUDACC__|__NVCC__)\b[^\n]*?\|\|"
)
# ... unless it names HIP's NVIDIA platform: `defined(__CUDACC__) || (defined(__HIP_PLATFORM_NVIDIA__)...)`
# is the NVIDIA side, written for hipcc already (SeisSol's AMD code is in a block of its own)
_HIP_NVIDIA = lazy(rb"\b__HIP_PLATFORM_(?:NVIDIA|NVCC)__\b")
_RULE_ID = lazy(r"[A-Z]+\d+")

if TYPE_CHECKING:
    from hipify_py.analysis.pp_branches import Branches

# Leaf types whose bytes are never code.
_COMMENT = frozenset({"comment"})
_STRING = frozenset(
    {
        "string_literal",
        "string_content",
        "char_literal",
        "raw_string_literal",
        "raw_string_content",
        "raw_string_delimiter",
        "system_lib_string",
        "escape_sequence",
        "concatenated_string",
        "character",
    }
)
# Nodes whose text the tree does not structure: classify with the lexer.
_OPAQUE = frozenset({"preproc_arg", "ERROR"})

# Macros whose definedness marks code already written for HIP/ROCm.
HIP_GUARD = lazy(
    rb"\b(?:__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_AMDGPU__|USE_ROCM|__HIPCC__|"
    rb"__HIP__|__HIP_DEVICE_COMPILE__|HIP_PLATFORM_AMD|USE_HIP|__HIP_ROCclr__)\b"
)
_HIP_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"]hip/')
# HIP's and ROCm libraries' headers (hip/, hipcub/, hipblas/, rocprim/, rocblas/, rccl/...)
_ROCM_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"](?:hip|roc|rccl|miopen)\w*/')
# the headers of CUDA's toolkit a CUDA arm includes (as against the HIP arm beside it)
_CUDA_INCLUDE = lazy(
    rb'#[ \t]*include[ \t]*[<"](?:cuda|cublas|cufft|curand|cusparse|cusolver|cudnn|nccl|nvToolsExt|nvtx3/|'
    rb"cooperative_groups|cub/|thrust/|mma\.h|sm_\d)"
)
# thrust/ is rocThrust's too: a HIP arm may include it (CTranslate2's `#ifdef CT2_USE_HIP` arm)
_THRUST_INCLUDE = lazy(rb'#[ \t]*include[ \t]*[<"]thrust/[^>"\n]*[>"]')
_CONDITIONALS = frozenset({"preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else"})
_OPERATOR_BEFORE = lazy(rb"(?<![\w$])operator\s+\Z")
_NAME_NEXT = lazy(rb"[ \t]*[A-Za-z_]")
# `scope::` right before a token (macro bodies and error regions, where there is no tree to ask)
_SCOPE_BEFORE = lazy(rb"(?<![\w$])([A-Za-z_]\w*)\s*::\s*\Z")
_HELPER_GUARD = lazy(rb"^#if !defined\(HIPIFY_PY_SHIM_\w+\)", re.MULTILINE)
_OFF_ON = lazy(rb"hipify-py:\s*(off|on)\b")
_IGNORE = lazy(rb"hipify-py:\s*ignore(?:\[([A-Z0-9_,\s]*)\])?")


class Where:
    """Classification of a token position."""

    CODE = "code"  # an ordinary identifier/expression position
    MACRO = "macro"  # code inside a macro body or an error region (lexically known)
    MEMBER = "member"  # obj.name / obj->name / a field declaration
    SCOPED = "scoped"  # ns::name with a user namespace
    COMMENT = "comment"
    STRING = "string"


REWRITABLE = frozenset({Where.CODE, Where.MACRO})


class Context:
    """One file being translated: its bytes, the tables and options, and the facts rules share.

    why a plain class, not a dataclass: see engine/options.py"""

    def __init__(self, source: bytes, tables: Tables, options: Options) -> None:
        self.source = source
        self.tables = tables
        self.options = options
        self._opaque_cache: dict[int, lexer.Scanner] = {}

    @cached
    def tree(self) -> Tree:
        """Parsed on first use: a file in which no rule finds anything to look at is never parsed
        (most of a project's host-only files), so the cost follows the CUDA tokens, not the size."""
        return parse(self.source)

    @cached
    def identifiers(self) -> frozenset[bytes]:
        """The file's distinct identifier-like tokens (tables.identifiers_of), found once for all rules:
        a rule whose names are absent skips its scan (`names.isdisjoint(ctx.identifiers)`)."""
        return identifiers_of(self.source)

    @cached
    def identifier_text(self) -> bytes:
        """The distinct identifiers joined by newlines: `needle in ctx.identifier_text` equals `needle in
        ctx.source` for a needle of word characters that starts with a letter or `_`, on far fewer bytes."""
        return b"\n".join(self.identifiers)

    @cached
    def define_lines(self) -> list[re.Match[bytes]]:
        """The file's `#define` lines (defines.define_lines), found once for every rule that reads them."""
        return define_lines(self.source)

    @cached
    def includes_hip(self) -> bool:
        """The file has an `#include <hip/...>` (or `"hip/..."`): asked by several rules, searched once."""
        return _HIP_INCLUDE.search(self.source) is not None

    @cached
    def lines(self) -> LineIndex:
        return LineIndex(self.source)

    @cached
    def branches(self) -> Branches:
        """The file's `#if` analysis (pp_branches): shared by the detectors and translate's filter."""
        # why lazy: rules import this module
        from hipify_py.analysis.arch_tests import widened
        from hipify_py.analysis.pp_branches import amd_env, dead_branches
        from hipify_py.analysis.toolkit_atoms import opened_atoms
        from hipify_py.analysis.version_tests import TOOLKIT_COMPARE

        # guards of CUDA headers HIP has nothing alike for (NVJPEGAPI): never defined under hipcc,
        # unless this file defines them itself
        unmapped = self.tables.unmapped_guards & self.identifiers
        # HIP147 opens tests of the toolkit's version for targets past ROCm 6.0's API cleanup (where HIP
        # followed CUDA 11's removals: hipPointerAttribute_t's memoryType became type, see the probed
        # mappings/probed/hip-identifiers-*.yaml)
        hip6 = not self.target or compare_versions(self.target, CURRENT_TOOLKITS_HIP) >= 0
        # a version test whose only branch includes such headers may be opened (version_tests.includes_only)
        headers = self.tables.headers_at(self.target) if hip6 and b"_VERSION" in self.source else frozenset()
        undefined = frozenset()
        if unmapped:
            undefined = frozenset(unmapped) - set(_DEFINED_NAME.findall(self.source))
        lacking = self.lacking_names
        # names of CUDA's own API, which a block for old toolkits may #define (version_tests.backports)
        known = frozenset()
        if b"_VERSION" in self.source:
            known = frozenset(self.identifiers & self.tables.names.keys())
        # `#ifdef __CUDA_ARCH__` groups rules/device_pass.py widens to hipcc's device pass: compiled there
        # (and their #else in the host pass), so neither branch is dead, nor the version tests inside
        overrides: dict[int, int | None] = {}
        if b"__CUDA_ARCH__" in self.source:
            for _, tests in widened(self.source, self.lacking_names, self.is_protected):
                overrides.update((directive[0], None) for directive, _ in tests)
        branches = dead_branches(self.source, undefined, hip6, headers, lacking, overrides, known)
        if hip6 and TOOLKIT_COMPARE.search(self.source) is not None:
            # `#if CUDART_VERSION >= 9000 && !defined(WITH_CUCUB)`: decided as the rewrite will decide it
            atoms = opened_atoms(self.source, branches, lacking, amd_env(undefined), self.is_protected)
            if atoms:
                overrides.update((start, test.value) for start, test in atoms.items())
                branches = dead_branches(self.source, undefined, hip6, headers, lacking, overrides, known)
            branches.atoms = atoms
        # NV_IF_TARGET(NV_PROVIDES_SM_70, (...)): a block for an NVIDIA architecture, never compiled on AMD
        branches.dead.extend(block for _, block in self.nv_arch_blocks)
        return branches

    @cached
    def nv_arch_blocks(self) -> list[ArchBlock]:
        """<nv/target> dispatch blocks of an NVIDIA architecture query (analysis/nv_target)."""
        if b"NV_" not in self.source:
            return []
        return arch_blocks(self.source, (m.span() for m, _ in self.code_matches(DISPATCH)))

    @cached
    def lacking_names(self) -> frozenset[bytes]:
        """CUDA names of this file the tables give no HIP counterpart, for the target: its version renames
        count (`__trap` has one), and so do its adaptations (a warp `*_sync` call is written for the target,
        rules/warp_sync.py; a cache-hint load, rules/cache_hints.py)."""
        from hipify_py.data.adaptations import adapted_words  # why lazy: tables loaded on demand
        from hipify_py.data.renames import renames_for

        names = self.tables.names
        lacking = {w for w in self.identifiers & names.keys() if names[w].hip is None}
        if lacking and self.target:
            lacking -= renames_for(self.target).names.keys() | adapted_words(self.target)
        return frozenset(lacking)

    @property
    def root(self) -> Node:
        return self.tree.root_node

    @property
    def target(self) -> str:
        """The target HIP version the version-driven rules adapt to ("" when nothing says one)."""
        return self.options.hip_version or self.tables.mappings.latest_hip_version

    # -- classification -------------------------------------------------------------------
    def classify(self, start: int, end: int) -> str:
        """Where a token [start, end) stands: code, macro body, member, comment, string..."""
        node = self.root.descendant_for_byte_range(start, end)
        if node is None:
            return Where.CODE
        kind = node.type
        if kind in _COMMENT:
            return Where.COMMENT
        if kind in _STRING:
            return Where.STRING
        opaque = self._opaque_ancestor(node)
        if opaque is not None or node.start_byte != start or node.end_byte != end:
            return self._classify_lexically(opaque or node, start)
        parent = node.parent
        if kind == "field_identifier":
            return Where.CODE if self._type_not_member(node, parent) else Where.MEMBER
        if _OPERATOR_BEFORE.search(self.source, max(0, start - 16), start):
            return Where.CODE  # `&Ptr::operator CUdeviceptr`: the conversion's type, not a member
        if parent is not None and parent.type == "qualified_identifier":
            scope = parent.child_by_field_name("scope")
            if scope is not None and scope.end_byte <= start and scope.type != "::":
                scope_name = self.source[scope.start_byte : scope.end_byte]
                # a CUDA enum as scope (`cudaStreamCaptureStatus::cudaStreamCaptureStatusActive`) is CUDA too
                if (
                    scope_name not in self.tables.cuda_namespaces
                    and scope_name not in self.tables.names
                    and not self._library_outer_scope(parent)  # `thrust::system::cuda_category`
                ):
                    return Where.SCOPED
        if parent is not None and self._declared_name(node, parent) and self._in_user_namespace(parent):
            return Where.SCOPED  # a user function/enumerator declared in its own namespace, e.g. a mock
        return Where.CODE

    def _library_outer_scope(self, qualified: Node) -> bool:
        """The outermost scope of a nested qualified name is a CUDA library's namespace (`thrust` of
        `thrust::system::x`): the library's name, not a user's namespace."""
        outer = qualified
        while outer.parent is not None and outer.parent.type == "qualified_identifier":
            outer = outer.parent
        if outer is qualified:
            return False
        scope = outer.child_by_field_name("scope")
        name = self.source[scope.start_byte : scope.end_byte] if scope is not None else b""
        return name in self.tables.cuda_namespaces

    def _type_not_member(self, node: Node, parent: Node | None) -> bool:
        """A field_identifier that is really a type the parser misread.

        `MACRO cudaError_t f();` in a class parses as field `cudaError_t` of type MACRO (a name follows it,
        which never happens after a field name); `S() : CUDA_MEMCPY3D() {}` initialises a base class.
        """
        if parent is None:
            return False
        if parent.type == "field_declaration":
            return bool(_NAME_NEXT.match(self.source, node.end_byte))
        if parent.type != "field_initializer":
            return False
        name = self.source[node.start_byte : node.end_byte]
        for owner in ancestors(node):
            if owner.type in ("struct_specifier", "class_specifier"):
                bases = next((c for c in owner.children if c.type == "base_class_clause"), None)
                text = b"" if bases is None else self.source[bases.start_byte : bases.end_byte]
                return bool(re.search(rb"\b" + re.escape(name) + rb"\b", text))
        return False

    @staticmethod
    def _declared_name(node: Node, parent: Node) -> bool:
        """The name a function declarator or an enumerator declares (not an enumerator's value)."""
        if parent.type == "function_declarator":
            return True
        return parent.type == "enumerator" and parent.child_by_field_name("name") == node

    @staticmethod
    def _in_user_namespace(node: Node) -> bool:
        cur = node.parent
        while cur is not None:
            if cur.type == "namespace_definition":
                return True
            cur = cur.parent
        return False

    def _opaque_ancestor(self, node: Node) -> Node | None:
        cur: Node | None = node
        while cur is not None:
            if cur.type in _OPAQUE:
                return cur
            if cur.type in ("translation_unit", "compound_statement", "function_definition"):
                return None
            cur = cur.parent
        return None

    def _classify_lexically(self, region: Node, start: int) -> str:
        lexed = self._lex_region(region).through(start)
        skipped, members = lexed.skipped, lexed.members
        i = bisect.bisect_right(skipped, (start, 1 << 62)) - 1
        if i >= 0 and skipped[i][0] <= start < skipped[i][1]:
            text = self.source[skipped[i][0] : skipped[i][0] + 2]
            return Where.COMMENT if text in (b"//", b"/*") else Where.STRING
        if start in members:
            return Where.MEMBER
        scope = _SCOPE_BEFORE.search(self.source, max(region.start_byte, start - 64), start)
        if scope is not None and self._user_scope(scope.group(1)):
            return Where.SCOPED  # `sycl::mul24(a, b)` in a #define is SYCL's, not CUDA's mul24
        return Where.MACRO

    def _user_scope(self, name: bytes) -> bool:
        """A namespace or class that is not CUDA's (`cub::`, `cooperative_groups::`, a CUDA enum)."""
        return name not in self.tables.cuda_namespaces and name not in self.tables.names

    def _lex_region(self, region: Node) -> lexer.Scanner:
        key = region.start_byte
        cached = self._opaque_cache.get(key)
        if cached is None:
            text = self.source[region.start_byte : region.end_byte]
            cached = lexer.Scanner(text, region.start_byte)
            self._opaque_cache[key] = cached
        return cached

    def code_matches(self, pattern: re.Pattern[bytes]) -> Iterator[tuple[re.Match[bytes], str]]:
        """Matches of `pattern` that stand in code (not comments/strings/protected regions)."""
        for m in pattern.finditer(self.source):
            if self.is_protected(m.start()):
                continue
            where = self.classify(m.start(), m.end())
            if where in (Where.COMMENT, Where.STRING):
                continue
            yield m, where

    # -- regions that must not be rewritten -----------------------------------------------
    @cached
    def protected(self) -> list[tuple[int, int]]:
        """Sorted, merged ranges left alone: HIP-platform branches and hipify-py: off/on regions."""
        return merged([*self._hip_branches(), *self._off_regions(), *self._written_helpers()])

    def is_protected(self, offset: int) -> bool:
        spans = self.protected
        if not spans:
            return False
        i = bisect.bisect_right(spans, (offset, 1 << 62)) - 1
        return i >= 0 and spans[i][0] <= offset < spans[i][1]

    @cached
    def hip_branches(self) -> list[tuple[int, int]]:
        """The HIP-platform branches alone (`#ifdef __HIP_PLATFORM_AMD__`, `#else` of `#ifndef USE_ROCM`)."""
        return sorted(self._hip_branches())

    def in_hip_branch(self, offset: int) -> bool:
        return any(a <= offset < b for a, b in self.hip_branches)

    def _written_helpers(self) -> Iterator[tuple[int, int]]:
        """Helpers an earlier run wrote (`#if !defined(HIPIFY_PY_SHIM_x) ...`): their code is HIP as written;
        a branch of one may name CUDA's own function for HIP's NVIDIA platform."""
        if b"HIPIFY_PY_SHIM_" not in self.source:
            return
        for m in _HELPER_GUARD.finditer(self.source):
            node = self.root.descendant_for_byte_range(m.end() - 1, m.end())
            while node is not None and node.type != "preproc_if":
                node = node.parent
            if node is not None and node.start_byte == m.start():
                yield node.start_byte, node.end_byte

    def _off_regions(self) -> Iterator[tuple[int, int]]:
        start: int | None = None
        for m in _OFF_ON.finditer(self.source):
            if self.classify(m.start(), m.end()) != Where.COMMENT:
                continue
            if m.group(1) == b"off" and start is None:
                start = m.start()
            elif m.group(1) == b"on" and start is not None:
                yield start, m.end()
                start = None
        if start is not None:
            yield start, len(self.source)

    def _hip_branches(self) -> Iterator[tuple[int, int]]:
        if (b"hip" in self.source or b"roc" in self.source) and b"include" in self.source:
            yield from self._hip_include_arms()
        if b"HIP" not in self.source and b"ROCM" not in self.source:
            return  # every guard macro contains one of these: spare most files a whole-file scan
        seen: set[int] = set()
        for m in HIP_GUARD.finditer(self.source):
            node = self.root.descendant_for_byte_range(m.start(), m.end())
            cond = node
            while cond is not None and cond.type not in ("preproc_ifdef", "preproc_if", "preproc_elif"):
                cond = cond.parent
            if cond is None or cond.start_byte in seen:
                continue
            seen.add(cond.start_byte)
            end = self._condition_end(cond)
            if end is not None and _SHARED.search(self.source, cond.start_byte, end):
                if not _HIP_NVIDIA.search(self.source, cond.start_byte, end):
                    continue  # `defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`: both builds' code
                yield cond.start_byte, end  # its `__CUDACC__` too: `__HIPCC__` would make AMD take it
            span = self._guarded_span(cond, m.start())
            if span is not None:
                yield span
                if cond.type == "preproc_elif":
                    yield from self._earlier_conditions(cond)

    def _earlier_conditions(self, elif_node: Node) -> Iterator[tuple[int, int]]:
        """`#if defined __CUDACC__ ... #elif defined __HIPCC__ ...`: the chain chooses between CUDA and HIP
        already, so the conditions before the HIP branch stay as written (renamed, `__CUDACC__` ->
        `__HIPCC__` would make hipcc take the CUDA branch)."""
        node = elif_node
        while node.parent is not None and node.parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif"):
            parent = node.parent
            if parent.child_by_field_name("alternative") != node:
                break
            end = self._condition_end(parent)
            if end is not None:
                yield parent.start_byte, end
            node = parent

    def _hip_include_arms(self) -> Iterator[tuple[int, int]]:
        """An arm of a conditional that includes HIP headers while another arm of the same chain includes
        CUDA's (`#ifdef O_HIP #include <hip/hip_runtime.h> ... #else #include <cuda_runtime.h> #endif`): a
        HIP branch whatever its macro is called. What it defines (`#define cudaError_t hipError_t`) is
        not in the build of the translated CUDA arm, so it must not keep uses elsewhere from renaming."""
        seen: set[int] = set()
        for m in _ROCM_INCLUDE.finditer(self.source):
            node = self.root.descendant_for_byte_range(m.start(), m.start() + 1)
            while node is not None and node.type not in _CONDITIONALS:
                node = node.parent
            if node is None:
                continue
            arms = self._arms(node)
            for start, end in arms:
                if start in seen or not start <= m.start() < end:
                    continue
                own = self.source[start:end]
                others = [self.source[a:b] for a, b in arms if a != start]
                if not _CUDA_INCLUDE.search(_THRUST_INCLUDE.sub(b"", own)) and any(
                    _CUDA_INCLUDE.search(o) for o in others
                ):
                    seen.add(start)
                    yield start, end

    def _arms(self, node: Node) -> list[tuple[int, int]]:
        """(start, end) of every arm of the `#if ... #elif ... #else ... #endif` chain holding `node`."""
        while (
            node.parent is not None
            and node.type in ("preproc_elif", "preproc_else")
            and node.parent.type in _CONDITIONALS
        ):
            node = node.parent
        arms: list[tuple[int, int]] = []
        current: Node | None = node
        while current is not None:
            if current.type == "preproc_else":
                arms.append((current.start_byte, current.end_byte))
                break
            header_end = self._condition_end(current)
            alternative = current.child_by_field_name("alternative")
            if header_end is None:
                break
            arms.append((header_end, alternative.start_byte if alternative is not None else current.end_byte))
            current = alternative
        return arms

    def _guarded_span(self, cond: Node, name_at: int) -> tuple[int, int] | None:
        """The branch of `cond` that is compiled when the HIP macro is defined."""
        header_end = self._condition_end(cond)
        if header_end is None or name_at >= header_end:
            return None
        alternative = cond.child_by_field_name("alternative")
        body_end = alternative.start_byte if alternative is not None else cond.end_byte
        head = self.source[cond.start_byte : header_end]
        negated = head.lstrip().startswith(b"#ifndef") or _NEGATION.search(head)
        if negated:
            if alternative is None or alternative.type != "preproc_else":
                return None
            return alternative.start_byte, alternative.end_byte
        return header_end, body_end

    def _condition_end(self, cond: Node) -> int | None:
        for name in ("name", "condition"):
            child = cond.child_by_field_name(name)
            if child is not None:
                return child.end_byte
        return None

    # -- diagnostics ----------------------------------------------------------------------
    def diag(
        self, rule_id: str, start: int, end: int, message: str | None = None, hint: str | None = None
    ) -> Diagnostic:
        info = rule_info(rule_id)
        line, col = self.lines.line_col(start)
        return Diagnostic(
            rule=rule_id,
            severity=info.severity,
            start=start,
            end=end,
            line=line,
            col=col,
            message=message or info.title,
            hint=info.hint if hint is None else hint,
            source_line=self.lines.line_text(line),
        )

    @cached
    def suppressions(self) -> dict[int, frozenset[str] | None]:
        """line -> rule ids silenced on it (None: all), from `// hipify-py: ignore[...]` comments."""
        result: dict[int, frozenset[str] | None] = {}
        for m in _IGNORE.finditer(self.source):
            if self.classify(m.start(), m.end()) != Where.COMMENT:
                continue
            ids = None if m.group(1) is None else frozenset(_RULE_ID.findall(m.group(1).decode()))
            line, _ = self.lines.line_col(m.start())
            # The comment covers its own line and the next one (a comment on the line above).
            for target in (line, line + 1):
                prev = result.get(target, frozenset())
                result[target] = None if ids is None or prev is None else prev | ids
        return result

    def suppressed(self, diagnostic: Diagnostic) -> bool:
        if diagnostic.rule in self.options.ignore_rules:
            return True
        if diagnostic.line not in self.suppressions:
            return False
        ids = self.suppressions[diagnostic.line]
        return ids is None or diagnostic.rule in ids
