"""C++ that CUDA's toolchain accepts and HIP's (clang, C++17) rejects.

- `register` storage class: an error in C++17 with clang (nvcc only warns): dropped, in code and macro
  bodies (never in comments or strings).
- user definitions, in the global namespace, of device functions HIP already defines there with the same
  parameter types (`__device__ double atomicAdd(double*, double)` kept for pre-Pascal GPUs, `__device__
  float atomicMax(float*, float)`, a `__hmax_nan(__half, __half)` fallback for pre-sm_80): a redefinition
  with HIP's headers. Compared against
  mappings/hip-device-functions-<HIP version>.yaml (scripts/probe_device_functions.py reads the
  installed headers); the definition is guarded out on AMD (HIP210) or, where a guard cannot be
  placed, reported (HIP123). CUDA's template overloads and default arguments are in rules/calls.py.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

from hipify_py.analysis.context import REWRITABLE, Context
from hipify_py.data import derived
from hipify_py.data.mappings import probed_dir
from hipify_py.data.tables import word_matches
from hipify_py.data.versions import read_versioned
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.edits import Edit
from hipify_py.engine.parser import Node, ancestors
from hipify_py.engine.source import newline_of
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

_REGISTER = lazy(rb"(?<![\w$])register(?![\w$])[ \t]*")
_ASM_LABEL = lazy(rb"(?<![\w$])(?:__asm__|__asm|asm)\s*\(")


def drop_register(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"register" not in ctx.source:
        return result
    for m in _REGISTER.finditer(ctx.source):
        start = m.start()
        if ctx.is_protected(start) or ctx.classify(start, start + 8) not in REWRITABLE:
            continue
        # `register` is a keyword, so in code it is the storage class; GNU explicit register variables
        # (`register float r asm("v64")`) need it and clang accepts them in C++17
        semicolon = ctx.source.find(b";", m.end())
        if _ASM_LABEL.search(ctx.source, m.end(), semicolon if semicolon >= 0 else len(ctx.source)):
            continue
        result.edits.append(Edit(start, m.end(), b""))
        result.counts["register"] += 1
    return result


# -- device functions HIP defines ------------------------------------------------------------------
DEVICE_PREFIX = "hip-device-functions-"


@functools.lru_cache(maxsize=8)
def hip_device_functions(
    hip_version: str | None = None, directory: Path | None = None
) -> Mapping[bytes, frozenset]:
    """name -> set of normalised parameter-type tuples HIP defines (for the target or nearest version)."""
    if directory is None:  # the shipped tables: built once per code stamp (hipify_py/data/derived.py)
        return derived.load("hip-device-functions", _build_device_functions, hip_version)
    return _build_device_functions(hip_version, directory)


def _build_device_functions(
    hip_version: str | None, directory: Path | None = None
) -> Mapping[bytes, frozenset]:
    _, data = read_versioned(directory or probed_dir(), DEVICE_PREFIX, hip_version)
    table: dict[bytes, set[tuple[str, ...]]] = {}
    for row in data.get("functions") or ():
        table.setdefault(row["name"].encode(), set()).add(tuple(normal_type(p) for p in row["params"]))
    return {name: frozenset(sigs) for name, sigs in table.items()}


_TOKENS = lazy(r"[A-Za-z_]\w*|::|[*&]|\S")
_DROPPED = {"__restrict__", "__restrict", "restrict", "struct", "enum", "class"}


# why module-level: compiled once from the shipped programs (util/lazyre.py), not by each worker
_INT_AFTER = lazy(r"\b(short|long|long long) int\b")
_SIGNED_CHAR = lazy(r"\bsigned (char)\b")
_SIGNED = lazy(r"\bsigned (?=int|short|long)")
_BARE_UNSIGNED = lazy(r"\bunsigned(?! (char|short|int|long))")
_STD = lazy(r"\bstd\s*::\s*(?=u?int\d+_t\b|size_t\b)")


# <cstdint>'s typedefs as hipcc's targets (Linux, LP64) define them: `uint64_t*` is HIP's `unsigned long*`
_FIXED_WIDTH = {
    "int8_t": "signed char",
    "uint8_t": "unsigned char",
    "int16_t": "short",
    "uint16_t": "unsigned short",
    "int32_t": "int",
    "uint32_t": "unsigned int",
    "int64_t": "long",
    "uint64_t": "unsigned long",
    "size_t": "unsigned long",
}


def normal_type(text: str) -> str:
    """Canonical spelling of a parameter type: `unsigned long long int *` == `unsigned long long*`."""
    tokens = [_FIXED_WIDTH.get(t, t) for t in _TOKENS.findall(_STD.sub("", text)) if t not in _DROPPED]
    if "*" not in tokens and "&" not in tokens:
        tokens = [t for t in tokens if t != "const"]  # top-level const of a by-value parameter
    words = " ".join(tokens)
    words = _INT_AFTER.sub(r"\1", words)
    words = _SIGNED_CHAR.sub(r"signed \1", words)
    words = _SIGNED.sub("", words)
    words = _BARE_UNSIGNED.sub("unsigned int", words)
    return words.replace("* *", "**").replace(" *", "*").strip()


GUARD = b"#if !defined(__HIP_PLATFORM_AMD__)"  # the HIP210 finding says which HIP function it is
_HIP_GUARDS = lazy(rb"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIPCC__|__HIP__|USE_ROCM")


def guard_device_redefinitions(ctx: Context) -> RuleResult:
    result = RuleResult()
    if b"__device__" not in ctx.source:
        return result
    table = hip_device_functions(ctx.options.hip_version)
    if not table:
        return result
    for name_node, definition, params in _redefinitions(ctx, table):
        name = ctx.source[name_node.start_byte : name_node.end_byte]
        signature = f"{name.decode()}({', '.join(params)})"
        start, end = _whole_lines(ctx.source, definition)
        if start is None or end is None:
            result.diagnostics.append(
                ctx.diag(
                    "HIP123",
                    name_node.start_byte,
                    name_node.end_byte,
                    f"{signature} is already defined by HIP: this definition is a redefinition on ROCm",
                )
            )
            continue
        nl = newline_of(ctx.source)
        result.edits.append(Edit(start, start, GUARD + nl))
        closing = b"#endif" + nl if ctx.source[:end].endswith(b"\n") else nl + b"#endif" + nl
        result.edits.append(Edit(end, end, closing))
        result.diagnostics.append(
            ctx.diag(
                "HIP210",
                name_node.start_byte,
                name_node.end_byte,
                f"{signature} is already defined by HIP: guarded out on AMD, HIP's version is used",
            )
        )
        result.counts["guarded_definitions"] += 1
    return result


def redefined_names(ctx: Context) -> frozenset[int]:
    """Offsets of the names of the file's definitions of functions HIP defines (HIP210, HIP123): on AMD
    they are not the file's own (rules/shims.py writes a helper for another overload all the same)."""
    if b"__device__" not in ctx.source:
        return frozenset()
    table = hip_device_functions(ctx.options.hip_version)
    return frozenset(node.start_byte for node, _, _ in _redefinitions(ctx, table)) if table else frozenset()


def _redefinitions(ctx: Context, table: Mapping[bytes, frozenset]) -> list[tuple[Node, Node, list[str]]]:
    found = []
    for name_node, definition in _device_definitions(ctx, table):
        params = _parameter_types(ctx.source, definition)
        if (
            params is not None
            and tuple(params) in table[ctx.source[name_node.start_byte : name_node.end_byte]]
        ):
            found.append((name_node, definition, params))
    return found


_CALLED = lazy(rb"(?<![\w$])([A-Za-z_]\w*)\s*\(")  # a name before `(`: a call, a declaration


def _device_definitions(ctx: Context, table: Mapping[bytes, frozenset]) -> list[tuple[Node, Node]]:
    present = table.keys() & ctx.identifiers  # why not `in ctx.source`: one C-level set op
    if not present:
        return []
    found = []
    # what `(?<![\w$])(name1|name2|...)\s*\(` finds, without compiling it per file
    for m in word_matches(ctx.source, present, _CALLED):
        node = ctx.root.descendant_for_byte_range(m.start(1), m.end(1))
        if node is None or node.type != "identifier" or ctx.is_protected(m.start()):
            continue
        declarator = node.parent
        if declarator is None or declarator.type != "function_declarator":
            continue
        definition = declarator.parent
        while definition is not None and definition.type in ("pointer_declarator", "reference_declarator"):
            definition = definition.parent
        if definition is None or definition.type != "function_definition":
            continue
        if definition.parent is not None and definition.parent.type == "template_declaration":
            continue
        head = ctx.source[definition.start_byte : declarator.start_byte]
        if b"__device__" not in head or not _global(definition) or _under_hip_guard(ctx, definition):
            continue
        found.append((node, definition))
    return found


_SCOPES = frozenset({"namespace_definition", "field_declaration_list", "compound_statement"})


def _global(definition: Node) -> bool:
    """Defined in the global namespace, where HIP's are: one in a namespace or a class is another
    function (FlashInfer's `flashinfer::math::tanh(float)`)."""
    return not any(parent.type in _SCOPES for parent in ancestors(definition))


def _under_hip_guard(ctx: Context, node: Node) -> bool:
    """Already in a branch chosen by a HIP/ROCm macro (a second run, or code written for HIP)."""
    for parent in ancestors(node):
        if parent.type in ("preproc_if", "preproc_ifdef", "preproc_elif", "preproc_else"):
            head = ctx.source[parent.start_byte : min(parent.end_byte, parent.start_byte + 200)].split(
                b"\n", 1
            )[0]
            if _HIP_GUARDS.search(head):
                return True
    return False


def _parameter_types(source: bytes, definition: Node) -> list[str] | None:
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    if parameters is None:
        return None
    types = []
    for param in parameters.named_children:
        if param.type == "comment":
            continue
        if param.type != "parameter_declaration":
            return None  # variadic, default values (optional_parameter_declaration): not HIP's signature
        text = source[param.start_byte : param.end_byte]
        name = _declared_name(param)
        if name is not None:
            text = source[param.start_byte : name.start_byte] + source[name.end_byte : param.end_byte]
        types.append(normal_type(text.decode("utf-8", "replace")))
    if types == ["void"]:
        return []
    return types


def _declared_name(param: Node) -> Node | None:
    node = param.child_by_field_name("declarator")
    while node is not None and node.type != "identifier":
        node = node.child_by_field_name("declarator")
    return node


def _whole_lines(source: bytes, node: Node) -> tuple[int | None, int | None]:
    """Start of the definition's first line and the end of its last line, if it has them to itself."""
    line_start = source.rfind(b"\n", 0, node.start_byte) + 1
    if source[line_start : node.start_byte].strip():
        return None, None
    nl = source.find(b"\n", node.end_byte)
    end = len(source) if nl == -1 else nl + 1
    if source[node.end_byte : end].strip():
        return None, None
    return line_start, end


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    translate={160: drop_register, 180: guard_device_redefinitions},
    texts=(
        Rule(
            "HIP123",
            "redefines-hip-device-function",
            Severity.ERROR,
            "Definition of a device function HIP already defines",
            "Remove this definition for ROCm (e.g. `#if !defined(__HIP_PLATFORM_AMD__)` around it); HIP's "
            "own function does the same.",
            "HIP's headers define this device function with the same parameter types (atomicAdd for double, "
            "atomicMax/atomicMin for float, ...; mappings/hip-device-functions-*.yaml, read from the "
            "installed headers), so this definition is a redefinition error with hipcc. Reported where the "
            "tool cannot place a guard itself (the definition shares its lines with other code).",
        ),
        Rule(
            "HIP210",
            "guarded-hip-device-function",
            Severity.WARNING,
            "Definition of a device function HIP already defines: guarded out on AMD",
            "Check that HIP's function does what this definition did (HIP's atomics are the standard ones).",
            "HIP's headers define this device function with the same parameter types, so the definition "
            "would be a redefinition error; it is wrapped in `#if !defined(__HIP_PLATFORM_AMD__)` so ROCm "
            "builds use HIP's function and other builds keep the definition.",
        ),
    ),
    loads=(hip_device_functions,),
    fixtures=(
        "cxx/register",
        "detectors/device_redefinition*",
        "cxx/hip72/half_redefinitions",
    ),
)
