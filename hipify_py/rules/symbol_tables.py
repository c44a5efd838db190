"""CUDA functions named in a dynamic symbol table keep CUDA's names (HIP231).

Runtimes that load libcuda themselves (IREE's CUDA HAL, and many ML runtimes) list the functions once, in
a table of macro invocations outside any function: `IREE_CU_PFN_DECL(cuGetErrorName, CUresult, const
char**)`. Each includer defines the macro: inside a struct it declares a member of that name
(`CUresult (*cuGetErrorName)(...)`), inside a function it looks the symbol up by its stringified name.
The uses are member accesses (`syms->cuGetErrorName(...)`), which a translation never renames, so a
renamed entry (`hipDrvGetErrorName`) leaves every use without its member, and a helper written for an
adapted name (`cuFuncSetAttribute`) lands in the struct. The entries keep CUDA's names; their parameter
types are translated as anywhere else. The loader still opens CUDA's library: a warning says so.
Calls through a macro that pastes its argument after `->` (`IREE_CURESULT_TO_STATUS(syms, cuX(...))`,
analysis/member_macros.py) name the member too, and keep it.
"""

from __future__ import annotations

from hipify_py.analysis.context import Context
from hipify_py.analysis.member_macros import member_starts, pasted
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# `NAME(` opening a line (or after `;`/`}`), NAME spelled as a macro: upper case, digits, underscores
_TABLE_MACRO = lazy(rb"(?:^|[;}\n])[ \t]*([A-Z][A-Z0-9_]*)[ \t]*\([ \t]*\Z")
_NEXT = lazy(rb"[ \t]*[,)]")
_IN_CODE = frozenset({"function_definition", "compound_statement", "lambda_expression"})


def table_entry(ctx: Context, start: int, end: int) -> bytes | None:
    """The table macro when the name at [start, end) is the first argument of a macro invocation that
    opens its line outside any function, and is not itself called there; else None."""
    source = ctx.source
    line = source.rfind(b"\n", 0, start) + 1
    call = _TABLE_MACRO.search(source, max(0, line - 1), start)
    if call is None or not _NEXT.match(source, end):
        return None
    node = ctx.root.descendant_for_byte_range(start, end)
    while node is not None:
        if node.type in _IN_CODE:
            return None
        node = node.parent
    return call.group(1)


def member_arguments(ctx: Context) -> frozenset[int]:
    """Offsets of the names that open an argument a macro pastes after `->`/`.` (`IREE_CURESULT_TO_STATUS(
    syms, cuCtxCreate(...))` is `syms->cuCtxCreate(...)`): the table's members, which keep their names.
    The macros: the file's own and those its headers define (Options.member_macros)."""
    macros = {name.encode(): ix for name, ix in ctx.options.member_macros}
    if ctx.define_lines:
        macros.update(pasted(ctx.source))
    return member_starts(ctx.source, macros) if macros else frozenset()


def kept_table_entry(ctx: Context, start: int, end: int, result: RuleResult) -> bool:
    """True when the name at [start, end) is a table entry, which keeps its name; the first one of the
    file gets the finding."""
    macro = table_entry(ctx, start, end)
    if macro is None:
        return False
    if not any(d.rule == "HIP231" for d in result.diagnostics):
        name = ctx.source[start:end].decode()
        message = (
            f"`{name}` is an entry of the symbol table `{macro.decode()}(...)` (outside any function): "
            "CUDA's names are kept so the members it declares match their uses; the symbols are looked up "
            "in CUDA's library"
        )
        result.diagnostics.append(ctx.diag("HIP231", start, end, message))
    return True


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    texts=(
        Rule(
            "HIP231",
            "symbol-table-entry",
            Severity.WARNING,
            "A CUDA function listed in a dynamic symbol table keeps its name",
            "Load HIP's library and symbols in the loader (libamdhip64, the hip* names) when porting it; "
            "the table's parameter types are translated already.",
            "Code that loads libcuda itself lists the functions in a table of macro invocations outside "
            "any function (`PFN_DECL(cuGetErrorName, CUresult, const char**)`), which each includer "
            "expands into struct members or symbol look-ups by the stringified name. The uses are member "
            "accesses, which are never renamed, so the entries keep CUDA's names and no helper is written "
            "for them; so does a name opening an argument that a call macro pastes after `->` "
            "(`CALL(syms, cuCtxCreate(...))` as `syms->cuCtxCreate(...)`). Reported once per file.",
        ),
    ),
    fixtures=("identifiers/symbol_table", "identifiers/member_macro"),
)
