"""JSON Lines records with line-numbered errors, for the readers and the dataset loaders."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from benchkit._validation import BenchkitValueError


def iter_jsonl(path, text: str) -> Iterator[tuple[int, Any]]:
    """``(line number, record)`` for each non-blank line of ``text`` (the contents of ``path``).

    Lines are split on newlines only (not ``str.splitlines``): U+2028 and other separators may
    stand inside a JSON string. A line that is not JSON raises ``BenchkitValueError`` naming
    ``path:line``.
    """
    for lineno, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BenchkitValueError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
        yield lineno, rec
