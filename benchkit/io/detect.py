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
from benchkit.io._files import sniff
from benchkit.io._paths import path_kind
from benchkit.io._paths import walk

__all__ = ["FORMATS", "detect_format", "folder_formats", "read_any"]

FORMATS = ("inspect", "lm_eval", "helm", "evalscope", "every_eval_ever", "csv", "parquet")
_SNIFF = 1 << 20  # bytes read to recognize a file: no file is read whole to learn its format


def _head_text(path: Path) -> str | None:
    """The first MiB of ``path`` as UTF-8 text (a character cut at the end dropped), else None."""
    head = sniff(path, _SNIFF)
    if b"\x00" in head:
        return None
    head = head.removeprefix(b"\xef\xbb\xbf")
    try:
        return head.decode("utf-8") if len(head) < _SNIFF else head.decode("utf-8", "ignore")
    except UnicodeDecodeError:
        return None


def _first_json_line(path: Path):
    text = _head_text(path)
    if text is None:
        return None
    line = next((ln for ln in text.split("\n") if ln.strip()), None)
    try:
        return json.loads(line) if line is not None else None
    except json.JSONDecodeError:
        return None


def _first_text_line(path: Path) -> str | None:
    """The first non-empty line of a UTF-8 text file (at most 1 MiB read), else None."""
    text = _head_text(path)
    if text is None:
        return None
    return next((line for line in text.splitlines() if line.strip()), None)


def _head_json(path: Path):
    """The JSON document of ``path`` if it fits in the sniffed head, else None.

    For a longer JSON array: a list holding its first element.
    """
    text = _head_text(path)
    if text is None:
        return None
    try:
        return json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        pass
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            first, _ = json.JSONDecoder().raw_decode(stripped[1:].lstrip())
            return [first]
        except (json.JSONDecodeError, RecursionError):
            return None
    return None


def _head_keys(path: Path) -> set[str]:
    """Top-level keys named in the first MiB of a JSON object (without parsing the whole file)."""
    text = _head_text(path)
    if text is None or not text.lstrip().startswith("{"):
        return set()
    return {k for k in ("eval", "version", "request_states", "adapter_spec") if f'"{k}"' in text}


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


def folder_formats(path) -> list[tuple[str, str]]:
    """``(format, reason)`` of each tool whose logs the folder ``path`` holds (by file names).

    Several entries mean a folder mixing tools: :func:`detect_format` refuses it (reading one would
    leave the others out); the command line reads each with its own reader (``benchkit report``).

    Parameters
    ----------
    path : str or path
        A folder.

    Returns
    -------
    list of (str, str)
        ``(format, reason)`` per tool found, in the order lm_eval, evalscope, helm, inspect; empty
        when the file names point at no tool.

    References
    ----------
    The file names each tool writes: lm-evaluation-harness ``--log_samples``
    (``samples_<task>_<date>.jsonl``), EvalScope's ``reviews/`` folder, HELM's
    ``scenario_state.json``, Inspect's ``.eval`` logs (each reader's docstring cites its tool's
    documentation).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from benchkit.io.detect import folder_formats
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (tmp / "samples_mmlu_2026-12-01.jsonl").write_text("")
    >>> _ = (tmp / "run.eval").write_bytes(b"")
    >>> folder_formats(tmp)
    [('lm_eval', 'folder with samples_*.jsonl files'), ('inspect', 'folder with .eval logs')]
    """
    p = Path(path)
    names = [q.name for q in walk(p)]
    kinds = []
    if any(n.startswith("samples_") and n.endswith(".jsonl") for n in names):
        kinds.append(("lm_eval", "folder with samples_*.jsonl files"))
    if (p / "reviews").is_dir() or p.name == "reviews" or p.parent.name == "reviews":
        kinds.append(("evalscope", "EvalScope output folder (reviews/)"))
    if "scenario_state.json" in names:
        kinds.append(("helm", "folder with scenario_state.json (HELM run)"))
    if any(n.endswith(".eval") for n in names):
        kinds.append(("inspect", "folder with .eval logs"))
    return kinds


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
    kind = path_kind(p, "path")
    if kind == "dir":
        kinds = folder_formats(p)
        if len(kinds) > 1:  # reading one kind would leave the others out unnoticed
            raise BenchkitValueError(
                f"{str(p)!r} holds logs of several tools ({'; '.join(r for _, r in kinds)}); reading one "
                "would leave the others out: pass --format (format=...) or a folder of one tool's logs"
            )
        if kinds:
            return kinds[0]
        for q in [q for q in walk(p) if q.suffix == ".jsonl"][:1]:
            found = _classify_record(_first_json_line(q))
            if found:
                return found[0], f"folder whose {q.name} holds " + found[1]
        raise BenchkitValueError(f"{str(p)!r}: no evaluation files recognized in this folder")
    if kind != "file":
        raise BenchkitValueError(f"{str(p)!r} does not exist" if kind is None else
                                 f"{str(p)!r} is not a regular file")
    head = sniff(p, 4)
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
    keys = _head_keys(p)
    if {"eval", "version"} <= keys:
        return "inspect", "JSON object with 'eval' and 'version' (Inspect .json log)"
    if "request_states" in keys:
        return "helm", "JSON object with 'request_states' (HELM scenario state)"
    data = _head_json(p)
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
    Inspect / EvalScope samples without a score are left out and listed (``drop_unscored``), a log
    that disagrees with the counts and scores its tool declared is read and the mismatches listed
    (``allow_partial``, every tool reader), models
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
    if fmt not in ("csv", "parquet"):
        kwargs.setdefault("allow_partial", True)
    if fmt == "lm_eval":
        kwargs.setdefault("filter", "first")
    if fmt not in ("csv", "parquet"):
        kwargs.setdefault("sample_budget", "per_model")
    return readers[fmt](path, **kwargs), fmt, reason
