"""Makefiles (and *.mk): nvcc -> hipcc, toolkit paths -> $(ROCM_PATH), nvcc flags, renamed sources."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from hipify_py.buildfiles.common import (
    INFO,
    RESIDUE,
    RULE_HOST,
    RULE_NOT_UNDERSTOOD,
    RULE_NVCC_FLAG,
    WARN,
    BuildOptions,
    Note,
    Renames,
    Src,
    arch_note,
    edit,
    finish,
    leftover_note,
    line_deletions,
)
from hipify_py.buildfiles.libraries import CUDA_PATH_VARS, ROCM_DEFAULT
from hipify_py.buildfiles.nvcc_flags import translate_flags
from hipify_py.engine.diagnostics import Diagnostic
from hipify_py.engine.edits import Edit
from hipify_py.util.lazyre import lazy


class _Piece(NamedTuple):
    start: int  # absolute byte offsets of the text
    end: int
    text: str


class _Phys(NamedTuple):
    start: int
    end: int  # content end: before a continuation backslash and before the line break
    cont: bool  # ends with a continuation backslash


class _MakeLine(NamedTuple):
    phys: tuple[_Phys, ...]
    recipe: bool
    words: tuple[_Piece, ...]  # words outside comments (trailing unbalanced ')' trimmed)
    comment_only: bool


_MAKE_ASSIGN = lazy(
    r"[ \t]*(?:(?:export|override|private)[ \t]+)*(?P<name>[A-Za-z0-9_.-]+)[ \t]*"
    r"(?P<op>:::=|::=|:=|\?=|\+=|!=|=)"
)


_MAKE_DIRECTIVE = lazy(
    r"[ \t]*(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|export|"
    r"unexport|vpath|override)\b"
)


_PATH_VARS_RE = "|".join(CUDA_PATH_VARS)


_MAKE_WORD = lazy(
    r"(?P<path>(?:\$\((?P<pv>" + _PATH_VARS_RE + r")\)|\$\{(?P<bv>" + _PATH_VARS_RE + r")\}"
    r"|(?<![/.])/usr/local/cuda(?:-[0-9][0-9.]*)?(?![\w.-])|(?<![/.])/opt/cuda(?![\w.-]))"
    r"(?P<sub>/[\w.+-]+(?:/nvcc(?![\w.-]))?)?)"
    r"|(?P<var>(?<![\w])(?:" + _PATH_VARS_RE + r")(?![\w]))"
    r"|(?P<nvcc>(?:^|(?<=[\s=@'\"(,;]))(?:[^\s'\"(),;]*/)?nvcc(?![\w.-]))"
)


_FILE_WORD = lazy(r"[\w./$(){}-]+\.(?:cu|cuh|o|obj|cpp|cxx|cc|c|h|hpp|hip|a|so)$")


_CU_PATTERN = lazy(r"(?:(?<=[%*:])|^)\.cu(?=$|[=.:)\s,])")


def _make_lines(src: Src) -> list[_MakeLine]:
    text, out = src.text, []
    in_rule = False
    i = 0
    n_lines = len(src.line_starts)
    while i < n_lines and src.line_starts[i] < len(text):
        phys: list[_Phys] = []
        while True:
            ls, ce, _ = src.line_span(src.line_starts[i])
            body = text[ls:ce]
            slashes = len(body) - len(body.rstrip("\\"))
            cont = slashes % 2 == 1
            phys.append(_Phys(ls, ce - 1 if cont else ce, cont))
            i += 1
            if not cont or i >= n_lines or src.line_starts[i] >= len(text):
                break
        first = text[phys[0].start : phys[0].end]
        recipe = in_rule and first.startswith("\t")
        stripped = first.strip()
        if not recipe and stripped and not stripped.startswith("#"):
            # a rule line starts recipe context; any other non-blank line ends it
            in_rule = not _MAKE_ASSIGN.match(first) and not _MAKE_DIRECTIVE.match(first) and ":" in first
        words = _make_words(text, phys, recipe)
        out.append(_MakeLine(tuple(phys), recipe, tuple(words), stripped.startswith("#") and not recipe))
    return out


def _make_words(text: str, phys: Sequence[_Phys], recipe: bool) -> list[_Piece]:
    """Words outside comments; quotes keep blanks inside a word; unbalanced ')' are not part of it."""
    words: list[_Piece] = []
    for line in phys:
        j = line.start
        while j < line.end:
            c = text[j]
            if c in " \t":
                j += 1
                continue
            if c == "#" and (not recipe or j == line.start or text[j - 1] in " \t"):
                return words  # a comment runs to the end of the logical line
            k = j
            while k < line.end and text[k] not in " \t":
                if text[k] in "\"'":
                    close = text.find(text[k], k + 1, line.end)
                    k = close + 1 if close > 0 else line.end
                    continue
                if text[k] == "#" and not recipe and text[k - 1] != "\\":
                    break
                if text[k] == "\\":
                    k += 1
                k += 1
            word = text[j:k]
            while word.endswith((")", "}")) and word.count("(") + word.count("{") < word.count(
                ")"
            ) + word.count("}"):
                word = word[:-1]
            if word:
                words.append(_Piece(j, j + len(word), word))
            if k < line.end and text[k] == "#":
                return words
            j = k
    return words


class _WordChange(NamedTuple):
    text: str
    notes: tuple[Note, ...]
    rocm_used: bool


def _make_word(word: _Piece, renames: Renames) -> _WordChange:
    """Per-word rewrites: toolkit paths -> $(ROCM_PATH), nvcc -> hipcc, renamed sources."""
    renamed = renames.lookup(word.text)
    if renamed is not None:
        return _WordChange(renamed, (), False)
    notes: list[Note] = []
    used = False

    def sub(m: re.Match[str]) -> str:
        nonlocal used
        at, end = word.start + m.start(), word.start + m.end()
        if m.group("path"):
            used = True
            base = "${ROCM_PATH}" if m.group("bv") else "$(ROCM_PATH)"
            rest = m.group("sub") or ""
            if rest.endswith("/nvcc"):
                return base + "/bin/hipcc"
            if rest == "/lib64":
                return base + "/lib"
            if rest and rest not in ("/include", "/lib", "/bin"):
                notes.append(
                    Note(at, end, RULE_NOT_UNDERSTOOD, WARN, f"{m.group(0)}: no counterpart under ROCm")
                )
            return base + rest
        if m.group("var"):
            used = True
            return "ROCM_PATH"
        path = m.group("nvcc")
        if _PLAIN_PREFIX.fullmatch(path[: -len("/nvcc")] or "/"):
            return path[: -len("nvcc")] + "hipcc"  # /usr/bin/nvcc -> /usr/bin/hipcc (Debian's)
        return "hipcc"

    text = _MAKE_WORD.sub(sub, word.text)
    if renames.uniform_ext:
        text = _CU_PATTERN.sub(renames.uniform_ext, text)
    elif renames.table and _CU_PATTERN.search(text):
        notes.append(
            Note(
                word.start,
                word.end,
                RULE_NOT_UNDERSTOOD,
                WARN,
                "pattern over .cu files, but the renamed sources do not share one new extension",
                "update this pattern by hand",
            )
        )
    return _WordChange(text, tuple(notes), used)


_PLAIN_PREFIX = lazy(r"/(?:usr|opt)(?:/(?![\w.-]*cuda)[\w.+-]+)*/?")


_HIP_INCLUDE = lazy(r"-I\$[({]ROCM_PATH[)}]/include/?")


_HIP_PLATFORM = "-D__HIP_PLATFORM_AMD__"


_ARCH_VAR = lazy(r"(?i)\w*(?:arch|sm|compute|gencode)\w*")


_CUDA_ARCH_VALUE = lazy(r"(?:sm|compute)_\d+[a-z]?")


def _arch_assignment(line: _MakeLine, assign: re.Match[str], opts: BuildOptions) -> tuple[Edit, Note] | None:
    """`CUDA_ARCH ?= sm_70` (a variable of CUDA architecture names) -> the AMD targets."""
    if not _ARCH_VAR.fullmatch(assign.group("name")):
        return None
    values = [w for w in line.words if w.start >= assign.end()]
    if not values or not all(_CUDA_ARCH_VALUE.fullmatch(w.text) for w in values):
        return None
    note = arch_note(values[0].start, values[-1].end, opts)
    return edit(values[0].start, values[-1].end, " ".join(opts.offload_arch)), note


def _swallow_references(text: str, words: list[_Piece], new: dict[int, tuple[str, ...]]) -> None:
    """A replaced word that opens a reference the next words close (`-arch=compute_$(subst .,,$(X))`
    splits at the blank) takes those words with it, up to the closing parenthesis."""
    for k in sorted(new):
        depth = _open_refs(words[k].text)
        j = k + 1
        while depth > 0 and j < len(words) and j not in new:
            new[j] = ()
            depth += _open_refs(words[j].text)
            end = words[j].end
            while depth > 0 and end < len(text) and text[end] in ")}":
                end, depth = end + 1, depth - 1  # the word left its unbalanced closers out
            words[j] = _Piece(words[j].start, end, text[words[j].start : end])
            j += 1


def _open_refs(text: str) -> int:
    return text.count("$(") + text.count("${") - text.count(")") - text.count("}")


def _make_residue(word: _Piece, new_text: str, defined: frozenset[str]) -> list[Note]:
    if _FILE_WORD.search(new_text):
        return []
    notes = []
    for m in RESIDUE.finditer(new_text):
        tok = m.group(0)
        if tok in defined or re.fullmatch(r"NVCC\w*", tok):
            continue  # the user's own variable names are kept on purpose
        start, end = (word.start + m.start(), word.start + m.end()) if new_text == word.text else word[:2]
        notes.append(leftover_note(start, end, tok))
    return notes


def _nvcc_context(line: _MakeLine, assign: re.Match[str] | None) -> bool:
    if assign and re.search(r"(?i)nvcc|cuda|gencode|gpu|hip|^cu", assign.group("name")):
        return True
    return any(re.search(r"(?i)(?:^|[/@(])(?:nvcc|hipcc)\b|\$[({]NVCC", w.text) for w in line.words)


def translate_makefile(source: bytes, opts: BuildOptions) -> tuple[bytes, list[Diagnostic]]:
    """Translate a Makefile (or *.mk) from nvcc to hipcc.

    - nvcc as the compiler (`NVCC := nvcc`, `CC=nvcc`, a literal nvcc in a recipe) -> hipcc;
      variable names (NVCC, NVCCFLAGS) are kept so users' command lines keep working.
    - -arch/-gencode/--gpu-architecture/-code -> one --offload-arch per target per line.
    - libraries: -lcudart removed, -lcublas -> -lhipblas (roc: -lrocblas), ... (see LIBS).
    - toolkit paths ($(CUDA_PATH), /usr/local/cuda, lib64) -> $(ROCM_PATH)-based, with a
      `ROCM_PATH ?= /opt/rocm` line; definitions of CUDA_PATH/CUDA_HOME/... become that line.
    - other nvcc flags: mapped or dropped with HIP402 (see _SINGLE_FLAGS and _VALUE_FLAGS).
    - .cu pattern rules keep working (hipcc compiles .cu as HIP); with rename_sources, names and,
      when every .cu file gets one new extension, %.cu / *.cu / .cu= patterns follow.
    """
    src = Src.of(source)
    renames = Renames.of(opts.rename_sources)
    lines = _make_lines(src)
    assigns = [
        None if ln.recipe or ln.comment_only else _MAKE_ASSIGN.match(src.text, ln.phys[0].start)
        for ln in lines
    ]
    defined = frozenset(m.group("name") for m in assigns if m)
    rocm_defined = "ROCM_PATH" in defined
    edits: list[Edit] = []
    notes: list[Note] = []
    first_rocm_use: _Piece | None = None
    for line, assign in zip(lines, assigns, strict=True):
        if line.comment_only or not line.words:
            continue
        if assign and assign.group("name") in CUDA_PATH_VARS:
            values = [w for w in line.words if w.start >= assign.end()]
            end = values[-1].end if values else assign.end()
            # a plain prefix that is no CUDA path (`/usr`, where Debian's nvcc and hipcc both live) stays
            keep = len(values) == 1 and _PLAIN_PREFIX.fullmatch(values[0].text) is not None
            root = values[0].text if keep else ROCM_DEFAULT
            edits.append(edit(assign.start("name"), end, f"ROCM_PATH ?= {root}"))
            notes.append(
                Note(
                    assign.start("name"),
                    assign.end("name"),
                    RULE_NVCC_FLAG,
                    INFO,
                    f"{assign.group('name')} (CUDA toolkit location) replaced by ROCM_PATH ?= {root}",
                    "override it with `make ROCM_PATH=...`",
                )
            )
            rocm_defined = True
            continue
        if assign and not line.recipe:
            arch = _arch_assignment(line, assign, opts)
            if arch is not None:
                edits.append(arch[0])
                notes.append(arch[1])
                continue
        words = list(line.words)
        if assign is not None:  # only the value is translated; `CC=nvcc` is one word, split it
            cut = assign.end()
            words = [
                w if w.start >= cut else _Piece(cut, w.end, w.text[cut - w.start :])
                for w in words
                if w.end > cut
            ]
        nvcc_ctx = _nvcc_context(line, assign)
        host_platform = _HIP_PLATFORM in (w.text for w in line.words)
        new, flag_notes = translate_flags([w.text for w in words], opts, nvcc_ctx)
        _swallow_references(src.text, words, new)
        notes.extend(
            Note(words[fn.index].start, words[fn.index].end, fn.rule, fn.severity, fn.message, fn.hint)
            for fn in flag_notes
        )
        deletions: list[tuple[int, int]] = []
        for k, word in enumerate(words):
            if k in new:
                if new[k]:
                    if " ".join(new[k]) != word.text:
                        edits.append(edit(word.start, word.end, " ".join(new[k])))
                else:
                    deletions.append((word.start, word.end))
                continue
            change = _make_word(word, renames)
            notes.extend(change.notes)
            if change.rocm_used and first_rocm_use is None:
                first_rocm_use = word
            text = change.text
            if not nvcc_ctx and _HIP_INCLUDE.fullmatch(text) and not host_platform:
                # a host compiler (g++, $(CXX)) that reads HIP headers must be told the platform;
                # hipcc says it itself
                text += " " + _HIP_PLATFORM
                host_platform = True
                notes.append(
                    Note(
                        word.start,
                        word.end,
                        RULE_HOST,
                        INFO,
                        f"{_HIP_PLATFORM} added: host code compiled without hipcc includes HIP headers",
                    )
                )
            if text != word.text:
                edits.append(edit(word.start, word.end, text))
            notes.extend(_make_residue(word, text, defined))
        edits.extend(_make_deletions(src.text, line, deletions))
    if first_rocm_use is not None and not rocm_defined:
        at = next((ln.phys[0].start for ln in lines if ln.words and not ln.comment_only), 0)
        edits.append(edit(at, at, f"ROCM_PATH ?= {ROCM_DEFAULT}{src.nl}"))
        notes.append(
            Note(
                first_rocm_use.start,
                first_rocm_use.end,
                RULE_NVCC_FLAG,
                INFO,
                f"CUDA toolkit paths replaced by $(ROCM_PATH); added `ROCM_PATH ?= {ROCM_DEFAULT}`",
                "override it with `make ROCM_PATH=...`",
            )
        )
    return finish(src, edits, notes)


def _make_deletions(text: str, line: _MakeLine, spans: Sequence[tuple[int, int]]) -> list[Edit]:
    """Delete words of one logical line; continuation lines left empty disappear with their backslash."""
    if not spans:
        return []
    per_line: list[tuple[list[tuple[int, int]], bool]] = []
    for ph in line.phys:
        mine = [(s, e) for s, e in spans if ph.start <= s < ph.end]
        per_line.append(line_deletions(text, mine, ph.start, ph.end) if mine else ([], False))
    # the first line is never dropped: it carries the recipe tab or the assignment
    emptied = [k > 0 and bool(d) and empty for k, (d, empty) in enumerate(per_line)]
    last_kept = max(k for k, e in enumerate(emptied) if not e)
    edits: list[Edit] = []
    for k, ph in enumerate(line.phys):
        if k == last_kept and k < len(line.phys) - 1 and all(emptied[k + 1 :]):
            # the tail of the logical line vanished: end it here, without the backslash
            cut = ph.end
            while cut > ph.start and text[cut - 1] in " \t":
                cut -= 1
            deleted = per_line[k][0]
            edits.extend(edit(s, e, "") for s, e in deleted if e <= cut)
            cut = min([cut, *(s for s, e in deleted if e > cut)])
            edits.append(edit(cut, line.phys[-1].end, ""))
            break
        if emptied[k]:
            edits.append(edit(ph.start, line.phys[k + 1].start if k + 1 < len(line.phys) else ph.end, ""))
        else:
            edits.extend(edit(s, e, "") for s, e in per_line[k][0])
    return edits
