"""libcu++'s target dispatch (<nv/target>) under hipcc: the blocks it never compiles.

`NV_IF_TARGET(query, (then)[, (else)])`, `NV_IF_ELSE_TARGET` and `NV_DISPATCH_TARGET(query, (block),
...)` keep the block of the first query that holds. On AMD no NVIDIA architecture query holds
(`NV_PROVIDES_SM_<v>`, `NV_IS_EXACTLY_SM_<v>`, `NV_HAS_FEATURE_SM_<v>a`), nor does `NV_NO_TARGET`:
every HIP definition of them (hipify-py's, header-shims.yaml; ROCm's libhipcxx; rocThrust 7's) is 0.
Their blocks are code hipcc never compiles, like the body of `#if __CUDA_ARCH__ >= 700`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from hipify_py.analysis.callargs import Span, from_text
from hipify_py.util.lazyre import lazy

DISPATCH = lazy(rb"(?<![\w$])(?:NV_IF_TARGET|NV_IF_ELSE_TARGET|NV_DISPATCH_TARGET)(?![\w$])")
# a query that holds on no AMD GPU, in any pass
ARCH_QUERY = lazy(rb"NV_(?:PROVIDES_SM|IS_EXACTLY_SM|HAS_FEATURE_SM)_\w+|NV_NO_TARGET")


class ArchBlock(NamedTuple):
    query: Span
    block: Span


def arch_blocks(source: bytes, names: Iterable[Span]) -> list[ArchBlock]:
    """The (query, block) pairs hipcc never compiles, for the dispatch macros named at `names`."""
    found = []
    for name in names:
        call = from_text(source, name)
        if call is None:
            continue
        args = call.args
        # NV_IF_TARGET's else and NV_IF_ELSE_TARGET's else follow a query; a dispatch is all pairs
        pairs = args[:2] if source[name[0] : name[1]] != b"NV_DISPATCH_TARGET" else args
        for i in range(0, len(pairs) - 1, 2):
            query, block = pairs[i], pairs[i + 1]
            if ARCH_QUERY.fullmatch(source, query[0], query[1]):
                found.append(ArchBlock(query, block))
    return found
