#!/usr/bin/env python3
"""An include directory that shows only the headers CI's machine has, to test as CI sees this machine.

Tests that scan the installed HIP headers (tests/test_hip_headers.py) must pass with exactly the
packages .ci/run installs and with more (a full ROCm has librocsparse-dev, librocprim-dev, ...).
Removing packages would disturb everyone else on a shared machine, so this builds a view instead:
the /usr/include files of the packages named in .ci/run's `apt-get install` line and of everything
they depend on (as installed here), as symlinks under OUT. Then:

    python3 scripts/ci_include_view.py /tmp/ci-include
    HIPIFY_PY_TEST_INCLUDE=/tmp/ci-include python3 -m pytest -q tests/test_hip_headers.py

`--exclude PKG` leaves out more packages (e.g. to see what a machine without libhipsparse-dev finds);
`--print` lists the packages of the view. Debian/Ubuntu only (dpkg-query).
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
INCLUDE = Path("/usr/include")


def ci_packages(script: Path) -> list[str]:
    """Package names of the `apt-get install` command(s) in the CI script."""
    names: list[str] = []
    for line in script.read_text().splitlines():
        words = shlex.split(line.split("#", 1)[0]) if "apt-get" in line else []
        if "install" not in words:
            continue
        for word in words[words.index("install") + 1 :]:
            if word in (">", ">>", "|", "&&", ";") or word.startswith((">", "2>", "&")):
                break
            if not word.startswith("-"):
                names.append(word)
    return names


def _query(fmt: str, *packages: str) -> str:
    proc = subprocess.run(
        ["dpkg-query", "-W", "-f", fmt, *packages], capture_output=True, text=True, check=False
    )
    return proc.stdout


def installed() -> tuple[set[str], dict[str, set[str]]]:
    """Installed package names (arch qualifier dropped) and virtual name -> packages providing it."""
    names: set[str] = set()
    provides: dict[str, set[str]] = {}
    for line in _query("${db:Status-Abbrev}\t${Package}\t${Provides}\n").splitlines():
        status, _, rest = line.partition("\t")
        if not status.startswith("ii"):
            continue
        name, _, provided = rest.partition("\t")
        names.add(name)
        for item in provided.split(","):
            virtual = _bare(item)
            if virtual:
                provides.setdefault(virtual, set()).add(name)
    return names, provides


def _bare(item: str) -> str:
    """`libfoo:any (>= 1.2)` -> `libfoo`."""
    return re.sub(r"\(.*?\)|:\S+", "", item).strip()


def closure(roots: Iterable[str], exclude: set[str]) -> set[str]:
    """The installed packages `roots` need: Depends and Pre-Depends, recursively (alternatives that
    are installed, virtual packages through their installed providers)."""
    have, provides = installed()
    seen: set[str] = set()
    todo = [r for r in roots if r not in exclude]
    while todo:
        pkg = todo.pop()
        if pkg in seen or pkg in exclude:
            continue
        if pkg not in have:
            todo.extend(p for p in provides.get(pkg, ()) if p not in seen)
            continue
        seen.add(pkg)
        deps = _query("${Depends},${Pre-Depends}", pkg)
        for group in deps.split(","):
            for alternative in group.split("|"):
                name = _bare(alternative)
                if name and (name in have or name in provides):
                    todo.append(name)
    return seen


def include_files(packages: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for pkg in sorted(packages):
        listing = subprocess.run(["dpkg", "-L", pkg], capture_output=True, text=True, check=False).stdout
        files += [Path(p) for p in listing.splitlines() if p.startswith(f"{INCLUDE}/")]
    return files


def build_view(out: Path, files: Iterable[Path]) -> int:
    """Symlink every regular file under `out` at its path below /usr/include; returns the count."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    count = 0
    for path in sorted(set(files)):
        if not path.is_file():
            continue  # a directory entry of the listing, or a file removed since
        target = out / path.relative_to(INCLUDE)
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.symlink_to(path.resolve())
            count += 1
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("out", type=Path, help="directory to (re)create")
    parser.add_argument(
        "--ci", type=Path, default=REPO / ".ci" / "run", help="CI script with apt-get install"
    )
    parser.add_argument("--exclude", action="append", default=[], metavar="PKG")
    parser.add_argument("--print", action="store_true", help="list the packages of the view")
    args = parser.parse_args(argv)
    if shutil.which("dpkg-query") is None:
        print("dpkg-query not found: this needs a Debian/Ubuntu machine", file=sys.stderr)
        return 2
    roots = ci_packages(args.ci)
    if not roots:
        print(f"{args.ci}: no `apt-get install` line found", file=sys.stderr)
        return 2
    packages = closure(roots, set(args.exclude))
    missing = [r for r in roots if r not in packages and r not in args.exclude]
    if missing:
        print(f"not installed here (CI installs them): {' '.join(missing)}", file=sys.stderr)
        return 1
    count = build_view(args.out, include_files(packages))
    if args.print:
        print("\n".join(sorted(packages)))
    print(f"{args.out}: {count} headers of {len(packages)} packages ({' '.join(roots)} and dependencies)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
