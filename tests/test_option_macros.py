"""Error findings in code only a build option compiles (`#ifdef PTX`): a warning when nothing in the
project defines the option, an error as soon as anything does (another file, a header, a build file,
the command line), whether the results come from a worker or from the cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, load_script
from toolchains import Toolchain, params, require

from hipify_py.analysis.defines import file_defines, is_option, option_macros
from hipify_py.analysis.option_branches import option_branches
from hipify_py.cli.main import main
from hipify_py.data.predefined import hip_predefined_macros
from hipify_py.pipeline.translate import translate
from hipify_py.project.option_macros import build_defines, settle

KERNEL = b"""#include <cuda_runtime.h>
#include "opts.h"
__global__ void k(unsigned *p) {
#ifdef PTX
  asm("mov.u32 %0, %%warpid;" : "=r"(p[0]));
#endif
  p[1] = 1;
}
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPIFY_PY_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))


def project(tmp_path: Path, files: dict[str, str | bytes]) -> Path:
    root = tmp_path / "proj"  # why a subfolder: build files beside the tree's parents count too
    for name, data in {"k.cu": KERNEL, "opts.h": b"// options\n", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data.encode() if isinstance(data, str) else data)
    return root


def ptx_finding(tmp_path: Path, *args: object) -> dict:
    report = tmp_path / "report.json"
    result = CliRunner().invoke(
        main, ["convert", "--hip-version", "5.2", "--check", "--report", str(report), *map(str, args)]
    )
    assert report.exists(), result.output
    found = [
        d for f in json.loads(report.read_text())["files"] for d in f["diagnostics"] if d["rule"] == "HIP204"
    ]
    assert len(found) == 1, found
    return found[0]


def test_nothing_defines_the_option_warning(tmp_path: Path) -> None:
    d = ptx_finding(tmp_path, project(tmp_path, {}))
    assert d["severity"] == "warning"
    assert "only compiled when PTX is defined" in d["message"]


@pytest.mark.parametrize(
    "files",
    [
        {"opts.h": "#define PTX 1\n"},  # a header of the project
        {"sub/other.cu": "#  define PTX\n"},  # any other source of the tree
        {"Makefile": "CFLAGS += -O3 -DPTX\nall:\n\tnvcc $(CFLAGS) k.cu\n"},
        {"CMakeLists.txt": "add_compile_definitions(FOO PTX=1)\n"},
        {"CMakeLists.txt": "target_compile_definitions(app PRIVATE\n  PTX)\n"},
        {"config.h.in": "#cmakedefine PTX\n"},
    ],
    ids=["header", "other-source", "makefile", "cmake-add", "cmake-target", "cmakedefine"],
)
def test_something_defines_the_option_error(tmp_path: Path, files: dict[str, str]) -> None:
    # --no-build-files: a build file the run does not convert still says what the build defines
    assert ptx_finding(tmp_path, "--no-build-files", project(tmp_path, files))["severity"] == "error"


def test_makefile_option_off_by_default_warning(tmp_path: Path) -> None:
    makefile = "PTX_ASM = no\nifeq ($(PTX_ASM),yes)\n  CFLAGS += -DPTX\nendif\n"
    d = ptx_finding(tmp_path, project(tmp_path, {"Makefile": makefile}))
    assert d["severity"] == "warning"
    assert "only compiled when PTX is defined, which the build does only when asked" in d["message"]
    assert "ifeq ($(PTX_ASM),yes)" in d["message"]


def test_build_file_beside_the_converted_folder(tmp_path: Path) -> None:
    root = project(tmp_path, {"src/k.cu": KERNEL, "src/opts.h": ""})
    (root / "k.cu").unlink()
    (root / "compile_commands.json").write_text('[{"command": "nvcc -DPTX -c src/k.cu"}]')
    assert ptx_finding(tmp_path, root / "src")["severity"] == "error"


@pytest.mark.parametrize(
    ("kernel_at", "severity"),
    [("a/k.cu", "warning"), ("include/k.cuh", "error")],
    ids=["own-project", "shared-header"],
)
def test_build_files_define_for_their_own_folder(tmp_path: Path, kernel_at: str, severity: str) -> None:
    # a tree of projects: b's Makefile turns PTX on for b; a's only when asked. a's kernel stays a
    # warning; a header under no project's build file may be built by b, so it stays an error
    root = project(tmp_path, {kernel_at: KERNEL, "a/opts.h": "", "include/opts.h": ""})
    (root / "k.cu").unlink()
    (root / "a/Makefile").write_text("PTX_ASM = no\nifeq ($(PTX_ASM),yes)\n  CFLAGS += -DPTX\nendif\n")
    (root / "b/Makefile").parent.mkdir()
    (root / "b/Makefile").write_text("CFLAGS += -DPTX\n")
    assert ptx_finding(tmp_path, root)["severity"] == severity


def test_command_line_define(tmp_path: Path) -> None:
    assert ptx_finding(tmp_path, "-D", "PTX=1", project(tmp_path, {}))["severity"] == "error"


def test_named_file_sees_its_headers(tmp_path: Path) -> None:
    # pre-commit names the staged file only: the header it includes still counts
    root = project(tmp_path, {"opts.h": "#define PTX\n"})
    assert ptx_finding(tmp_path, root / "k.cu")["severity"] == "error"


def test_angled_include_found_in_a_folder_of_the_run(tmp_path: Path) -> None:
    # OPS: the run converts src/k.cu and include/rt.h; <rt.h> and its <core.h> come through the build's
    # -I include/, and core.h, which the run does not convert, switches the option on
    kernel = KERNEL.replace(b'#include "opts.h"', b"#include <rt.h>")
    root = project(
        tmp_path,
        {"src/k.cu": kernel, "include/rt.h": "#include <core.h>\n", "include/core.h": "#define PTX 1\n"},
    )
    (root / "k.cu").unlink()
    assert ptx_finding(tmp_path, root / "src", root / "include" / "rt.h")["severity"] == "error"
    # without the header that defines it, a warning as before
    (root / "include" / "core.h").write_text("// no options\n")
    assert (
        ptx_finding(tmp_path, "--no-cache", root / "src", root / "include" / "rt.h")["severity"] == "warning"
    )


def test_cached_results_carry_the_defines(tmp_path: Path) -> None:
    root = project(tmp_path, {"opts.h": "#define PTX\n"})
    assert ptx_finding(tmp_path, root)["severity"] == "error"
    assert ptx_finding(tmp_path, root)["severity"] == "error"  # every file a cache hit
    (root / "opts.h").write_text("// PTX off\n")
    assert ptx_finding(tmp_path, root)["severity"] == "warning"  # k.cu still a hit


def test_output_is_the_same_either_way(tmp_path: Path) -> None:
    root = project(tmp_path, {})
    out1, out2 = tmp_path / "o1", tmp_path / "o2"
    for out in (out1, out2):
        result = CliRunner().invoke(main, ["convert", "--hip-version", "5.2", "-o", str(out), str(root)])
        assert result.exit_code == 0, result.output
        (root / "opts.h").write_text("#define PTX\n")
    assert (out1 / "k.cu").read_bytes() == (out2 / "k.cu").read_bytes()


# -- the pure parts -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("condition", "needs"),
    [
        ("#ifdef PTX", ["PTX"]),
        ("#if PTX", ["PTX"]),
        ("#if defined(VERIFY) && N > 2", ["N", "VERIFY"]),
        ("#ifndef NO_PTX\n#else", ["NO_PTX"]),
        ("#if defined(A) || defined(B)", []),
        ("#if !PTX", []),
        ("#ifndef PTX", []),
        ("#ifdef __CUDACC__", []),  # the compiler's, not an option
        ("#ifdef M_PI", []),  # a library's
        ("#if defined(USE_MPI) && defined(__HIPCC__)", ["USE_MPI"]),
        ("#if __has_include(<cudnn.h>)", []),
    ],
)
def test_option_branches(condition: str, needs: list[str]) -> None:
    src = f"{condition}\ncode();\n#endif\n".encode()
    spans = option_branches(src, is_option)
    assert list(option_macros(spans, src.index(b"code"))) == needs


def test_nested_branches_need_every_option() -> None:
    src = b"#ifdef A\n#ifndef B\n#else\ncode();\n#endif\n#endif\n"
    assert option_macros(option_branches(src, is_option), src.index(b"code")) == ("A", "B")


def test_known_cuda_names_are_not_options() -> None:
    assert is_option(b"USE_FP16")
    assert not is_option(b"CUDART_VERSION", {b"CUDART_VERSION"}.__contains__)
    assert not is_option(b"NDEBUG") and not is_option(b"_OPENMP") and not is_option(b"linux")


@pytest.mark.parametrize("chain", params())
def test_predefined_probe_matches_each_hipcc(chain: Toolchain) -> None:
    """scripts/probe_predefined_macros.py --check against the committed table of every target."""
    hipcc = require(chain)
    probe = load_script("probe_predefined_macros")
    out = REPO / "mappings" / "probed" / f"{probe.PREFIX}{chain.version}.yaml"
    assert probe.main(["--hipcc", hipcc, "--check", "--out", str(out)]) == 0


@pytest.mark.parametrize("version", ["5.2", "6.4", "7.2"])
def test_reserved_names_hipcc_never_defines_are_options(version: str) -> None:
    predefined = hip_predefined_macros(version)
    assert {b"__GNUC__", b"__clang__", b"__HIP_DEVICE_COMPILE__", b"__GFX9__", b"_OPENMP"} <= predefined
    assert is_option(b"__PTX__", predefined=predefined) and is_option(b"__BORLANDC__", predefined=predefined)
    for name in (b"__GNUC__", b"__FAST_MATH__", b"__CUDACC_RDC__", b"__STDC_VERSION__", b"__GFX13__"):
        assert not is_option(name, predefined=predefined), name
    assert not is_option(b"__PTX__")  # no probe given: reserved names stay the compiler's


def test_build_defines() -> None:
    text = 'CFLAGS=-DA -D B=2 /DC\nadd_definitions(-DD)\nset(X "-DE")\n#cmakedefine01 F\nAC_DEFINE([G], 1)\n'
    assert dict.fromkeys("ABCDEFG", "").items() <= build_defines(text, "CMakeLists.txt").items()
    assert "X" not in build_defines("CXX=nvcc -x cu\n", "Makefile")


MAKEFILE = """VERIFY = no
MODE ?= fast
ifeq ($(VERIFY),yes)
  CFLAGS += -DVERIFY
endif
ifneq "$(MODE)" "fast"
  CFLAGS += -DSLOW
else
  CFLAGS += -DFAST
endif
ifeq ($(GPU),nvidia)  # GPU comes from the environment: unknown
  CFLAGS += -DPTX
endif
ifdef VERIFY
  CFLAGS += -DHAS_VERIFY
endif
all:
\tnvcc $(CFLAGS) -DALWAYS k.cu
"""


def test_makefile_options_off_by_default() -> None:
    found = build_defines(MAKEFILE, "Makefile")
    assert found == {
        "VERIFY": "ifeq ($(VERIFY),yes)",
        "SLOW": 'ifneq "$(MODE)" "fast"',
        "FAST": "",
        "PTX": "",
        "HAS_VERIFY": "",
        "ALWAYS": "",
    }


CMAKE = """option(WITH_CUDA "CUDA backend" OFF)
option(WITH_CUDNN "cuDNN backend" OFF)  # off by default
option(WITH_MKL "MKL" ON)
option(CUDA_DYNAMIC_LOADING "a CUDA option, not the CUDA switch")
if(WITH_CUDA)
  add_definitions(-DCT2_WITH_CUDA -DUSE_GPU)
  if(WITH_CUDNN)
    add_definitions(-DCT2_WITH_CUDNN)
  endif()
  if(CUDA_DYNAMIC_LOADING)
    add_definitions(-DCT2_WITH_CUDA_DYNAMIC_LOADING)
  else()
    add_definitions(-DSTATIC_CUDA)
  endif()
endif()
if(WITH_MKL)
  add_compile_definitions(CT2_WITH_MKL)
endif()
if(WITH_CUDNN OR WIN32)
  add_definitions(-DEITHER)
endif()
if(UNDECLARED)
  add_definitions(-DFROM_ELSEWHERE)
endif()
"""


def test_cmake_options_off_by_default() -> None:
    """CTranslate2: `option(WITH_CUDNN ... OFF)` and `if(WITH_CUDNN) add_definitions(-DCT2_WITH_CUDNN)`.
    The CUDA build's own switch is on in the build translated; a condition the file does not declare
    as an option (or an OR) counts as taken."""
    assert build_defines(CMAKE, "CMakeLists.txt") == {
        "CT2_WITH_CUDA": "",
        "USE_GPU": "",
        "CT2_WITH_CUDNN": "-DWITH_CUDNN=ON",
        "CT2_WITH_CUDA_DYNAMIC_LOADING": "-DCUDA_DYNAMIC_LOADING=ON",
        "STATIC_CUDA": "",
        "CT2_WITH_MKL": "",
        "EITHER": "",
        "FROM_ELSEWHERE": "",
    }


@pytest.mark.parametrize(
    ("macro", "severity"),
    [("CT2_WITH_CUDNN", "warning"), ("CT2_WITH_CUDA", "error"), ("CT2_WITH_CUDA_DYNAMIC_LOADING", "warning")],
)
def test_a_library_switch_the_build_leaves_off(macro: str, severity: str) -> None:
    """A name that reads as a CUDA switch (`*_WITH_CUDNN`) is off where the build file says which option
    turns it on: CTranslate2's `#include <cudnn.h>` is not compiled by its default CUDA build."""
    (finding,) = [d for d in translate(KERNEL).diagnostics if d.rule == "HIP204"]
    finding = finding._replace(requires=(macro,))
    settled = settle([finding], build_defines(CMAKE, "CMakeLists.txt"))[0]
    assert str(settled.severity) == severity
    if severity == "warning":
        assert "only when asked: `-DWITH_CUDNN=ON`" in settled.message or "DYNAMIC" in settled.message


def test_translate_marks_and_settle_decides() -> None:
    result = translate(KERNEL)
    (finding,) = [d for d in result.diagnostics if d.rule == "HIP204"]
    assert finding.requires == ("PTX",) and str(finding.severity) == "error"
    assert str(settle([finding], {})[0].severity) == "warning"
    assert settle([finding], {"PTX": ""})[0] == finding
    assert file_defines(b"#define A 1\n  #  define B(x) x\n#undef C\n") == ("A", "B")


@pytest.mark.parametrize("switch", ["REALM_USE_CUDA", "USE_CUDA", "KOKKOS_ENABLE_CUDA", "HAVE_CUBLAS"])
def test_a_cuda_build_switch_is_on_in_the_build_translated(switch: str) -> None:
    """Legion's `#ifdef REALM_USE_CUDA` code: its generated config header or the command line defines the
    switch in every CUDA build, so an error there is one (not "nothing defines it")."""
    (finding,) = [d for d in translate(KERNEL).diagnostics if d.rule == "HIP204"]
    finding = finding._replace(requires=(switch,))
    assert settle([finding], {})[0] == finding
    aware = finding._replace(requires=("USE_CUDA_AWARE_MPI",))  # an option of the CUDA build, not its switch
    assert str(settle([aware], {})[0].severity) == "warning"


def test_cmake_modules_of_the_project_define_for_it(tmp_path: Path) -> None:
    # XGBoost: cmake/Utils.cmake adds -DXGBOOST_USE_CUDA=1 to the targets built from src/, which is the
    # folder converted; the module beside it (not above it) counts for the project around it
    root = project(tmp_path, {"src/k.cu": KERNEL, "src/opts.h": ""})
    (root / "k.cu").unlink()
    assert ptx_finding(tmp_path, root / "src")["severity"] == "warning"
    (root / "cmake").mkdir()
    module = "function(set_cuda_flags target)\n  target_compile_definitions(${target} PRIVATE -DPTX=1)\n"
    (root / "cmake/Utils.cmake").write_text(module + "endfunction()\n")
    assert ptx_finding(tmp_path, root / "src")["severity"] == "error"


def test_cmake_modules_in_a_differently_named_folder_define_for_the_project(tmp_path: Path) -> None:
    # QUICK keeps its modules in quick-cmake/ (QUICKCudaConfig.cmake appends -DUSE_LEGACY_ATOMICS);
    # a folder whose name does not say it holds CMake modules is no module folder
    root = project(tmp_path, {"src/k.cu": KERNEL, "src/opts.h": ""})
    (root / "k.cu").unlink()
    module = "set(QUICK_FLAGS ${QUICK_FLAGS} -DPTX=1)\n"
    (root / "test_cmake_flags").mkdir()  # the word alone (a sibling test's folder) names no module folder
    (root / "test_cmake_flags/Flags.cmake").write_text(module)
    assert ptx_finding(tmp_path, root / "src")["severity"] == "warning"
    (root / "quick-cmake").mkdir()
    (root / "quick-cmake/QUICKCudaConfig.cmake").write_text(module)
    assert ptx_finding(tmp_path, root / "src")["severity"] == "error"


MESON = """project('p', 'cpp')
if get_option('ptx') and nvcc.found()
  add_project_arguments('-DPTX', language : 'cpp')  # only with -Dptx=true
elif get_option('plain')
  add_project_arguments('-DPLAIN', language : 'cpp')
endif
if get_option('a') or get_option('b')  # unknown
  add_project_arguments('-DEITHER', language : 'cpp')
endif
if not get_option('ptx')
  add_project_arguments('-DNO_PTX', language : 'cpp')
endif
add_project_arguments('-DALWAYS', language : 'cpp')
"""
MESON_OPTIONS = """option('ptx', type: 'boolean', value: false, description: 'PTX kernels')
option('plain',
       type: 'boolean',
       value: true)
"""


def test_meson_options_off_by_default() -> None:
    """A -D under `if get_option(X)` whose boolean option meson_options.txt leaves false (lc0's
    `-DUSE_CUDNN` under `if get_option('cudnn')`) is a build option; without the defaults, defined."""
    found = build_defines(MESON, "meson.build", MESON_OPTIONS)
    assert found == {"PTX": "meson option ptx", "PLAIN": "", "EITHER": "", "NO_PTX": "", "ALWAYS": ""}
    assert set(build_defines(MESON, "meson.build").values()) == {""}


def test_meson_option_through_the_cli(tmp_path: Path) -> None:
    root = project(tmp_path, {"meson.build": MESON, "meson_options.txt": MESON_OPTIONS})
    assert ptx_finding(tmp_path, root)["severity"] == "warning"
    (root / "src").mkdir()
    (root / "k.cu").rename(root / "src" / "k.cu")
    (root / "opts.h").rename(root / "src" / "opts.h")
    assert ptx_finding(tmp_path, root / "src")["severity"] == "warning"
    (root / "meson_options.txt").write_text(MESON_OPTIONS.replace("value: false", "value: true"))
    assert ptx_finding(tmp_path, root / "src")["severity"] == "error"  # the meson.build above the run
    (root / "meson_options.txt").write_text(MESON_OPTIONS.replace("value: false", "value: true"))
    assert ptx_finding(tmp_path, root)["severity"] == "error"
