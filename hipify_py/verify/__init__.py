"""Compile translated code with the installed hipcc and map the errors back to the CUDA source.

Public API (also for scripts, e.g. the prediction measurements):

    from hipify_py.verify import find_hipcc, CompileJob, compile_tu, parse_errors
    compiler = find_hipcc()                      # CompilerMissing when there is none
    out = compile_tu(compiler, CompileJob("/abs/x.hip", cwd="/abs", args=("-I.",)))
    for error in parse_errors(out.stderr):       # host/device duplicates merged
        error.where, error.text, error.notes, error.included_from

Modules: compiler (find/run hipcc), clang_output (parse diagnostics), linemap (edits -> offset map),
flags (compile_commands.json, nvcc flags), closure (the run files a TU can include: when it may start),
stage (which TUs, where, compiled beside the translation, cached),
attribute (errors -> HIP501-503 findings), session (one verify pass over a run's outcomes).
"""

from hipify_py.engine.linemap import OffsetMap, moves_of
from hipify_py.verify.clang_output import CompilerError, Location, Note
from hipify_py.verify.clang_output import parse as parse_errors
from hipify_py.verify.compiler import (
    CompileJob,
    CompileOutput,
    Compiler,
    CompilerMissing,
    command,
    compile_tu,
    find_hipcc,
)

__all__ = [
    "CompileJob",
    "CompileOutput",
    "Compiler",
    "CompilerError",
    "CompilerMissing",
    "Location",
    "Note",
    "OffsetMap",
    "command",
    "compile_tu",
    "find_hipcc",
    "moves_of",
    "parse_errors",
]
