"""The package's layers (docs/architecture.md): each module imports only from its own layer and the
layers below, no import cycle (function-level imports included), no module over 600 lines.

Every import is read with `ast` (module-level, in functions, under TYPE_CHECKING alike): a lazy import
still ties two modules together, so `# why lazy: X imports us` is the cycle this test refuses.
`HIPIFY_LAYERS_ROOT=/path/to/hipify_py` checks another tree (how this test was seen to fail on the
flat layout it replaced).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

PACKAGE = Path(os.environ.get("HIPIFY_LAYERS_ROOT") or Path(__file__).resolve().parent.parent / "hipify_py")

# Bottom to top. A module may import its own layer's modules (without a cycle) and any lower layer's.
# Layers on one rank are siblings: neither imports the other.
LAYERS: dict[str, int] = {
    "util": 0,  # imports nothing from the package but the root's __version__
    "data": 1,
    "engine": 2,
    "analysis": 3,
    "rules": 4,
    "pipeline": 5,
    "buildfiles": 5,
    "project": 6,
    "run": 7,
    "workers": 8,  # runs the files of a run (run/process.py per file) in processes
    "report": 8,
    "verify": 9,  # its compiles share the workers (workers/pool.py shared())
    "cli": 10,
}
# the package's __init__ (__version__ only) sits with util; `python -m hipify_py` with the CLI
ROOT_MODULES = {"hipify_py": "util", "hipify_py.__main__": "cli"}
MAX_LINES = 600


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The package's modules `name` imports, anywhere in its body (a package for `from p import x`
    when x is no module of p)."""
    top = name.split(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".")[: None if path.name == "__init__.py" else -1]
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for alias in node.names:
                sub = f"{module}.{alias.name}"
                found.add(sub if sub in known else module)
    return {m for m in found if m in known and m != name and m.split(".")[0] == top}


def layer_of(name: str) -> tuple[str, int] | None:
    if name in ROOT_MODULES:
        return ROOT_MODULES[name], LAYERS[ROOT_MODULES[name]]
    parts = name.split(".")
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1], LAYERS[parts[1]]
    return None


def graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_every_module_is_in_a_layer() -> None:
    outside = [name for name in modules() if layer_of(name) is None]
    assert not outside, f"modules in no layer (move them into one of {sorted(LAYERS)}): {outside}"


def test_no_upward_import() -> None:
    upward = []
    for name, targets in sorted(graph().items()):
        mine = layer_of(name)
        for target in sorted(targets):
            theirs = layer_of(target)
            if mine is None or theirs is None:
                continue  # reported by test_every_module_is_in_a_layer
            if theirs[0] != mine[0] and theirs[1] >= mine[1]:
                upward.append(f"{name} ({mine[0]}) imports {target} ({theirs[0]})")
    assert not upward, "imports that go up or sideways:\n" + "\n".join(upward)


def test_no_import_cycle() -> None:
    found = cycles(graph())
    assert not found, "import cycles (lazy imports count):\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_module_over_600_lines() -> None:
    long = {
        name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, f"split these (at most {MAX_LINES} lines a module): {long}"


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        ({"a": {"b"}, "b": {"a"}, "c": set()}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"b"}, "b": set()}, []),
    ],
)
def test_cycle_finder(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert cycles(edges) == expected
