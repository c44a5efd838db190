"""The CUDA names of a file that HIP merges into one (cudaError_t and CUresult -> hipError_t): what
rules/collisions.py checks. Its own module so collisions.py stays under the size limit."""

from __future__ import annotations

from collections import defaultdict

from hipify_py.analysis.context import Context
from hipify_py.data.renames import renames_for
from hipify_py.rules.identifiers import replacement


def merge_candidates(ctx: Context) -> tuple[dict[bytes, bytes], set[bytes]]:
    """(CUDA name -> HIP name it becomes, HIP names that two different spellings of the file become).

    Only names present in the file count, so a file without two members of one merge set costs one
    identifier scan and a set intersection.
    """
    present = ctx.identifiers
    targets: dict[bytes, bytes] = {}
    spellings: dict[bytes, set[bytes]] = defaultdict(set)
    for_target = renames_for(ctx.target).names if ctx.target else {}
    for name in ctx.tables.candidates.keys & present:
        if name not in ctx.tables.names:
            continue  # a renamed namespace (cub)
        rename = for_target.get(name)  # what the target spells it (rules/identifiers.py writes that)
        if rename is not None and rename.hip == rename.cuda:
            continue  # kept as written
        new = rename.hip if rename is not None else replacement(ctx.tables.names[name], ctx.options)[0]
        if not new:
            continue
        target = new.encode()
        targets[name] = target
        spellings[target].add(name)
    merged = {t for t, names in spellings.items() if len(names) > 1 or t in present}
    return targets, merged
