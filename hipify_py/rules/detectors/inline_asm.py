"""Inline PTX assembly and PTX-only intrinsics (HIP204)."""

from __future__ import annotations

import re

from hipify_py.context import Context
from hipify_py.rules import RuleResult
from hipify_py.rules.detector_data import PTX_ONLY_INTRINSICS
from hipify_py.rules.detectors.common import Scan, match_text

_ASM = re.compile(rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(")
_PTX_INTRINSIC = re.compile(rb"\b(?:" + b"|".join(PTX_ONLY_INTRINSICS) + rb")\b(?=\s*\()")
_PTX_REGISTER = re.compile(rb"%%?(laneid|warpid|smid|nsmid|gridid|clock64|globaltimer|lanemask_\w+)")


_ASM_STRINGS = re.compile(rb'(?:\s*"(?:[^"\\\n]|\\(?:.|\n))*")+')
# AMDGCN mnemonics (s_nop, v_mfma_*, ds_read_*, buffer_load_*): assembly already written for AMD GPUs.
_GCN_MNEMONIC = re.compile(rb"\s*(?:[sv]_[a-z]|ds_|buffer_|global_|flat_|scratch_|llvm\.amdgcn\.)")
_CONTROL_KEYWORDS = frozenset((b"if", b"while", b"for", b"switch", b"return", b"else", b"do"))


def _asm_label(src: bytes, start: int) -> bool:
    """`register float x asm("v64");`, `int f(int) __asm("symbol");`: an asm name for a declaration,
    not an instruction."""
    i = start - 1
    while i >= 0 and src[i : i + 1].isspace():
        i -= 1
    if i < 0:
        return False
    if src[i : i + 1] == b")":  # `f(args) asm(...)` declares; `if (c) asm(...)` is a statement
        depth = 0
        while i >= 0:
            c = src[i : i + 1]
            depth += (c == b")") - (c == b"(")
            if depth == 0:
                break
            i -= 1
        i -= 1
        while i >= 0 and src[i : i + 1].isspace():
            i -= 1
    end = i + 1
    while i >= 0 and (src[i : i + 1].isalnum() or src[i] == 0x5F):
        i -= 1
    word = src[i + 1 : end]
    return bool(word) and word not in _CONTROL_KEYWORDS and not word[:1].isdigit()


def _not_ptx(src: bytes, m: re.Match[bytes]) -> bool:
    """asm that is not PTX: a declaration's asm label, an empty template (a compiler barrier, valid on
    AMD too) or AMDGCN assembly (composable_kernel)."""
    if _asm_label(src, m.start()):
        return True
    strings = _ASM_STRINGS.match(src, m.end())
    if strings is None:
        return False  # a macro or a non-literal template: cannot tell
    body = b"".join(re.findall(rb'"((?:[^"\\\n]|\\(?:.|\n))*)"', strings.group()))
    body = body.replace(b"\\\n", b"").replace(b"\\n", b" ").replace(b"\\t", b" ").strip()
    return not body or bool(_GCN_MNEMONIC.match(body))


def inline_ptx(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for m in scan.code(_ASM):
        if _not_ptx(src, m):
            continue
        close = src.find(b";", m.end())
        register = _PTX_REGISTER.search(src, m.end(), close if close != -1 else len(src))
        extra = f" (reads PTX register %{register.group(1).decode()})" if register else ""
        msg = f"inline PTX assembly{extra} cannot be compiled for AMD GPUs"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end() - 1, msg))
    for m in scan.code(_PTX_INTRINSIC):
        if m.group() in ctx.tables.names:
            continue
        msg = f"`{match_text(m)}` is a PTX-only intrinsic with no HIP counterpart"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end(), msg))
    return result
