"""benchmarks/realprojects.py: reading the corpus file, classifying one compile, the figures. No mirror,
no compiler: the harness's pure parts."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("realprojects", ROOT / "benchmarks" / "realprojects.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("realprojects", module)  # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


rp = _harness()

CORPUS = {
    "projects": [
        {
            "name": "app",
            "repo": "someone/app",
            "commit": "0123456789abcdef0123456789abcdef01234567",
            "flags": "-std=c++14 -Iinclude",
            "ref_flags": ["-std=c++14", "-DUSE_HIP -Iinclude"],
            "tus": [
                "src/plain.cu",
                {"src/a.cu": "hip/a.cpp"},
                {
                    "cuda": "src/b.cu",
                    "hip": "hip/b.cpp",
                    "flags": "-DB",
                    "ref_flags": "-DB_HIP",
                    "std": "c++17",
                },
            ],
            "excluded": [{"path": "src/mpi.cu", "reason": "MPI headers"}],
        },
        {"name": "lib", "repo": "someone/lib", "commit": "abc", "tus": ["k/x.cu"]},
    ]
}


def test_corpus_forms_and_flags() -> None:
    app, lib = rp.parse_corpus(CORPUS)
    plain, a, b = app.units
    assert plain == rp.Unit(
        "src/plain.cu", None, ("-std=c++14", "-Iinclude"), ("-std=c++14", "-DUSE_HIP", "-Iinclude")
    )
    assert (a.cuda, a.hip) == ("src/a.cu", "hip/a.cpp")
    # a TU's own flags follow the project's; its std replaces the project's, in its flags only
    assert b.flags == ("-std=c++17", "-Iinclude", "-DB")
    assert b.ref_flags == ("-std=c++14", "-DUSE_HIP", "-Iinclude", "-DB_HIP")
    assert app.translate == ("src",)  # default: the TUs' folders
    assert app.excluded == (("src/mpi.cu", "MPI headers"),)
    assert app.mirror(Path("/m")) == Path("/m/someone+app/repo")
    assert lib.units[0].flags == () and lib.units[0].ref_flags == ()


def test_corpus_overlays(tmp_path: Path) -> None:
    """A HIP version kept in a repository of its own is extracted into the tree at its folder."""
    import subprocess

    def repo(name: str, files: dict[str, str]) -> str:
        work = tmp_path / name
        for rel, text in files.items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_text(text)
        git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
        subprocess.run(["git", "init", "-q", str(work)], check=True)
        subprocess.run([*git, "add", "."], check=True)
        subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
        mirror = tmp_path / "mirrors" / f"o+{name}" / "repo"
        subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
        return subprocess.run(
            ["git", "-C", str(work), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()

    cuda, hip = repo("cuda", {"ex/a.cu": "cuda\n"}), repo("hip", {"ex/a.cu": "hip\n"})
    corpus = {
        "projects": [
            {
                "name": "p",
                "repo": "o/cuda",
                "commit": cuda,
                "overlays": [{"repo": "o/hip", "commit": hip, "path": "port"}],
                "tus": [{"ex/a.cu": "port/ex/a.cu"}],
            }
        ]
    }
    (p,) = rp.parse_corpus(corpus)
    assert p.overlays == (("o/hip", hip, "port"),)
    tree = rp.extract(p, tmp_path / "mirrors", tmp_path / "src")
    assert (tree / "ex/a.cu").read_text() == "cuda\n"
    assert (tree / "port/ex/a.cu").read_text() == "hip\n"
    # `files:`: a generated config header written in; its text is part of the tree's name and of the
    # reference compiles' cache context
    corpus["projects"][0]["files"] = [{"path": "inc/defines.h", "text": "#define X 1\n"}]
    (q,) = rp.parse_corpus(corpus)
    assert q.files == (("inc/defines.h", "#define X 1\n"),)
    tree2 = rp.extract(q, tmp_path / "mirrors", tmp_path / "src")
    assert tree2 != tree and (tree2 / "inc/defines.h").read_text() == "#define X 1\n"
    assert rp.reference_context(q) != rp.reference_context(p) == f"reference {cuda}"


def test_corpus_language_cuda_compiles_c_tus_as_hip() -> None:
    """hypre's CMake builds its .c sources as CUDA (and as HIP): `language: cuda` says so."""
    tus = ["a/x.c", {"cuda": "a/y.c", "language": "c"}, "a/z.cu"]
    base = {"name": "h", "repo": "o/h", "commit": "c", "tus": tus}
    (plain,) = rp.parse_corpus({"projects": [base]})
    assert [u.as_c(u.cuda) for u in plain.units] == [True, True, False]
    (gpu,) = rp.parse_corpus({"projects": [{**base, "language": "cuda"}]})
    assert [u.as_c(u.cuda) for u in gpu.units] == [False, True, False]


def test_corpus_rejects_duplicates() -> None:
    twice = {"projects": [{"name": "p", "repo": "o/p", "commit": "c", "tus": ["a.cu", {"cuda": "a.cu"}]}]}
    with pytest.raises(ValueError, match="twice"):
        rp.parse_corpus(twice)
    same_name = {
        "projects": [{"name": "p", "repo": "o/p", "commit": "c"}, {"name": "p", "repo": "o/q", "commit": "c"}]
    }
    with pytest.raises(ValueError, match="twice"):
        rp.parse_corpus(same_name)


def test_standards() -> None:
    assert rp.std_of(["-O3", "-std=c++14", "--std=c++20"]) == "c++20"
    assert rp.std_of(["-O3"]) == "c++17"  # nvcc's default
    assert [rp.below_cxx17(s) for s in ("c++11", "gnu++14", "c++1y", "c++17", "c++20", "gnu++2a")] == [
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert rp.with_std(["-std=c++11", "-DX"], "c++17") == ("-std=c++17", "-DX")
    assert rp.with_std(["-DX"], None) == ("-DX",)


def test_classify_compile() -> None:
    libs = frozenset({"hipcub/", "rccl/rccl.h", "hipblaslt/"})
    assert rp.classify_compile(0, "warning: x", libs) == ("ok", "")
    missing_lib = "a.cu:3:10: fatal error: 'hipcub/hipcub.hpp' file not found\n1 error generated."
    assert rp.classify_compile(1, missing_lib, libs)[0] == "environment"
    assert (
        rp.classify_compile(1, "a.cu:1:10: fatal error: 'rccl/rccl.h' file not found", libs)[0]
        == "environment"
    )
    # a CUDA header left as written is the translation's failure, not the environment's
    left = "a.cu:1:10: fatal error: 'nccl.h' file not found"
    assert rp.classify_compile(1, left, libs) == ("fail", left)
    status, first = rp.classify_compile(
        1, "In file included from a.cu:2:\nb.h:4:3: error: use of undeclared x\n", libs
    )
    assert status == "fail" and first.startswith("b.h:4:3: error")
    assert rp.classify_compile(-1, "error: hipcc timed out after 600 s", libs)[0] == "timeout"


def test_cache_key_separates_parts() -> None:
    assert rp.cache_key("ab", "c") != rp.cache_key("a", "bc")
    assert rp.cache_key(b"x", "y") == rp.cache_key("x", "y")


def test_summary_counts_reachable_apart_from_environment() -> None:
    def rec(ref: str | None, ours: str, perl: str, **extra: str) -> dict:
        r = {"project": "p", "tu": "t", "hip": "h" if ref else None, "hipify-py": {"build": ours, **extra}}
        r["hipify-perl"] = {"build": perl}
        if ref:
            r["ref"] = ref
        return r

    records = [
        rec("ok", "ok", "fail"),
        rec("ok", "fail", "fail", **{"c++17": "ok", "converted": "ok"}),  # the build's C++14 fails
        rec("ok", "environment", "fail"),  # apart
        rec("fail", "fail", "fail"),  # the authors' port does not compile: not reachable
        rec(None, "ok", "ok"),
        rec(None, "fail", "fail", finding_in_file=True),  # type: ignore[arg-type]
    ]
    ours = rp.summarize(records, "hipify-py")
    assert (ours["reachable"], ours["reachable_ok"], ours["reachable_ok_c++17"]) == (2, 1, 2)
    assert (ours["no_reference"], ours["no_reference_ok"], ours["environment"]) == (2, 1, 1)
    assert ours["reference_fails"] == 1
    assert (ours["reachable_ok_converted"], ours["no_reference_ok_converted"]) == (2, 1)
    assert "reachable_ok_converted" not in rp.summarize(records, "hipify-perl")  # it converts no build
    assert (ours["failing"], ours["failing_no_finding"]) == (2, 1)
    assert (ours["failing_converted"], ours["failing_converted_no_finding"]) == (1, 0)
    perl = rp.summarize(records, "hipify-perl")
    # set apart per tool: hipify-perl's compile of the third TU failed for its own reasons
    assert (perl["reachable"], perl["reachable_ok"], perl["environment"]) == (3, 0, 0)
    assert "failing" not in perl
    table = rp.table({"7.2": {"summary": {"hipify-py": ours, "hipify-perl": perl}}})
    assert "| HIP 7.2 | hipify-py | 1/2 (50%) | 2/2 (100%) | 2/2 (100%) | 1/2 (50%) | 1 of 2 | 1 |" in table
    assert "| HIP 7.2 | hipify-perl | 0/3 (0%) | 0/3 (0%) | - |" in table


def test_converted_flags_are_the_build_conversions() -> None:
    """The third compile's flags come from the checkout's own build-file conversion, per target: 7.2's
    rocPRIM needs C++17 (HIP405 raises the build's standard), 6.4 keeps C++14, nvcc-only flags map."""
    flags = [("-std=c++14", "-DX", "-Isrc"), ("--std=c++11", "-Xcompiler", "-fopenmp"), ("-std=c++17",)]
    on72 = rp.converted_flags(ROOT, "7.2", flags)
    assert on72[flags[0]] == ("-std=c++17", "-DX", "-Isrc")
    assert on72[flags[1]] == ("-std=c++17", "-fopenmp")
    assert on72[flags[2]] == ("-std=c++17",)
    assert rp.converted_flags(ROOT, "6.4", flags[:1])[flags[0]] == flags[0]


HELD_OUT = (
    "zjin-lcf/HeCBench",
    "ORNL/HeCBench",
    "NVIDIA/cuda-samples",
    "yuhc/gpu-rodinia",
    "siboehm/SGEMM_CUDA",
    "ANL-CESAR/XSBench",
    "ANL-CESAR/RSBench",
    "UoB-HPC/BabelStream",
    "UoB-HPC/CloverLeaf",
    "ekondis/mixbench",
    "karpathy/llm.c",
    "ggml-org/ggml",
    "ggml-org/llama.cpp",
    "NVIDIA/nccl-tests",
    "ROCm/rccl-tests",
)


def test_the_corpus_file() -> None:
    projects = rp.load_corpus(ROOT / "benchmarks" / "realprojects.yaml")
    assert len({p.repo for p in projects}) >= 10
    for p in projects:
        assert len(p.commit) == 40, p.name
        assert p.repo.lower() not in {h.lower() for h in HELD_OUT}
        assert not {o[0].lower() for o in p.overlays} & {h.lower() for h in HELD_OUT}, p.name
        assert p.units or p.excluded, p.name  # a project with nothing measured says why
        for u in p.units:
            # relative to the root, or a folder of the toolchain's own include tree (roctracer's roctx.h)
            flags = u.flags + u.ref_flags
            assert not any(f.startswith("-I/") and not f.startswith("-I/usr/include/") for f in flags), u.cuda


def test_environment_only_when_no_form_of_the_library_is_installed(tmp_path: Path) -> None:
    (tmp_path / "hipblas").mkdir()
    (tmp_path / "hipblas" / "hipblas.h").write_text("")
    libs = frozenset({"hipblas.h", "hipblas/", "rocblas/", "omp.h"})
    flat = "a.cu:1:10: fatal error: 'hipblas.h' file not found"
    # hipBLAS is installed, without the flat header ROCm 7 dropped: the translation's failure
    assert rp.classify_compile(1, flat, libs, [tmp_path])[0] == "fail"
    assert rp.classify_compile(1, flat, libs, [])[0] == "environment"
    rocblas = "a.cu:1:10: fatal error: 'rocblas/rocblas.h' file not found"
    assert rp.classify_compile(1, rocblas, libs, [tmp_path])[0] == "environment"
    assert rp.installed("hipblas/hipblas.h", [tmp_path]) and not rp.installed("omp.h", [tmp_path])


def test_results_file_merges_targets(tmp_path: Path) -> None:
    rec = {
        "project": "p",
        "tu": "a.cu",
        "hip": "a.hip",
        "ref": "ok",
        "hipify-py": {
            "build": "fail",
            "first_error": "x" * 400,
            "finding_in_file": False,
            "verdict": "silent",
        },
        "hipify-perl": {"build": "ok"},
    }
    meta = {"code": "abc", "hipify_perl": "def", "projects": [], "projects_left_out": [], "excluded": 0}
    out = tmp_path / "r.json"
    rp.write_results(
        out, "before", meta, {"7.2": {"compiler": "HIP 7.2\nclang", "summary": {}, "tus": [rec]}}
    )
    rp.write_results(out, "before", meta, {"5.2": {"compiler": "HIP 5.2", "summary": {}, "tus": [rec]}})
    data = json.loads(out.read_text())
    assert list(data["targets"]) == ["5.2", "7.2"] and data["targets"]["7.2"]["compiler"] == "HIP 7.2"
    (tu,) = data["targets"]["7.2"]["tus"]
    assert tu["hipify-py"] == {"build": "fail", "finding_in_file": False, "first_error": "x" * 160}
    assert tu["hipify-perl"] == {"build": "ok"} and tu["ref"] == "ok"
    assert sum('"tu":"a.cu"' in line for line in out.read_text().splitlines()) == 2  # one TU a line
