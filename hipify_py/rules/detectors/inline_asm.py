"""Inline PTX assembly and PTX-only intrinsics (HIP204)."""

from __future__ import annotations

import re

from hipify_py.analysis.context import Context
from hipify_py.data.detector_data import PTX_ONLY_INTRINSICS
from hipify_py.engine.diagnostics import Rule, Severity
from hipify_py.rules import RuleResult
from hipify_py.rules.detectors.common import Scan, match_text
from hipify_py.rules.registry import declare
from hipify_py.util.lazyre import lazy

# why module-level: compiled from the shipped programs (util/lazyre.py), not by each worker
_STRING_BODY = lazy(rb'"((?:[^"\\\n]|\\(?:.|\n))*)"')

_ASM = lazy(rb"\b(?:asm|__asm__|__asm)\b(?:\s*(?:volatile|__volatile__))?\s*\(")
_PTX_INTRINSIC = lazy(rb"\b(?:" + b"|".join(PTX_ONLY_INTRINSICS) + rb")\b(?=\s*\()")
_PTX_REGISTER = lazy(rb"%%?(laneid|warpid|smid|nsmid|gridid|clock64|globaltimer|lanemask_\w+)")


_ASM_STRINGS = lazy(rb'(?:\s*"(?:[^"\\\n]|\\(?:.|\n))*")+')
# AMDGCN mnemonics (s_nop, v_mfma_*, ds_read_*, buffer_load_*): assembly already written for AMD GPUs.
_GCN_MNEMONIC = lazy(rb"\s*(?:[sv]_[a-z]|ds_|buffer_|global_|flat_|scratch_|llvm\.amdgcn\.)")
_DEFINE_BEFORE = lazy(rb"#[ \t]*define[ \t]+\Z")
_DIRECTIVE_LINE = lazy(rb"[ \t]*#")
_CONTROL_KEYWORDS = frozenset((b"if", b"while", b"for", b"switch", b"return", b"else", b"do"))
# What PTX looks like, for asm outside __device__/__global__ functions (a device function whose qualifier
# hides in a macro, a #define body): an instruction with a PTX type, state-space or modifier suffix
# (mov.u32, ld.global.v4.b32, shfl.sync.bfly.b32, cp.async.commit_group, ex2.approx.ftz.f32), a PTX
# special register or a PTX directive. Host assembly (x86 rdtsc/fldcw, PowerPC mftb, ARM mrc, SPARC
# rd %tick) has none of these.
_PTX_SHAPE = lazy(
    rb"\b[a-z][a-z0-9]*(?:\.[a-z0-9_:]+)*\.(?:[usbf](?:8|16|32|64)(?:x[24])?|bf16(?:x2)?|e[45]m[23]|pred|"
    rb"global|shared|local|const|param|sync|async|approx|aligned|ftz|sat|cta|gpu|sys|acquire|release|"
    rb"relaxed|ca|cg|cs|lu|cv|commit_group|wait_group|wait_all|arrive|expect_tx)\b"
    rb"|%%?(?:laneid|warpid|nwarpid|smid|nsmid|gridid|tid|ntid|ctaid|nctaid|clock|clock64|globaltimer|"
    rb"lanemask_\w+|dynamic_smem_size)\b"
    rb"|(?:^|[;{\s])(?:\.reg|\.pred|trap|brkpt|exit|pmevent)\b"
)


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
    if _DEFINE_BEFORE.search(src, max(0, i - 64), i + 1):
        return False  # `#define LANE(m) asm(...)`: the macro's parameters, not a declaration
    if _DIRECTIVE_LINE.match(src, src.rfind(b"\n", 0, i + 1) + 1):
        return False  # `#ifdef PTX` + `asm(...)` on the next line: a directive's word, not a declaration
    return bool(word) and word not in _CONTROL_KEYWORDS and not word[:1].isdigit()


def _not_ptx(src: bytes, m: re.Match[bytes]) -> bool:
    """asm that is not PTX: a declaration's asm label, an empty template (a compiler barrier, valid on
    AMD too) or AMDGCN assembly (composable_kernel)."""
    if _asm_label(src, m.start()):
        return True
    strings = _ASM_STRINGS.match(src, m.end())
    if strings is None:
        return False  # a macro or a non-literal template: cannot tell
    body = b"".join(_STRING_BODY.findall(strings.group()))
    body = body.replace(b"\\\n", b"").replace(b"\\n", b" ").replace(b"\\t", b" ").strip()
    return not body or bool(_GCN_MNEMONIC.match(body))


# the template of an asm statement: string literals, and macros between them that add pieces
# (`"atom.exch" ORDER_ASM ".gpu" ".b32 %0,[%1],%2;"`, desul's atomics), up to the first `:` or `)`
_TEMPLATE = lazy(rb'(?:\s|\\\r?\n|"(?:[^"\\\n]|\\(?:.|\n))*"|[A-Za-z_]\w*)*')


def _host_asm(src: bytes, m: re.Match[bytes], scan: Scan) -> bool:
    """asm outside every __device__/__global__ function (a host function, a CPU-specific #ifdef, a
    #define) whose template does not look like PTX: host code, which hipcc's host compiler assembles."""
    if scan.device.contains(m.start()):
        return False
    template = _TEMPLATE.match(src, m.end())
    pieces = _STRING_BODY.findall(template.group()) if template else []
    if not pieces:
        return True  # a non-literal template outside device code: nothing says PTX
    return _PTX_SHAPE.search(b"".join(pieces).replace(b"%%", b"%")) is None


def inline_ptx(ctx: Context, scan: Scan) -> RuleResult:
    result = RuleResult()
    src = ctx.source
    for m in scan.code(_ASM):
        if _not_ptx(src, m) or _host_asm(src, m, scan):
            continue
        close = src.find(b";", m.end())
        register = _PTX_REGISTER.search(src, m.end(), close if close != -1 else len(src))
        extra = f" (reads PTX register %{register.group(1).decode()})" if register else ""
        if register and register.group(1) == b"globaltimer":
            extra += ": HIP's wall_clock64() counts at the device's hipDeviceAttributeWallClockRate (kHz)"
        msg = f"inline PTX assembly{extra} cannot be compiled for AMD GPUs"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end() - 1, msg))
    for m in scan.code(_PTX_INTRINSIC):
        if m.group() in ctx.tables.names:
            continue
        msg = f"`{match_text(m)}` is a PTX-only intrinsic with no HIP counterpart"
        result.diagnostics.append(ctx.diag("HIP204", m.start(), m.end(), msg))
    return result


# What this module gives the rule registry (hipify_py/rules/registry.py)
DECLARED = declare(
    __name__,
    detect=(
        (
            90,
            inline_ptx,
            (b"asm", b"__nanosleep", b"__prof_trigger", b"__pm", b"luster", b"__stwb", b"__stc", b"__stwt"),
        ),
    ),
    texts=(
        Rule(
            "HIP204",
            "inline-ptx",
            Severity.ERROR,
            "Inline PTX assembly or PTX-only intrinsic",
            "Replace it with a HIP intrinsic or builtin (e.g. __lane_id(), __builtin_amdgcn_*), or guard it "
            "with `#ifdef __HIP_PLATFORM_AMD__`.",
            "asm()/asm volatile() blocks contain NVIDIA PTX, which the AMD compiler cannot assemble. PTX "
            "with an exact HIP counterpart is rewritten instead (rules/ptx_equivalents.py: traps, fences, "
            "barriers, register moves, prefetches, and reads of %laneid, %smid, %clock, %clock64 and "
            "%lanemask_* through HIP's device functions); %globaltimer, %warpid and %nsmid have none. "
            "Reported once "
            "per asm statement; not reported for asm hipcc never compiles (inside `#if __CUDA_ARCH__ >= "
            "800` and the like: the guard gets HIP302), empty asm barriers, asm labels on declarations, "
            "AMDGCN assembly, and host assembly: asm outside __device__/__global__ functions whose template "
            "does not look like PTX (x86 rdtsc/fldcw, PowerPC mftb, ARM mrs under CPU #ifdefs), which "
            "hipcc's host compiler assembles. Outside device functions (a qualifier hidden in a macro, a "
            "#define body) PTX is recognised by its shape: typed instructions (mov.u32, ld.global.v4.b32), "
            "PTX registers (%laneid) and directives.",
        ),
    ),
    fixtures=("detectors/inline_ptx*",),
)
