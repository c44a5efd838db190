"""Build-file translation: CMake projects and Makefiles from CUDA/nvcc to HIP/hipcc.

Everything here is pure (bytes in, bytes and diagnostics out, no file I/O). Changes are Edit objects
applied in one pass, so every untouched byte (CRLF, tabs, comments) stays byte-identical.

Rules (see the docs of translate_cmake and translate_makefile for the full lists):
- HIP401 (warning): a build construct that was not understood, or a CUDA-looking token left over.
  It is reported, never guessed.
- HIP402: an nvcc-only flag or setting that was dropped, mapped with a caveat (info), or kept
  because it has no AMD counterpart (warning).

Quoted CMake strings: arguments of message() and documentation strings (option(), set(... CACHE
type "doc")) are prose and are neither rewritten nor scanned. Every other quoted or bracket argument
is data (a list of sources, flags, variable names) and is rewritten like an unquoted one, because
its meaning requires it (e.g. set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} -lineinfo")).

Modules: common (options, rule ids, source view, edits, renames), libraries (the library table),
nvcc_flags (nvcc -> hipcc), makefile, cmake_syntax (the CMake parser), cmake_args (rewrites of any
argument), cmake_commands (per-command plans), cmake (translate_cmake). Public entry points are
re-exported here. HIP404-HIP406 (info) say which AMD targets were written and why, a C++ standard
raised, and host-side HIP settings.
"""

from hipify_py.buildfiles.cmake import translate_cmake
from hipify_py.buildfiles.common import RULE_NOT_UNDERSTOOD, RULE_NVCC_FLAG, BuildOptions, build_file_kind
from hipify_py.buildfiles.makefile import translate_makefile

__all__ = [
    "RULE_NOT_UNDERSTOOD",
    "RULE_NVCC_FLAG",
    "BuildOptions",
    "build_file_kind",
    "translate_cmake",
    "translate_makefile",
]
