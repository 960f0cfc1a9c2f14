r"""Text for a terminal: the one place control characters from users' files are made visible.

Model names, item ids, file names and error messages come from files anyone can write. Printed
raw, an ESC sequence in a model name clears the screen, retitles the window or writes the
clipboard (OSC 52), a carriage return overwrites what was printed before, and bidirectional
overrides reorder what the reader sees. :func:`escape` replaces every such character by a
visible escape (``\\x1b``, ``\\u202e``): C0 and C1 control characters, DEL, and the Unicode
format characters that reorder or hide text. The command line passes every user-file string
through it, and writes its output through :class:`EscapingWriter` (which keeps only the line
breaks it composes itself).
"""
from __future__ import annotations

import re

__all__ = ["EscapingWriter", "escape"]

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")
_UNSAFE_BUT_NEWLINE = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def _visible(m: re.Match) -> str:
    code = ord(m.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape(text, *, keep_newlines: bool = False) -> str:
    r"""``str(text)`` with control and format characters shown as escapes (``\\n`` too, unless kept)."""
    return (_UNSAFE_BUT_NEWLINE if keep_newlines else _UNSAFE).sub(_visible, str(text))


class EscapingWriter:
    r"""A text stream wrapper whose ``write`` escapes everything but ``\\n`` (see :func:`escape`)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        return self.stream.write(escape(text, keep_newlines=True))

    def flush(self) -> None:
        self.stream.flush()
