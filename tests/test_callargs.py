"""analysis/callargs.py: (before, after) pairs for each argument edit, in code, macro bodies, errors."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from hipify_py.analysis import callargs
from hipify_py.analysis.callargs import Call, CallFinder
from hipify_py.engine.edits import Edit, apply_edits
from hipify_py.engine.parser import parse

Op = Callable[[Call], list[Edit]]


def run(source: str, op: Op, name: str = "f", extra: list[Edit] | None = None) -> str:
    data = source.encode()
    at = re.search(rb"(?<![\w#])" + name.encode() + rb"\b", data).start()
    call = CallFinder(data, parse(data).root_node).at((at, at + len(name)))
    assert call is not None, source
    return apply_edits(data, [*op(call), *(extra or [])]).decode()


CASES: list[tuple[str, Op, str]] = [
    # wrap
    (
        "f(k, 1);",
        lambda c: callargs.wrap(c, 0, b"reinterpret_cast<const void*>("),
        "f(reinterpret_cast<const void*>(k), 1);",
    ),
    ("f( a /*x*/ , b);", lambda c: callargs.wrap(c, 0, b"C("), "f( C(a) /*x*/ , b);"),
    ("f(a, g(b, c));", lambda c: callargs.wrap(c, 1, b"W("), "f(a, W(g(b, c)));"),
    ("f(x, A<int, 4>::v);", lambda c: callargs.wrap(c, 1, b"W((", b"))"), "f(x, W((A<int, 4>::v)));"),
    # insert / append
    ("f(p, n);", lambda c: callargs.insert(c, 2, b"0"), "f(p, n, 0);"),
    ("f(p, n);", lambda c: callargs.insert(c, 9, b"0"), "f(p, n, 0);"),
    ("f(p, n);", lambda c: callargs.insert(c, 1, b"0"), "f(p, 0, n);"),
    ("f();", lambda c: callargs.insert(c, 0, b"0"), "f(0);"),
    ("f(p,\n  n // size\n);", lambda c: callargs.insert(c, 2, b"0"), "f(p,\n  n, 0 // size\n);"),
    # replace
    ("f(a, b + 1, c);", lambda c: callargs.replace(c, 1, b"K"), "f(a, K, c);"),
    # delete
    ("f(a, b, c);", lambda c: callargs.delete(c, 0), "f(b, c);"),
    ("f(a, b, c);", lambda c: callargs.delete(c, 1), "f(a, c);"),
    ("f(a, b, c);", lambda c: callargs.delete(c, 2), "f(a, b);"),
    ("f(a);", lambda c: callargs.delete(c, 0), "f();"),
    ("f(a, b, c, d);", lambda c: callargs.delete_many(c, {2, 3}), "f(a, b);"),
    ("f(a, b, c, d);", lambda c: callargs.delete_many(c, {1, 2}), "f(a, d);"),
    ("f(a, b, c, d);", lambda c: callargs.delete_many(c, {0, 3}), "f(b, c);"),
    ("f(a, b, c);", lambda c: callargs.delete_many(c, {0, 1, 2}), "f();"),
    # copy / move
    ("f(a, n, x);", lambda c: callargs.copy(c, 1, 2), "f(a, n, n, x);"),
    ("f(a, n);", lambda c: callargs.copy(c, 1, 2), "f(a, n, n);"),
    ("f(h, a, b, c);", lambda c: callargs.move(c, 1, 9, 2), "f(h, c, a, b);"),
    (
        "f(h, a, b, c);",
        lambda c: (
            callargs.moved_copies(c, 1, 2) + callargs.moved_copies(c, 2, 1) + callargs.delete_many(c, {1, 2})
        ),
        "f(h, b, a, c);",
    ),
    ("f(h, a, b, c, d);", lambda c: callargs.move(c, 3, 1, 2), "f(h, c, d, a, b);"),
    # rename (argument-count overloads)
    ("f(&e, 1);", lambda c: callargs.rename(c, b"g"), "g(&e, 1);"),
    # qualified and template callees
    ("::f(a, b);", lambda c: callargs.delete(c, 0), "::f(b);"),
    ("f<float>(a, b);", lambda c: callargs.wrap(c, 0, b"(void**)(", b")"), "f<float>((void**)(a), b);"),
    # macro bodies (re-parsed) and lexical fallback
    ("#define M(k) f(k, 1)\n", lambda c: callargs.wrap(c, 0, b"C("), "#define M(k) f(C(k), 1)\n"),
    (
        "#define M(k) do { f(k, \\\n 1); } while (0)\n",
        lambda c: callargs.delete(c, 1),
        "#define M(k) do { f(k); } while (0)\n",
    ),
    (
        "#define M(k) f(k, \"a,b\", ')')\n",
        lambda c: callargs.insert(c, 3, b"0"),
        "#define M(k) f(k, \"a,b\", ')', 0)\n",
    ),
    ("#define M f(a /* , */, b\n", None, ""),  # unbalanced: no call
    # error regions: the tree's call where it has one, else lexical
    ("void g() { if (x) f(a, b) else }", lambda c: callargs.delete(c, 0), "void g() { if (x) f(b) else }"),
    ("int x = f(a, (b, c) @);", lambda c: callargs.delete(c, 0), "int x = f((b, c) @);"),
]


@pytest.mark.parametrize(("before", "op", "after"), CASES, ids=[c[0] for c in CASES])
def test_argument_edit(before: str, op: Op | None, after: str) -> None:
    if op is None:
        data = before.encode()
        at = data.index(b"f(")
        assert CallFinder(data, parse(data).root_node).at((at, at + 1)) is None
        return
    assert run(before, op) == after


def test_renames_inside_a_deleted_argument_are_superseded() -> None:
    src = "f(cudaStreamDefault, b);"
    rename = Edit(2, 2 + len("cudaStreamDefault"), b"hipStreamDefault")
    assert run(src, lambda c: callargs.delete(c, 0), extra=[rename]) == "f(b);"
    assert run(src, lambda c: callargs.replace(c, 0, b"0"), extra=[rename]) == "f(0, b);"


def test_moved_and_copied_arguments_keep_their_renames() -> None:
    src = "f(h, cudaA, b);"
    rename = Edit(5, 10, b"hipA")
    assert run(src, lambda c: callargs.move(c, 1, 3), extra=[rename]) == "f(h, b, hipA);"
    assert run(src, lambda c: callargs.copy(c, 1, 2), extra=[rename]) == "f(h, hipA, hipA, b);"


def test_rename_supersedes_the_plain_rename() -> None:
    src = "cudaEventCreate(&e, 0);"
    plain = Edit(0, 15, b"hipEventCreate")
    out = run(src, lambda c: callargs.rename(c, b"hipEventCreateWithFlags"), "cudaEventCreate", [plain])
    assert out == "hipEventCreateWithFlags(&e, 0);"


def test_wraps_next_to_a_deleted_argument_stay() -> None:
    src = "f(a, s, c);"
    wrap_s = [Edit(5, 5, b"W("), Edit(6, 6, b")")]
    assert run(src, lambda c: callargs.delete(c, 0), extra=wrap_s) == "f(W(s), c);"
    assert run(src, lambda c: callargs.delete(c, 2), extra=wrap_s) == "f(a, W(s));"


def test_call_spans() -> None:
    data = b"x = f( a , /* c */ b );"
    call = CallFinder(data, parse(data).root_node).at((4, 5))
    assert call is not None
    assert [call.text(data, i) for i in range(len(call.args))] == [b"a", b"b"]
    assert data[call.open : call.open + 1] == b"(" and data[call.close : call.close + 1] == b")"
    lexical = callargs.from_text(data, (4, 5))
    assert lexical == call


@pytest.mark.parametrize(
    "source", ["int f; int g = f + 1;", "cudaError_t f(void** p, size_t n);", "obj.g(f);", "void f(int a) {}"]
)
def test_not_a_call(source: str) -> None:
    data = source.encode()
    at = re.search(rb"\bf\b", data).start()
    assert CallFinder(data, parse(data).root_node).at((at, at + 1)) is None


def test_a_definition_in_a_parse_error_is_no_call() -> None:
    """hypre's own `__shfl_sync` for older HIP, in an #if group tree-sitter cannot parse: split lexically,
    its parameters looked like arguments, and the warp-sync adaptation cast `lane_mask mask`."""
    source = (
        b"#if defined(MY_OLD_HIP)\ntemplate <typename T>\nstatic __device__ __forceinline__\n"
        b"T __shfl_sync(lane_mask mask, T val, int src, int width = WARP)\n"
        b"{\n  return __shfl(val, src, width);\n}\n"
        b"template <typename T>\nstatic __device__ __forceinline__\n"
    )
    start = source.index(b"__shfl_sync")
    finder = callargs.CallFinder(source, parse(source).root_node)
    assert finder.at((start, start + len(b"__shfl_sync"))) is None
    call = b"void f() { g(mask, x + y, n = 3, sizeof v); }\n"
    at = call.index(b"g(")
    found = callargs.CallFinder(call, parse(call).root_node).at((at, at + 1))
    assert found is not None and len(found.args) == 4


@pytest.mark.parametrize(
    ("text", "parameter"),
    [
        (b"lane_mask mask", True),
        (b"unsigned int width = 64", True),
        (b"const T val", True),
        (b"a * b", False),
        (b"sizeof x", False),
        (b"not ready", False),
        (b"x = 3", False),
        (b"mask", False),
    ],
)
def test_parameter_shapes(text: bytes, parameter: bool) -> None:
    assert callargs._parameter(text) is parameter
