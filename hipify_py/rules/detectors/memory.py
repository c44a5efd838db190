"""Memory pitfalls: managed memory (HIP205), __ldg on non-const data (HIP207), the 64 KiB LDS
limit (HIP208).
"""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import TYPE_SIZES
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import (
    Scan,
    call_arguments,
    declared_here,
    match_text,
    report,
    split_args,
)
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

LDS_LIMIT = 64 * 1024  # bytes of LDS (shared memory) per workgroup on AMD GPUs


_MANAGED = lazy(rb"(?:cuda(?:MallocManaged|MemAdvise|MemPrefetchAsync|StreamAttachMemAsync)|__managed__)\b")


def managed_memory(ctx: Context, scan: Scan) -> RuleResult:
    return report(
        *(
            ctx.diag(
                "HIP205", m.start(), m.end(), f"`{match_text(m)}`: managed memory behaves differently on AMD"
            )
            for m in scan.code(_MANAGED, keep=lambda m: not declared_here(ctx, m))
        )
    )


_LDG = lazy(rb"__ldg\s*\(\s*&?\s*\(?\s*(\w+)")


def ldg_non_const(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_LDG):
        declared = _declaration_text(ctx, m.start(), m.group(1))
        if declared is not None and b"const" not in declared:
            msg = f"__ldg on `{match_text(m, 1)}`, which is not const: HIP's __ldg is a plain load"
            result.diagnostics.append(ctx.diag("HIP207", m.start(), m.end(), msg))
    return result


def _declaration_text(ctx: Context, offset: int, name: bytes) -> bytes | None:
    """Text of the parameter/declaration of `name` in the function around offset, if found."""
    node: Node | None = ctx.root.descendant_for_byte_range(offset, offset)
    while node is not None and node.type != "function_definition":
        node = node.parent
    if node is None:
        return None
    body_start = node.child_by_field_name("body")
    head_end = body_start.start_byte if body_start is not None else node.end_byte
    pattern = re.compile(rb"([\w:<>\s*&]*?[\s*&])" + re.escape(name) + rb"\s*(?:[,)=;\[])")
    head = ctx.source[node.start_byte : head_end]
    m = pattern.search(head)
    if m is None:
        m = pattern.search(ctx.source, head_end, offset)
    return m.group(1) if m else None


_MAX_DYN_SHMEM = lazy(rb"\b(?:cuda|hip)FuncSetAttribute\s*\(")
_SHARED_DECL = lazy(
    rb"__shared__\s+((?:\w+\s*::\s*)*\w+(?:\s+(?:int|long|short|char))*)\s*\**\s*\w+\s*((?:\[[^\]]+\]\s*)+);"
)
_SIZEOF = lazy(rb"\bsizeof\s*\(\s*([\w\s]+?)\s*\)")


def lds_limit(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    for m in scan.code(_MAX_DYN_SHMEM) if b"MaxDynamicSharedMemorySize" in ctx.source else ():
        args = split_args(call_arguments(ctx.source, m.end()))
        if len(args) != 3 or not args[1].endswith(b"FuncAttributeMaxDynamicSharedMemorySize"):
            continue
        size = _evaluate(args[2])
        if size is not None and size > LDS_LIMIT:
            msg = f"requests {size} bytes of dynamic shared memory; AMD GPUs have 64 KiB of LDS per workgroup"
            result.diagnostics.append(ctx.diag("HIP208", m.start(), m.end(), msg))
    for m in scan.code(_SHARED_DECL):
        elem = TYPE_SIZES.get(b" ".join(m.group(1).split()))
        dims = [_evaluate(d) for d in _DIMENSION.findall(m.group(2))]
        if elem is None or any(d is None for d in dims):
            continue
        total = elem
        for d in dims:
            total *= d  # type: ignore[operator]
        if total > LDS_LIMIT:
            msg = f"__shared__ array of {total} bytes exceeds the 64 KiB LDS of AMD GPUs"
            result.diagnostics.append(ctx.diag("HIP208", m.start(), m.end(), msg))
    return result


_INT_SUFFIX = lazy(rb"(?<=\d)[uUlL]+\b")
_DIMENSION = lazy(rb"\[([^\]]+)\]")


def _evaluate(expr: bytes) -> int | None:
    """Integer value of a literal arithmetic expression (with sizeof of basic types), else None."""
    if expr.strip().isdigit():
        return int(expr)
    text = _SIZEOF.sub(lambda s: str(TYPE_SIZES.get(b" ".join(s.group(1).split()), "x")).encode(), expr)
    text = _INT_SUFFIX.sub(b"", text)
    import ast  # why here: ~1 ms of every run's start-up, for the few sizes that are not a number

    try:
        tree = ast.parse(text.decode("ascii"), mode="eval")
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None
    allowed = (ast.Expression, ast.BinOp, ast.Constant, ast.Add, ast.Sub, ast.Mult, ast.LShift, ast.FloorDiv)
    if not all(isinstance(n, allowed) for n in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<size>", "eval"), {"__builtins__": {}})  # literals only (checked above)
    except ArithmeticError:
        return None
    return value if isinstance(value, int) else None


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=(
        (10, managed_memory, (b"anaged", b"cudaMemAdvise", b"cudaMemPrefetch", b"AttachMem")),
        (180, ldg_non_const, (b"__ldg",)),
        (190, lds_limit, (b"__shared__", b"FuncSetAttribute")),
    ),
    texts=(
        Rule(
            "HIP205",
            "managed-memory",
            Severity.WARNING,
            "Managed (unified) memory: supported, but coherence and speed depend on the AMD GPU",
            "Run with HSA_XNACK=1 on GPUs that support XNACK (MI200, MI300) for page migration; otherwise "
            "managed memory may be pinned host memory and slow. Prefer explicit hipMalloc/hipMemcpy on hot "
            "paths.",
            "hipMallocManaged, __managed__ and the advise/prefetch calls compile, but page migration needs "
            "XNACK (HSA_XNACK=1) and is unavailable on consumer GPUs; hipMemAdvise hints differ.",
        ),
        Rule(
            "HIP207",
            "ldg-non-const",
            Severity.INFO,
            "__ldg on memory that is not const",
            "Declare the pointer `const T* __restrict__`; the compiler then emits the cached load itself.",
            "HIP implements __ldg as an ordinary load; the read-only-cache benefit only comes from const "
            "__restrict__ pointers.",
        ),
        Rule(
            "HIP208",
            "lds-limit",
            Severity.ERROR,
            "Shared memory above the 64 KiB LDS limit of AMD GPUs",
            "Tile the data so one workgroup uses at most 64 KiB, or keep part of it in registers or global "
            "memory.",
            "NVIDIA GPUs allow up to 227 KiB of shared memory per block with an opt-in attribute; AMD GPUs "
            "provide 64 KiB of LDS per workgroup (MI300 included), so the launch fails.",
        ),
    ),
    fixtures=(
        "detectors/managed_memory*",
        "detectors/lds_limit*",
    ),
)
