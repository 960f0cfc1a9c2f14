"""The runners' results store: one JSON record per finished prompt, appended to a JSONL file.

:func:`~benchkit.landscape.steps.run_prompts` appends a record per prompt keyed by
``model<TAB>item<TAB>variant`` after every batch; ``_read_jsonl`` reads the complete records back
(an incomplete last line, from an interrupted write, is counted and skipped; any other bad line is
an error), ``_records_frame`` makes them the :attr:`RunResult.records` table, and
:func:`read_results` (public through :mod:`benchkit.landscape.steps`) reads a file, the last
record of a key winning.
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import describe

__all__ = ["read_results"]

_RECORD_FIELDS = ("key", "model", "item", "variant", "letters", "option_logprobs", "n_missing",
                  "token", "answer_index", "digest")



def _read_jsonl(path: Path) -> tuple[list[dict], int]:
    """Complete records of ``path`` and the number of discarded incomplete lines."""
    if not path.exists():
        return [], 0
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    records, bad = [], 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            rec = json.loads(line.decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            if i == len(lines) - 1:  # trailing partial line: the run was interrupted mid-write
                bad += 1
                continue
            raise BenchkitValueError(
                f"{path}: line {i + 1} is not valid JSON; the results file is damaged"
            ) from None
        if not isinstance(rec, dict) or "key" not in rec:
            raise BenchkitValueError(f"{path}: line {i + 1} is not a results record")
        records.append(rec)
    return records, bad


def _records_frame(recs: list[dict]) -> pd.DataFrame:
    cols = [c for c in _RECORD_FIELDS if c != "key"]
    if not recs:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in cols})
    df = pd.DataFrame([{c: r.get(c) for c in cols} for r in recs])
    df["letters"] = [tuple(x) for x in df["letters"]]
    df["option_logprobs"] = [[(-math.inf if v is None else float(v)) for v in x]
                             for x in df["option_logprobs"]]
    df["n_missing"] = df["n_missing"].fillna(0).astype(np.int64)
    df["letter_missing"] = df["n_missing"].to_numpy() > 0
    return df


def read_results(path: str | os.PathLike) -> pd.DataFrame:
    """Read a results JSONL file written by :func:`run_prompts` (see :class:`RunResult`).

    An incomplete last line (an interrupted write) is skipped. When a key occurs more than once the
    last record wins. A path that is not a file is an error (not an empty table).

    Parameters
    ----------
    path : str or path-like
        The JSONL file given to :func:`run_prompts` as ``path``.

    Returns
    -------
    DataFrame
        One row per finished prompt, the columns of :attr:`RunResult.records`.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3. JSON Lines,
    https://jsonlines.org (the file format).

    Examples
    --------
    >>> import os, tempfile
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import CallableBackend, baseline, read_results, render, run_prompts
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Is water wet?"], "answer_key": ["A"],
    ...                       "options": [["yes", "no"]]})
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.jsonl")
    >>> backend = CallableBackend(lambda p: {"A": -0.1, "B": -2.4}, model="toy", batched=False)
    >>> _ = run_prompts(render(baseline(items)), backend, path=path, progress=False)
    >>> read_results(path)[["model", "item", "letters", "option_logprobs"]]
      model item letters option_logprobs
    0   toy   q1  (A, B)    [-0.1, -2.4]
    """
    if not isinstance(path, (str, os.PathLike)):
        raise BenchkitTypeError(f"path must be a file path, got {describe(path)}")
    if not Path(path).is_file():
        raise BenchkitValueError(f"path={str(path)!r} is not a file (run_prompts writes the results file)")
    recs, _ = _read_jsonl(Path(path))
    last = {r["key"]: r for r in recs}
    return _records_frame(list(last.values()))

