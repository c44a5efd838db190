#!/usr/bin/env python3
"""Digest of everything the translator produces over a set of trees, to prove a change changed nothing.

Every file the CLI would convert (sources, plus `.hip` files, and build files) is run through the same
per-file pipeline as `hipify-py convert` (run/process.py, nothing written), and one line-oriented text
file records, per file: the status, the sha256 of the output text, the counts, and every diagnostic
(rule, line:col, byte span, severity, message, hint). Refactors and speed work must leave it identical.

    # before: snapshot main's code (the trees to translate come from THIS checkout, so they are identical)
    python3 scripts/snapshot_outputs.py --code /work/main -o /tmp/before.digest -j 2
    # after: snapshot this checkout's code
    python3 scripts/snapshot_outputs.py -o /tmp/after.digest -j 2
    python3 scripts/snapshot_outputs.py --compare /tmp/before.digest /tmp/after.digest  # exit 1: differ

Trees (default): examples/, tests/fixtures/ and, when present, ../shared/corpus/hecbench/*-cuda (all
relative to the checkout holding this script); give paths to translate others instead. A folder's
options.yaml (as in tests/fixtures) applies to the files in it: Options fields to sources, BuildOptions
fields to build files. The HIP target is pinned (`--hip-version`, default 5.2) so the digest does not
depend on the machine's installed HIP. `--set FIELD=VALUE` overrides any Options field for every file.

`--code DIR` imports hipify_py from DIR (a checkout or worktree; its mappings/ are used too) instead of
this checkout, so one copy of this script snapshots both sides of a change. `--texts DIR` also writes
every output text under DIR (same relative paths), so a difference can be read with `diff -r`.
`--compare A B` lists the files whose entries differ (first differing line of each), the files in
only one digest, and the totals; exit status 0 when identical, 1 otherwise.

Runs in parallel with `-j N` (fork; the mapping tables are loaded once before forking). The digest
lists files in sorted path order whatever -j is; its last lines are totals (files, changed,
diagnostics per rule). Nothing here reads or writes the result cache.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent.parent  # the checkout holding this script
FORMAT = "hipify-py snapshot 1"


@dataclasses.dataclass(frozen=True)
class Job:
    label: str  # path shown in the digest: "<tree label>/<path below the tree>"
    path: str
    root: str
    kind: str  # "source" or "build"
    options: tuple[tuple[str, Any], ...]  # Options overrides from options.yaml / --set
    build_options: tuple[tuple[str, Any], ...]  # BuildOptions overrides from options.yaml


def default_trees() -> list[tuple[str, Path]]:
    trees = [("examples", HERE / "examples"), ("tests/fixtures", HERE / "tests" / "fixtures")]
    corpus = HERE.parent / "shared" / "corpus" / "hecbench"
    if corpus.is_dir():
        trees += [(f"hecbench/{d.name}", d) for d in sorted(corpus.glob("*-cuda")) if d.is_dir()]
    return trees


def _field_names(cls: type) -> set[str]:
    """The fields of Options (a NamedTuple since 2026-11-25, a dataclass before) or
    BuildOptions."""
    if hasattr(cls, "_fields"):
        return set(cls._fields)
    return {f.name for f in dataclasses.fields(cls)}


def _folder_options(folder: Path, cache: dict[Path, dict[str, Any]]) -> dict[str, Any]:
    if folder not in cache:
        file = folder / "options.yaml"
        data: dict[str, Any] = {}
        if file.is_file():
            import yaml

            data = yaml.safe_load(file.read_text()) or {}
        cache[folder] = data
    return cache[folder]


def _frozen(value: Any) -> Any:
    """options.yaml values as the dataclasses hold them (lists -> tuples/frozensets), hashable."""
    if isinstance(value, list):
        return tuple(value)
    if isinstance(value, dict):
        return tuple(sorted(value.items()))
    return value


# The layered package's modules, and where the flat layout before it (up to the layout commit of
# issue 22) had them, so `--code` can snapshot either side of that change.
_FLAT = {
    "hipify_py.engine.options": "hipify_py.options",
    "hipify_py.run.discover": "hipify_py.discover",
    "hipify_py.run.outcome": "hipify_py.runner",
    "hipify_py.run.process": "hipify_py.runner",
    "hipify_py.pipeline.translate": "hipify_py.translate",
}


def _module(name: str) -> Any:
    import importlib

    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return importlib.import_module(_FLAT[name])


def _names(module: str, *names: str) -> tuple[Any, ...]:
    found = _module(module)
    return tuple(getattr(found, name) for name in names)


def collect(
    trees: Sequence[tuple[str, Path]], defaults: dict[str, Any], overrides: dict[str, Any]
) -> list[Job]:
    """Files to translate; Options are `defaults`, then the folder's options.yaml, then `overrides`."""
    from hipify_py.buildfiles import BuildOptions

    Options = _module("hipify_py.engine.options").Options
    SOURCE_EXTENSIONS, discover = _names("hipify_py.run.discover", "SOURCE_EXTENSIONS", "discover")

    option_fields, build_fields = _field_names(Options), _field_names(BuildOptions)
    folders: dict[Path, dict[str, Any]] = {}
    jobs: list[Job] = []
    for label, tree in trees:
        found, problems = discover([tree], extensions=(*SOURCE_EXTENSIONS, ".hip"))
        for problem in problems:
            print(f"warning: {problem.path}: {problem.message}", file=sys.stderr)
        for f in found:
            data = _folder_options(f.path.parent, folders)
            opts = {**defaults, **{k: _frozen(v) for k, v in data.items() if k in option_fields}, **overrides}
            if opts.get("hip_version") is not None:
                opts["hip_version"] = str(opts["hip_version"])  # YAML reads 5.2 as a float
            build = {k: _frozen(v) for k, v in data.items() if k in build_fields and k not in option_fields}
            rel = f.path.relative_to(tree).as_posix()
            jobs.append(
                Job(
                    f"{label}/{rel}",
                    str(f.path),
                    str(f.root),
                    f.kind,
                    tuple(sorted(opts.items())),
                    tuple(sorted(build.items())),
                )
            )
    jobs.sort(key=lambda j: j.label)
    return jobs


def _settings(job: Job) -> Any:
    from hipify_py.buildfiles import BuildOptions

    Options = _module("hipify_py.engine.options").Options
    Mode, RunSettings = _names("hipify_py.run.outcome", "Mode", "RunSettings")

    opts = dict(job.options)
    if "ignore_rules" in opts:
        opts["ignore_rules"] = frozenset(opts["ignore_rules"])
    build = dict(job.build_options)
    if "rename_sources" in build:
        build["rename_sources"] = dict(build["rename_sources"])
    return RunSettings(mode=Mode.STDOUT, options=Options(**opts), build_options=BuildOptions(**build))


def _one_line(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def entry(job: Job, texts: str | None = None) -> str:
    """The digest block of one file (deterministic text, ends with a newline)."""
    Found = _module("hipify_py.run.discover").Found
    process = _module("hipify_py.run.process").process

    found = Found(Path(job.path), Path(job.root), job.kind)
    outcome = process(found, _settings(job))
    text = outcome.text if outcome.text is not None else b""
    lines = [
        f"== {job.label}",
        f"status {outcome.status.value} lines {outcome.lines} sha256 {hashlib.sha256(text).hexdigest()}",
    ]
    if outcome.message:
        lines.append(f"message {_one_line(outcome.message)}")
    if outcome.counts:
        lines.append("counts " + " ".join(f"{k}={v}" for k, v in sorted(outcome.counts.items())))
    for d in outcome.diagnostics:
        lines.append(
            f"D {d.rule} {d.line}:{d.col} [{d.start},{d.end}) {d.severity} {_one_line(d.message)}"
            + (f" | hint: {_one_line(d.hint)}" if d.hint else "")
        )
    if texts is not None and outcome.text is not None:
        # a label is absolute for a folder given by its absolute path: `DIR / label` would be the
        # input file itself, overwritten; under DIR it goes, whatever the label
        out = Path(texts) / job.label.lstrip("/")
        if not out.resolve().is_relative_to(Path(texts).resolve()):
            raise SystemExit(f"--texts: {job.label} would be written outside {texts}")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(text)
    return "\n".join(lines) + "\n"


_TEXTS: str | None = None


def _entry_in_worker(job: Job) -> str:
    return entry(job, _TEXTS)


def run_jobs(jobs: Sequence[Job], workers: int, texts: str | None) -> Iterator[str]:
    default_tables = _module("hipify_py.pipeline.translate").default_tables

    global _TEXTS  # why a global: fork workers inherit it instead of pickling it with every job
    _TEXTS = texts
    default_tables()  # load once before forking: workers inherit the compiled tables
    if workers <= 1 or len(jobs) < 16:
        yield from (entry(job, texts) for job in jobs)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_entry_in_worker, jobs, chunksize=max(1, min(32, len(jobs) // (workers * 8))))


def totals(blocks: Iterable[str]) -> str:
    files = changed = 0
    rules: Counter[str] = Counter()
    statuses: Counter[str] = Counter()
    for block in blocks:
        files += 1
        for line in block.splitlines():
            if line.startswith("status "):
                statuses[line.split()[1]] += 1
            elif line.startswith("D "):
                rules[line.split()[1]] += 1
    changed = statuses["changed"]
    out = [f"# files {files} changed {changed} diagnostics {sum(rules.values())}"]
    out.append("# status " + " ".join(f"{k}={v}" for k, v in sorted(statuses.items())))
    out.append("# rules " + " ".join(f"{k}={v}" for k, v in sorted(rules.items())))
    return "\n".join(out) + "\n"


def read_digest(path: Path) -> tuple[dict[str, str], list[str]]:
    """{file label: its block} and the total lines of a digest file."""
    blocks: dict[str, str] = {}
    summary: list[str] = []
    label = None
    lines = path.read_text().splitlines(keepends=True)
    if not lines or lines[0].rstrip("\n") != FORMAT:
        raise SystemExit(f"{path}: not a snapshot digest (first line must be {FORMAT!r})")
    for line in lines[1:]:
        if line.startswith("== "):
            label = line[3:].rstrip("\n")
            blocks[label] = line
        elif line.startswith("# "):
            summary.append(line.rstrip("\n"))
            label = None
        elif label is not None:
            blocks[label] += line
    return blocks, summary


def compare(a: Path, b: Path, limit: int = 50) -> int:
    old, old_summary = read_digest(a)
    new, new_summary = read_digest(b)
    differ = [k for k in sorted(old.keys() & new.keys()) if old[k] != new[k]]
    only_a, only_b = sorted(old.keys() - new.keys()), sorted(new.keys() - old.keys())
    for label in differ[:limit]:
        x, y = old[label].splitlines(), new[label].splitlines()
        first = next((i for i, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y)))
        print(f"differs: {label}")
        print(f"  - {x[first] if first < len(x) else '(nothing)'}")
        print(f"  + {y[first] if first < len(y) else '(nothing)'}")
    if len(differ) > limit:
        print(f"... and {len(differ) - limit} more files that differ")
    for label in only_a:
        print(f"only in {a}: {label}")
    for label in only_b:
        print(f"only in {b}: {label}")
    same = len(old.keys() & new.keys()) - len(differ)
    print(
        f"compared {len(old.keys() & new.keys())} files: {same} identical, {len(differ)} differ, "
        f"{len(only_a)} only in A, {len(only_b)} only in B"
    )
    for x, y in zip(old_summary, new_summary, strict=False):
        print(f"  A {x}" if x == y else f"  A {x}\n  B {y}")
    return 0 if not differ and not only_a and not only_b else 1


def _parse_set(items: Sequence[str]) -> dict[str, Any]:
    import yaml

    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--set wants FIELD=VALUE, not {item!r}")
        out[key.strip()] = _frozen(yaml.safe_load(value))  # YAML scalars: true, [a, b], null
    return out


def _use_code(code: Path) -> None:
    """Import hipify_py from `code` (ahead of any installed or editable copy)."""
    code = code.resolve()
    if not (code / "hipify_py" / "__init__.py").is_file():
        raise SystemExit(f"--code {code}: no hipify_py package there")
    sys.path.insert(0, str(code))
    import hipify_py

    where = Path(hipify_py.__file__).resolve().parent
    if where != code / "hipify_py":
        raise SystemExit(f"imported hipify_py from {where}, not from {code}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", type=Path, help="trees to translate (default: see above)")
    parser.add_argument("-o", "--output", type=Path, help="digest file to write (default: stdout)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--code", type=Path, default=HERE, help="checkout whose hipify_py is run")
    parser.add_argument("--hip-version", default="5.2", help="target HIP version for every file")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="Options field")
    parser.add_argument("--texts", help="also write every output text under this directory")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two digests")
    args = parser.parse_args(argv)
    if args.compare:
        return compare(*args.compare)
    os.environ.setdefault("HIPIFY_PY_CACHE_DIR", "")  # no marshal cache unless the caller set one
    _use_code(args.code)
    trees = [(p.as_posix().rstrip("/"), p) for p in args.paths] if args.paths else default_trees()
    jobs = collect(trees, {"hip_version": args.hip_version}, _parse_set(args.set))
    blocks = list(run_jobs(jobs, args.jobs, args.texts))
    digest = FORMAT + "\n" + "".join(blocks) + totals(blocks)
    if args.output is None:
        sys.stdout.write(digest)
    else:
        args.output.write_text(digest)
        print(f"{args.output}: {totals(blocks).splitlines()[0][2:]}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
