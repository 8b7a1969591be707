"""User-written event-rule patterns, run by google-re2: its time is linear in the text, so no pattern can stall the
receivers' writer thread (Python's backtracking `re` needs 2^n steps for `(\\w+\\s?)+$` on n letters not at the
end of a line, holding the GIL all along). re2 has no backreferences nor lookarounds; the form says so."""

from __future__ import annotations

import functools
import logging
import re

import re2

log = logging.getLogger(__name__)
TEXT_MAX = 2000  # characters of an event's text a pattern sees (the text is stored up to as many)
MAX_MEM = 8 << 20  # bytes re2 may use for one compiled pattern; a bigger one is refused as too large
BACKREFERENCE = re.compile(r"^invalid escape sequence: \\[1-9]|^invalid perl operator: \(\?P=")
LOOKAROUND = re.compile(r"^invalid perl operator: \(\?<?[=!]")


class PatternError(ValueError):
    """A pattern re2 cannot run; the text says why in words an operator can act on."""


def _options() -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False  # as rules always matched
    options.log_errors = False  # the caller reports the error, once
    options.max_mem = MAX_MEM
    return options


def compile_pattern(pattern: str):
    """The compiled pattern, or PatternError saying why re2 refuses it."""
    try:
        return re2.compile(pattern, _options())
    except re2.error as exc:
        raise PatternError(explain(exc)) from None
    except UnicodeEncodeError:
        raise PatternError("it holds characters that are not text (lone surrogates)") from None


def explain(exc: Exception) -> str:
    """re2's error in words: what is not supported, or re2's own message."""
    raw = exc.args[0] if exc.args else ""
    message = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if BACKREFERENCE.search(message):
        return r"backreferences (\1, (?P=name)) are not supported"
    if LOOKAROUND.search(message):
        return "lookarounds ((?=, (?!, (?<=, (?<!) are not supported"
    if message.startswith("invalid repetition size"):
        return f"{message} (counts up to 1000, nested ones multiplied)"
    if "too large" in message or "out of memory" in message:
        return f"the pattern is too large (it would need more than {MAX_MEM >> 20} MB)"
    return message or "re2 cannot compile it"


@functools.lru_cache(maxsize=512)
def compiled(pattern: str):
    """A rule's pattern compiled once per process; None when re2 cannot run it (logged once, matches nothing)."""
    try:
        return compile_pattern(pattern)
    except PatternError as exc:
        log.warning("event rule pattern %r cannot run (%s): it matches no event until fixed", pattern[:200], exc)
        return None


def matches(pattern: str, text: str) -> bool:
    """Whether the pattern occurs in the text's first TEXT_MAX characters, case-insensitively; never raises."""
    found = compiled(pattern)
    if found is None:
        return False
    text = text[:TEXT_MAX]
    try:
        return found.search(text) is not None
    except UnicodeEncodeError:  # a lone surrogate in a device string: what re2 can read of it
        return found.search(text.encode("utf-8", "replace").decode("utf-8")) is not None


def problem(pattern: str) -> str:
    """Why a stored pattern cannot run, or "" (the system check and the rule admin ask)."""
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return ""
