"""libcu++'s cuda::std names (mappings/hand-kept/libcudacxx-std.yaml) are the C++ standard library's: every
exact name of the table is declared in namespace std by the header the table names, at C++17 under every
hipcc present, and the names it limits to C++20 (`device_limits`) at C++20, as the translation (HIP156,
HIP157) assumes."""

from __future__ import annotations

from pathlib import Path

import pytest
from toolchains import Toolchain, params, require, syntax_check

from hipify_py.rules.libcudacxx_std import std_names

_CXX20 = frozenset({"span", "bit"})  # headers that C++17 does not have


def _probe(names: dict[str, str]) -> str:
    headers = sorted({h for h in names.values() if h not in _CXX20})
    lines = ["#include <hip/hip_runtime.h>", *(f"#include <{h}>" for h in headers)]
    lines += [f"#include <{h}>" for h in sorted(_CXX20 & set(names.values()))]
    lines += ["namespace probe {", *(f"using std::{n};" for n in sorted(names)), "}", ""]
    return "\n".join(lines)


@pytest.mark.parametrize("chain", params())
def test_every_name_is_the_standard_librarys(chain: Toolchain, tmp_path: Path) -> None:
    hipcc = require(chain)
    table = std_names()
    cxx17 = tmp_path / "cxx17.hip"
    cxx17.write_text(_probe(dict(table.headers)))
    done = syntax_check(hipcc, cxx17)
    assert done.returncode == 0, done.stderr[-4000:]


@pytest.mark.parametrize("chain", params())
def test_the_cxx20_names_are_cxx20s(chain: Toolchain, tmp_path: Path) -> None:
    hipcc = require(chain)
    table = std_names()
    names = {
        n: header for n, (header, why) in table.limited.items() if "C++20" in why and "-std=c++20" in why
    }
    assert {"span", "bit_cast", "identity"} <= set(names)
    probe = tmp_path / "cxx20.hip"
    probe.write_text(_probe(names))
    if syntax_check(hipcc, probe, "-std=c++20").returncode != 0 and chain.version == "5.2":
        pytest.skip("HIP 5.2's clang and libstdc++ lack C++20's <span>/<bit> on this host")
    done = syntax_check(hipcc, probe, "-std=c++20")
    assert done.returncode == 0, done.stderr[-4000:]
    later = syntax_check(hipcc, probe)  # -std=c++17: they are not there
    assert later.returncode != 0
