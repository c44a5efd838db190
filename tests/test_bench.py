"""The benchmark's corpus builder: deterministic, renamed copies, still translatable. No timing here."""

from __future__ import annotations

import collections
import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hipify_py.pipeline.translate import default_tables, translate

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench", module)  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


def _snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_corpus_is_deterministic_and_counted(tmp_path: Path) -> None:
    bench = _bench()
    a = bench.build_corpus(tmp_path / "a", scale=0.1)
    b = bench.build_corpus(tmp_path / "b", scale=0.1)
    snap_a, snap_b = _snapshot(a.root), _snapshot(b.root)
    assert snap_a == snap_b
    assert a.files == len(snap_a) > 50
    assert a.lines == sum(t.count(b"\n") for t in snap_a.values())
    assert a.bytes == sum(len(t) for t in snap_a.values())


def test_copies_rename_user_symbols_but_keep_cuda_names(tmp_path: Path) -> None:
    bench = _bench()
    source = b"__global__ void scale(float* x) { x[0] = 1; }\n"
    source += b"int main() { scale<<<1, 1>>>(0); cudaFree(0); }\n"
    renamed = bench.rename_symbols(source, b"c7")
    assert b"scale_c7<<<" in renamed and b"void scale_c7(" in renamed
    assert b"cudaFree(0)" in renamed and b"int main()" in renamed


@pytest.mark.slow
def test_corpus_files_differ_and_translate(tmp_path: Path) -> None:
    bench = _bench()
    corpus = bench.build_corpus(tmp_path / "c", scale=0.2)
    texts = [p.read_bytes() for p in corpus.root.rglob("*") if p.is_file()]
    assert len(set(texts)) == len(texts), "every corpus file must be distinct"
    changed = sum(translate(t).text != t for t in texts)
    assert changed > len(texts) // 2


def test_renaming_keeps_every_cuda_api_name(tmp_path: Path) -> None:
    """Per seed file: the CUDA names the tables know occur exactly as often after renaming."""
    bench = _bench()
    names = default_tables().names
    ident = re.compile(rb"[A-Za-z_]\w*")
    examples, fixtures = bench.corpus_inputs()
    renamed_any = False
    for path in examples + fixtures:
        source = path.read_bytes()
        copy = bench.rename_symbols(source, b"c3v1")
        before = collections.Counter(t for t in ident.findall(source) if t in names)
        after = collections.Counter(t for t in ident.findall(copy) if t in names)
        assert before == after, path
        renamed_any |= b"_c3v1" in copy
    assert renamed_any


def test_paired_summary_is_torch_over_ours_round_by_round() -> None:
    bench = _bench()
    line = bench.paired_summary([0.1, 0.2, 0.1, 0.2], [0.2, 0.6, 0.15, 0.5])  # ratios 2, 3, 1.5, 2.5
    assert line.startswith("median 2.25x (quartiles 2.00-3.00x, 3 of 4 rounds >= 2x;")
    assert "ours median 0.150 s, torch 0.350 s" in line
