"""CUB block loads/stores with a warp-transpose algorithm on a block size AMD's wavefront does not
divide (HIP219).

`cub::BlockLoad<T, BLOCK_THREADS, ITEMS, BLOCK_LOAD_WARP_TRANSPOSE>` (and BlockStore, and the
_TIMESLICED variants) transposes through whole warps. CUDA needs BLOCK_THREADS to be a multiple of 32;
hipCUB maps them to rocPRIM, whose static_assert asks for a multiple of the hardware wavefront, 64 on
gfx9 (CDNA: MI100-MI300, the default --offload-arch gfx90a): a 32-thread block compiles for NVIDIA and
fails for AMD (checked with ROCm 6.4 and 7.2). The block size is often a template parameter: its value
is followed through the file's instantiations (`Test<32, ...>()` -> `Kernel<BLOCK_THREADS, ...>` ->
`BlockLoad<int, BLOCK_THREADS, ...>`) and each literal that is no multiple of 64 is reported where it
is written.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from hipify_py.analysis.context import Context
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.engine.lexer import IDENTIFIER
from hipify_py.engine.parser import Node
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan
from hipify_py.rules.detectors.templates import instantiations, template_of
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# why module-level: compiled from the shipped programs (util/lazyre.py), not by each worker
_NUMBER = lazy(rb"\d+[uU]?")

WAVEFRONT = 64  # gfx9 (CDNA); RDNA's 32 divides every size CUDA accepts
_ALGORITHM = lazy(rb"BLOCK_(?:LOAD|STORE)_WARP_TRANSPOSE(?:_TIMESLICED)?")
_BLOCKS = frozenset({b"BlockLoad", b"BlockStore"})
_CONSTANT = (
    r"(?:^[ \t]*#[ \t]*define[ \t]+{0}[ \t]+|\bconstexpr\b[^;=]*\b{0}\s*=\s*)\(?\s*(\d+)[uU]?\s*\)?\s*(?:;|$)"
)
_MAX_DEPTH = 4


class _File:
    """The file's template instantiations and template parameter lists, collected in one walk."""

    def __init__(self, source: bytes, root: Node) -> None:
        self.source = source
        self.uses: dict[bytes, list[list[Node]]] = {}  # template name -> argument lists
        self.blocks: list[list[Node]] = []  # BlockLoad/BlockStore argument lists
        for text, arguments in instantiations(source, root):
            (self.blocks if text in _BLOCKS else self.uses.setdefault(text, [])).append(arguments)
            if text in _BLOCKS:
                self.uses.setdefault(text, [])

    def text(self, node: Node) -> bytes:
        return self.source[node.start_byte : node.end_byte]


def _values(file: _File, arg: Node, depth: int = 0) -> Iterator[tuple[int, Node]]:
    """(value, the literal's node) for every value the argument takes in this file."""
    text = b"".join(file.text(arg).split())
    if _NUMBER.fullmatch(text):
        yield int(text.rstrip(b"uU")), arg
        return
    if depth >= _MAX_DEPTH or IDENTIFIER.fullmatch(text) is None:
        return
    owner = template_of(file.source, arg, text)
    if owner is None:
        constant = re.search(_CONSTANT.format(re.escape(text.decode())).encode(), file.source, re.M)
        if constant is not None:  # a #define or constexpr of the file: reported at its definition
            yield int(constant.group(1)), arg
        return
    entity, index = owner
    for arguments in file.uses.get(entity, []):
        if index < len(arguments):
            yield from _values(file, arguments[index], depth + 1)


def _is_algorithm(file: _File, arg: Node) -> bool:
    """`BLOCK_LOAD_WARP_TRANSPOSE`, also as `cub::BLOCK_LOAD_WARP_TRANSPOSE`."""
    return _ALGORITHM.fullmatch(file.text(arg).strip().rpartition(b"::")[2]) is not None


def cub_warp_transpose(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    if not _ALGORITHM.search(ctx.source):
        return result
    file = _File(ctx.source, ctx.root)
    reported: set[int] = set()
    for arguments in file.blocks:
        algorithm = next(
            (a for a in arguments[3:] if _ALGORITHM.fullmatch(file.text(a).strip().rpartition(b"::")[2])),
            None,
        )
        if algorithm is None or len(arguments) < 2:
            continue
        for value, site in _values(file, arguments[1]):
            if value % WAVEFRONT == 0 or site.start_byte in reported or scan.is_dead(site.start_byte):
                continue
            reported.add(site.start_byte)
            line = ctx.lines.line_col(algorithm.start_byte)[0]
            message = (
                f"a block of {value} threads reaches {file.text(algorithm).decode()} (line {line}): "
                "rocPRIM's warp-transpose load/store needs a multiple of the wavefront size, "
                f"{WAVEFRONT} on gfx9 (CDNA)"
            )
            result.diagnostics.append(ctx.diag("HIP219", site.start_byte, site.end_byte, message))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=((160, cub_warp_transpose, (b"WARP_TRANSPOSE",)),),
    texts=(
        Rule(
            "HIP219",
            "cub-block-not-wavefront",
            Severity.ERROR,
            "CUB warp-transpose load/store on a block size the AMD wavefront does not divide",
            "Use a block size that is a multiple of 64 for BLOCK_LOAD/STORE_WARP_TRANSPOSE on gfx9 (CDNA), "
            "or another algorithm (BLOCK_LOAD_TRANSPOSE, BLOCK_LOAD_DIRECT) for the small blocks.",
            "CUB's warp-transpose algorithms move data through whole warps: CUDA needs the block size to be "
            "a multiple of 32. hipCUB maps them to rocPRIM, which static_asserts a multiple of the hardware "
            "wavefront size: 64 on gfx9 (MI100-MI300; the default --offload-arch gfx90a), so a 32-thread "
            "block fails to compile (checked with ROCm 6.4 and 7.2). The block size is followed through the "
            "file's template instantiations and #define/constexpr constants; each value that is no multiple "
            "of 64 is reported where it is written.",
        ),
    ),
    fixtures=("detectors/cub_warp_transpose*",),
)
