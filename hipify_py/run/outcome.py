"""What a run produces per file, and how it is asked for: Mode, Status, RunSettings, FileOutcome.

Below the orchestrator on purpose: reports, --verify and the CLI import these types, never the runner.
Findings travel between processes and into the result cache as plain tuples (diagnostic_tuples).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from hipify_py.engine.diagnostics import Diagnostic, Severity
from hipify_py.engine.options import Options
from hipify_py.run.result_cache import Result


class Mode(str, Enum):
    OUTPUT_TREE = "output"  # write converted files under an output directory
    IN_PLACE = "in-place"
    DIFF = "diff"  # unified diff on stdout, nothing written
    CHECK = "check"  # exit 1 if anything would change, nothing written
    STDOUT = "stdout"  # one file, converted text on stdout


class Status(str, Enum):
    CHANGED = "changed"
    UNCHANGED = "unchanged"
    SKIPPED = "skipped"
    ERROR = "error"


# why a NamedTuple and FileOutcome a plain class, not dataclasses: see engine/options.py
class RunSettings(NamedTuple):
    """How a run treats every file: the mode, the translation options, where output and caches go."""

    mode: Mode
    options: Options = Options()
    output_dir: Path | None = None
    backup_suffix: str | None = None
    jobs: int = 0  # 0 = CPU count
    extra_mappings: tuple[Path, ...] = ()
    rename: Callable[[Path], Path] | None = None  # new name for a converted source (None: keep)
    build_options: object | None = None  # buildfiles.BuildOptions
    cache_dir: Path | None = None  # result cache root (result_cache.py); None: no cache
    keep_moves: bool = False  # --verify: keep the edit moves so compiler lines map back (verify/linemap.py)
    # --verify with --diff/--check: (input root, mirror root); translated texts are also written there
    mirror: tuple[str, str] | None = None
    # --in-place: also translate each written file once more, so the next run finds it a cache hit.
    # run() turns it off for a few files (see REMEMBER_WRITTEN_FROM).
    remember_written: bool = True
    defines: tuple[str, ...] = ()  # -D NAME[=VALUE] the user builds with (--verify's, config `defines`)
    # the folders the run was given: where a file's headers are looked for beside its own root (the -I of
    # a project built from several of them: run/helper_defs.py)
    roots: tuple[str, ...] = ()


class FileOutcome:
    """What became of one file: status, findings, counts, and what the cache and reports need."""

    def __init__(
        self,
        path: Path,
        status: Status,
        output: Path | None = None,
        message: str = "",
        diagnostics: list[Diagnostic] | None = None,
        counts: Counter[str] | None = None,
        lines: int = 0,
        diff: str = "",
        text: bytes | None = None,
        kind: str = "source",
        cached: bool = False,
        out_hash: str = "",
        in_hash: str = "",
        in_stat: tuple[int, int, int] | None = None,
        out_stat: tuple[int, int, int] | None = None,
        rewritten: Result | None = None,
        moves: tuple = (),
        defines: tuple[str, ...] = (),
        helpers: tuple = (),
    ) -> None:
        self.path = path
        self.status = status
        self.output = output
        self.message = message
        self.diagnostics: list[Diagnostic] = [] if diagnostics is None else diagnostics
        self.counts: Counter[str] = Counter() if counts is None else counts
        self.lines = lines
        self.diff = diff
        self.text = text  # STDOUT mode only
        self.kind = kind
        self.cached = cached  # result taken from the cache, nothing translated
        self.out_hash = out_hash  # content hash of the converted text (when the cache is on)
        self.in_hash = in_hash  # content hash of the source as read (when the cache is on)
        # cache.stat_entry of the source from before it was read
        self.in_stat = in_stat
        # -o with the cache on: cache.stat_entry of the output as the worker left it (RACY when it wrote
        # it), so the run need not stat every output again
        self.out_stat = out_stat
        # --in-place with the cache on: the result of converting the file as written (cache.Result), so
        # the next run knows the files this one wrote (they are hits, not new content)
        self.rewritten = rewritten
        self.moves = moves  # --verify: linemap.Layers from the translated text back to the source
        self.defines = defines  # macros the file #defines (option_macros)
        # (helpers written, those the closure defines[, project aliases, CUdeviceptr names]) or ()
        self.helpers = helpers

    def __repr__(self) -> str:
        return f"FileOutcome({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"

    def __eq__(self, other: object) -> bool:
        return type(other) is FileOutcome and self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, as the dataclass it was

    def replaced(self, **changes: object) -> FileOutcome:
        """A copy with `changes` (dataclasses.replace's counterpart)."""
        copy = FileOutcome.__new__(FileOutcome)
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    @property
    def worst(self) -> Severity | None:
        return max((d.severity for d in self.diagnostics), default=None)

    def __reduce__(self) -> tuple[Callable[..., FileOutcome], tuple[object, ...]]:
        """Pickled for the trip from a worker: the paths as strings, the status by value and the counts
        as a dict (the default pickle rebuilt each path from its parts and the status through Enum's
        __call__: ~4 of the run's ~10 us a file to unpickle)."""
        rest = dict(self.__dict__)
        path, status, output, counts = (
            rest.pop("path"),
            rest.pop("status"),
            rest.pop("output"),
            rest.pop("counts"),
        )
        return _unpickled, (
            str(path),
            status.value,
            None if output is None else str(output),
            dict(counts),
            rest,
        )


_STATUS_OF: dict[str, Status] = {status.value: status for status in Status}


def _unpickled(
    path: str, status: str, output: str | None, counts: dict[str, int], rest: dict[str, object]
) -> FileOutcome:
    outcome = FileOutcome.__new__(FileOutcome)
    tally: Counter[str] = Counter.__new__(Counter)  # why not Counter(counts): its __init__ is Python code
    dict.update(tally, counts)
    outcome.__dict__.update(
        rest,
        path=Path(path),
        status=_STATUS_OF[status],
        output=None if output is None else Path(output),
        counts=tally,
    )
    return outcome


# -- findings as plain tuples (worker results, result cache records) --

_DIAGNOSTIC_FIELDS: tuple[str, ...] = Diagnostic._fields


def diagnostic_tuples(diagnostics: Sequence[Diagnostic]) -> tuple[tuple, ...]:
    return tuple(
        tuple(int(v) if isinstance(v, Severity) else v for v in (getattr(d, f) for f in _DIAGNOSTIC_FIELDS))
        for d in diagnostics
    )


_SEVERITY_AT = _DIAGNOSTIC_FIELDS.index("severity")


def diagnostic_of(fields: Sequence[object]) -> Diagnostic:
    values = list(fields)
    values[_SEVERITY_AT] = Severity(values[_SEVERITY_AT])
    return Diagnostic(*values)  # type: ignore[arg-type]
