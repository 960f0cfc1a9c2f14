"""Recognize an evaluation file or folder by its content, and read it with the matching reader.

Used by ``benchkit info FILE``. Content decides, not the file name: a zip holding
``header.json`` / ``_journal/start.json`` is an Inspect ``.eval`` log; a JSON object with
``eval`` and ``version`` an Inspect ``.json`` log; JSON Lines whose first record has ``doc_id``
and ``filtered_resps`` lm-eval samples, ``sample_score`` EvalScope reviews,
``schema_version`` + ``evaluation_id`` + ``sample_id`` Every Eval Ever instances; a JSON object
with ``request_states`` a HELM scenario state; Parquet magic bytes Parquet; a folder is classified by
the files it holds. When the content says nothing, a case-insensitive suffix does (``.csv``;
``.parquet`` / ``.pq``), and UTF-8 text whose comma-separated header names a ``model``, ``item``,
``correct`` or ``n_correct`` column is read as CSV.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from benchkit._validation import BenchkitValueError

__all__ = ["FORMATS", "detect_format", "read_any"]

FORMATS = ("inspect", "lm_eval", "helm", "evalscope", "every_eval_ever", "csv", "parquet")


def _first_json_line(path: Path):
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    try:
                        return json.loads(line)
                    except json.JSONDecodeError:
                        return None
    except UnicodeDecodeError:
        return None
    return None


def _first_text_line(path: Path) -> str | None:
    """The first non-empty line of a UTF-8 text file (at most 64 KiB read), else None."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            head = fh.read(65536)
    except (UnicodeDecodeError, OSError):
        return None
    if "\x00" in head:
        return None
    return next((line for line in head.splitlines() if line.strip()), None)


def _classify_record(rec) -> tuple[str, str] | None:
    if not isinstance(rec, dict):
        return None
    if "sample_score" in rec:
        return "evalscope", "JSON Lines records with 'sample_score' (EvalScope ReviewResult)"
    if {"schema_version", "evaluation_id", "sample_id"} <= rec.keys():
        return "every_eval_ever", "JSON Lines records with schema_version, evaluation_id, sample_id"
    if "doc_id" in rec and ("filtered_resps" in rec or "resps" in rec):
        return "lm_eval", "JSON Lines records with doc_id and filtered_resps (lm-eval --log_samples)"
    return None


def detect_format(path) -> tuple[str, str]:
    r"""``(format, reason)`` for a file or folder; an error when nothing matches.

    What ``benchkit info`` runs first: which tool wrote these files, judged from names, magic
    bytes and the first record, before any reader is chosen.

    Parameters
    ----------
    path : str or path
        A file or a folder.

    Returns
    -------
    format : str
        ``"inspect"``, ``"lm_eval"``, ``"helm"``, ``"evalscope"``, ``"every_eval_ever"``,
        ``"csv"`` or ``"parquet"``.
    reason : str
        What gave it away (e.g. "Parquet magic bytes").

    References
    ----------
    The formats of the readers of :mod:`benchkit.io` (each reader's docstring cites its tool's
    documentation); the Parquet magic number ``PAR1`` of https://parquet.apache.org/docs/.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> from benchkit.io.detect import detect_format
    >>> _ = (tmp / "results.csv").write_text("model,item,correct\nm1,q1,1\n")
    >>> detect_format(tmp / "results.csv")
    ('csv', 'comma-separated text (.csv)')
    """
    p = Path(path)
    if p.is_dir():
        kinds = []
        if any(p.rglob("samples_*.jsonl")):
            kinds.append(("lm_eval", "folder with samples_*.jsonl files"))
        if (p / "reviews").is_dir() or p.name == "reviews" or p.parent.name == "reviews":
            kinds.append(("evalscope", "EvalScope output folder (reviews/)"))
        if any(p.rglob("scenario_state.json")):
            kinds.append(("helm", "folder with scenario_state.json (HELM run)"))
        if any(p.rglob("*.eval")):
            kinds.append(("inspect", "folder with .eval logs"))
        if len(kinds) > 1:  # reading one kind would leave the others out unnoticed
            raise BenchkitValueError(
                f"{str(p)!r} holds logs of several tools ({'; '.join(r for _, r in kinds)}); reading one "
                "would leave the others out: pass --format (format=...) or a folder of one tool's logs"
            )
        if kinds:
            return kinds[0]
        for q in sorted(p.rglob("*.jsonl"))[:1]:
            found = _classify_record(_first_json_line(q))
            if found:
                return found[0], f"folder whose {q.name} holds " + found[1]
        raise BenchkitValueError(f"{str(p)!r}: no evaluation files recognized in this folder")
    if not p.is_file():
        raise BenchkitValueError(f"{str(p)!r} does not exist")
    with open(p, "rb") as fh:
        head = fh.read(4)
    if head.startswith(b"PK"):
        try:
            with zipfile.ZipFile(p) as zf:
                names = set(zf.namelist())
        except zipfile.BadZipFile as exc:
            raise BenchkitValueError(f"{str(p)!r} looks like a zip file but is not readable") from exc
        if names & {"header.json", "_journal/start.json", "start.json"}:
            return "inspect", "zip archive with header.json / _journal/start.json (Inspect .eval log)"
        raise BenchkitValueError(f"{str(p)!r} is a zip archive but not an Inspect log")
    if head == b"PAR1":
        return "parquet", "Parquet magic bytes"
    suffix = p.suffix.lower()
    if suffix in (".parquet", ".pq"):  # not Parquet by content: read_parquet says what is wrong
        return "parquet", f"file name ending {p.suffix}"
    if suffix == ".csv":
        return "csv", f"comma-separated text ({p.suffix})"
    rec = _first_json_line(p)
    found = _classify_record(rec)
    if found:
        return found
    try:
        with open(p, encoding="utf-8") as fh:
            data = json.load(fh)
    except (json.JSONDecodeError, UnicodeDecodeError):
        data = None
    if isinstance(data, dict) and "eval" in data and "version" in data:
        return "inspect", "JSON object with 'eval' and 'version' (Inspect .json log)"
    if isinstance(data, dict) and "request_states" in data:
        return "helm", "JSON object with 'request_states' (HELM scenario state)"
    if isinstance(data, list) and data:
        found = _classify_record(data[0])
        if found:
            return found
    first = _first_text_line(p)
    if data is None and first is not None and "," in first and not first.lstrip().startswith(("{", "[")):
        columns = {c.strip().strip('"').lower() for c in first.split(",")}
        if columns & {"model", "item", "correct", "n_correct"}:
            return "csv", "comma-separated text whose header names model / item / correct columns"
    raise BenchkitValueError(
        f"{str(p)!r}: format not recognized (expected an Inspect log, lm-eval samples, HELM run, EvalScope "
        "reviews, Every Eval Ever records, CSV or Parquet)"
    )


def read_any(path, *, fmt: str | None = None, **options):
    r"""Read ``path`` with the reader of its detected (or given) format: (ResponseSet, format, reason).

    Lenient where a reader would stop at the first doubt, so ``info`` can show what is there:
    Inspect / EvalScope samples without a score are left out and listed (``drop_unscored``), Inspect
    samples a log declares but lacks are listed (``allow_missing``), models
    may differ in sample budget (``sample_budget="per_model"``), and lm-eval tasks logging several
    filters are read with their first (``filter="first"``).

    Parameters
    ----------
    path : str or path
        A file or a folder.
    fmt : str, optional
        The format, as :func:`detect_format` names it (default: detected).
    **options
        Passed to the reader; they override the lenient defaults above.

    Returns
    -------
    responses : ResponseSet
        What the reader built.
    format : str
        The format used.
    reason : str
        Why (``"given"`` when ``fmt`` was passed).

    References
    ----------
    The formats of the readers of :mod:`benchkit.io` (each reader's docstring cites its tool's
    documentation).

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from benchkit import io
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> from benchkit.io.detect import read_any
    >>> _ = (tmp / "results.csv").write_text("model,item,correct\nm1,q1,1\nm1,q2,0\n")
    >>> rs, fmt, reason = read_any(tmp / "results.csv")
    >>> fmt, rs.n_items
    ('csv', 2)
    """
    from benchkit import io

    reason = "given"
    if fmt is None:
        fmt, reason = detect_format(path)
    readers = {"inspect": io.read_inspect, "lm_eval": io.read_lm_eval, "helm": io.read_helm,
               "evalscope": io.read_evalscope, "every_eval_ever": io.read_every_eval_ever,
               "csv": io.read_csv, "parquet": io.read_parquet}
    if fmt not in readers:
        raise BenchkitValueError(f"format={fmt!r} is not allowed; choose one of {sorted(readers)}")
    kwargs = dict(options)
    if fmt in ("inspect", "evalscope"):
        kwargs.setdefault("drop_unscored", True)
    if fmt == "inspect":
        kwargs.setdefault("allow_missing", True)
    if fmt == "lm_eval":
        kwargs.setdefault("filter", "first")
    if fmt not in ("csv", "parquet"):
        kwargs.setdefault("sample_budget", "per_model")
    return readers[fmt](path, **kwargs), fmt, reason
