"""Faster forms of standard-library calls made for every file (engine/options.py): each must give
what the standard form gives."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from hipify_py.engine.options import Options, with_filename


@pytest.mark.parametrize(
    "options",
    [Options(), Options(roc=True, hip_version="6.4", ignore_rules=frozenset({"HIP101"}), filename="a.cu")],
)
def test_with_filename_is_dataclasses_replace(options: Options) -> None:
    fast, slow = with_filename(options, "dir/b.cu"), dataclasses.replace(options, filename="dir/b.cu")
    assert fast == slow and hash(fast) == hash(slow) and repr(fast) == repr(slow)
    assert pickle.dumps(fast) == pickle.dumps(slow)
    assert options.filename != "dir/b.cu"  # the original is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.filename = "c.cu"  # type: ignore[misc]
