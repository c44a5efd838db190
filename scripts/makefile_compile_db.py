#!/usr/bin/env python3
"""Write a compile_commands.json for a tree of simple Makefile programs, as `bear -- make` would record.

One program per folder with a Makefile: its translation units are the files named by `source = ...`
(else every .cu/.cpp/.cc/.c file of the folder); its flags are the Makefile's literal `-I DIR` options
that exist, plus the --flag options given here (e.g. `--flag=-I. --flag=-I../include`). For trees whose
build cannot run here (no CUDA GPU toolchain, or no time to build): `hipify-py convert --verify -p DIR`
then compiles each TU with the flags its build would use.

    python3 scripts/makefile_compile_db.py TREE [--flag=-I.] [--flag=-I../include] [-o OUT.json]
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
from pathlib import Path

SOURCE_RE = re.compile(r"^\s*source\s*[:+]?=\s*((?:.*\\\n)*.*)$", re.M)
INCLUDE_RE = re.compile(r"(?<!\S)-I\s*([^\s$()]+)")
TU_SUFFIXES = (".cu", ".cpp", ".cc", ".cxx", ".c")


def program_entries(folder: Path, flags: list[str]) -> list[dict[str, str]]:
    makefile = folder / "Makefile"
    text = makefile.read_text(errors="replace")
    names: list[str] = []
    for m in SOURCE_RE.finditer(text):
        names += [w for w in m.group(1).replace("\\\n", " ").split() if not w.startswith("$")]
    names = [n for n in names if (folder / n).is_file()]
    if not names:
        names = sorted(p.name for p in folder.iterdir() if p.suffix in TU_SUFFIXES)
    includes = [d for d in INCLUDE_RE.findall(text) if not d.startswith("/") and (folder / d).is_dir()]
    args = list(dict.fromkeys([*flags, *(f"-I{d}" for d in includes)]))
    return [
        {"directory": str(folder.resolve()), "file": name, "command": shlex.join(["nvcc", *args, "-c", name])}
        for name in names
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("tree", type=Path)
    ap.add_argument(
        "--flag", action="append", default=[], help="extra compile flag for every TU (repeatable)"
    )
    ap.add_argument("-o", "--output", type=Path, help="default: TREE/compile_commands.json")
    args = ap.parse_args()
    entries = []
    for makefile in sorted(args.tree.glob("*/Makefile")):
        entries += program_entries(makefile.parent, args.flag)
    out = args.output or args.tree / "compile_commands.json"
    out.write_text(json.dumps(entries, indent=1) + "\n")
    print(f"{out}: {len(entries)} translation units in {len({e['directory'] for e in entries})} programs")


if __name__ == "__main__":
    main()
