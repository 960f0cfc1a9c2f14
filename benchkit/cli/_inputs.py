"""PATH... for the analysis commands: read each input, record what was read and skipped, join them.

A PATH is anything ``benchkit info`` reads (a log, a folder of logs, CSV/Parquet) or
``dataset:NAME`` (a public dataset by name, as ``benchkit fetch NAME``; ``dataset:NAME/PART`` for
one response set of a dataset that loads several, e.g. ``dataset:eval-arena/humaneval``). A
folder holding the logs of several tools is read with each tool's reader (``benchkit info``
refuses it, pointing to ``--format``). Several inputs become one ResponseSet: their model x item
cells must not overlap and an item described twice must be described the same way (nothing is
merged silently).
"""
from __future__ import annotations

from dataclasses import field
from pathlib import Path

import pandas as pd

from benchkit._results import result
from benchkit._terminal import escape
from benchkit._validation import BenchkitValueError

DATASET_PREFIX = "dataset:"
_LIST_COLUMNS = ("options",)


@result
class Input:
    """One reader's read of one input: where, how, what it read and skipped, and the files' sha256."""

    path: str
    format: str
    reason: str
    summary: str
    skipped: tuple[str, ...]
    files: tuple[tuple[str, str], ...] = field(default=())  # (file, sha256)

    def to_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "reason": self.reason, "summary": self.summary,
                "skipped": list(self.skipped), "files": [{"file": f, "sha256": h} for f, h in self.files]}


def _files(path: Path) -> tuple[tuple[str, str], ...]:
    from benchkit.datasets._fetch import sha256_of

    if path.is_file():
        return ((path.name, sha256_of(path)),)
    return tuple((str(q.relative_to(path)), sha256_of(q)) for q in sorted(path.rglob("*")) if q.is_file())


def _listed(out: list[str], entries, what: str, line, limit: int = 10) -> None:
    """``N what:`` then up to ``limit`` entries, one line each, and how many more."""
    if not entries:
        return
    out.append(f"{len(entries)} {what}:")
    out.extend(f"  {line(e)}" for e in entries[:limit])
    if len(entries) > limit:
        out.append(f"  ... {len(entries) - limit} more")


def skipped_lines(rs) -> list[str]:
    """What a reader left out or found inconsistent (from ``rs.meta`` and ``rs.report``), escaped."""
    meta = rs.meta or {}
    out = []
    _listed(out, meta.get("unscored"), "samples without a usable score",
            lambda u: f"{escape(u.get('id', u.get('item')))} (epoch/sample "
                      f"{escape(u.get('epoch', u.get('sample')))}): "
                      f"{escape(u.get('error') or u.get('why') or 'no score')}")
    _listed(out, meta.get("missing"), "samples the log declares but does not hold",
            lambda m: f"{escape(m.get('file'))}: " + (f"id {escape(repr(m['id']))} epoch {m.get('epoch')}"
                                                      if m.get("id") is not None else "(not named)"))
    partial = meta.get("partial") or []
    if partial:
        out.append(f"{len(partial)} mismatch(es) with what the tool declared (a partial or edited log):")
        for m in partial[:10]:
            out.append(f"  {escape(m['where'])}: {escape(m['what'])}: declared "
                       f"{escape(repr(m['declared']))}, read {escape(repr(m['found']))}")
    if meta.get("other_scorers"):
        out.append(f"other scorers (pass scorer=... to read one): {escape(meta['other_scorers'])}")
    if meta.get("skipped_filters"):
        out.append(f"records of other filters: {escape(meta['skipped_filters'])}")
    if meta.get("skipped_results"):
        out.append(f"records of other results: {escape(meta['skipped_results'])}")
    out.extend(escape(note) for note in meta.get("joined") or [])
    report = getattr(rs, "report", None)
    if report:
        out.extend(escape(line) for line in str(report).split("\n"))
    return out


def _summary(rs) -> str:
    """The first line of the ResponseSet's repr (the drop report follows it; ``skipped`` lists that)."""
    return escape(repr(rs).split("\n")[0])


def _dataset(spec: str):
    from benchkit.datasets import fetch
    from benchkit.datasets import names
    from benchkit.datasets import source

    name, _, part = spec.partition("/")
    part = part or None
    if name not in names():
        raise BenchkitValueError(f"{DATASET_PREFIX}{name}: no such dataset; choose one of {sorted(names())}")
    from benchkit.response_set import ResponseSet

    rs = fetch(name)
    if isinstance(rs, dict) and rs and all(isinstance(v, ResponseSet) for v in rs.values()):
        if part is None:  # a loader returning {benchmark: ResponseSet}: the user names the part(s)
            raise BenchkitValueError(
                f"{DATASET_PREFIX}{name} holds several response sets ({', '.join(map(repr, rs))}); name one "
                f"as {DATASET_PREFIX}{name}/PART (several PATHs are joined)")
        if part not in rs:
            raise BenchkitValueError(f"{DATASET_PREFIX}{name}/{part}: no such part; choose one of {list(rs)}")
        rs = rs[part]
    elif part is not None:
        raise BenchkitValueError(f"{DATASET_PREFIX}{name}/{part}: dataset {name!r} has no parts")
    if not isinstance(rs, ResponseSet):
        raise BenchkitValueError(
            f"{DATASET_PREFIX}{name} loads a {type(rs).__name__}, not a response set (its default part); "
            f"build one in Python from benchkit.datasets.fetch({name!r}) and write it to Parquet")
    src = source(name)
    return rs, Input(path=f"{DATASET_PREFIX}{spec}", format="dataset",
                     reason=f"public dataset {src.repo_url} at commit {src.commit} ({src.license}); the "
                            "files are the source's pinned ones, each checked against its sha256 when read",
                     summary=_summary(rs), skipped=tuple(skipped_lines(rs)),
                     files=tuple((f.path, f.sha256) for f in src.files))


def existing_file(path: str, what: str) -> Path:
    """``path`` as a Path; an error naming ``what`` when it is not a regular file."""
    p = Path(path)
    if not p.is_file():
        raise BenchkitValueError(f"{what} {path!r} does not exist or is not a file")
    return p


def side_table(path: str | None, key: str, what: str | None = None) -> pd.DataFrame | None:
    """``--item-table`` / ``--model-table``: a CSV or Parquet table with a ``key`` column (ids as str)."""
    if path is None:
        return None
    what = what or f"--{key}-table"
    p = existing_file(path, what)
    try:
        if p.suffix.lower() == ".csv":
            frame = pd.read_csv(p, dtype={key: str}, keep_default_na=False, na_values=[""])
        else:
            frame = pd.read_parquet(p)
    except (ValueError, OSError, UnicodeDecodeError) as exc:
        raise BenchkitValueError(f"{what} {path!r} is not a readable CSV or Parquet table: "
                                 f"{exc}") from None
    if key not in frame.columns:
        raise BenchkitValueError(f"{what} {path!r} has no {key!r} column; it has "
                                 f"{list(frame.columns)}")
    return frame


def read_one(path: str, fmt: str | None = None, **tables) -> list[tuple[object, Input]]:
    """``[(ResponseSet, Input)]`` for one PATH (several for a folder mixing tools' logs)."""
    from benchkit.io._paths import path_kind
    from benchkit.io.detect import folder_formats
    from benchkit.io.detect import read_any

    if path.startswith(DATASET_PREFIX):
        return [_dataset(path[len(DATASET_PREFIX):])]
    p = Path(path)
    kinds = [(fmt, "--format")] if fmt else None
    if kinds is None and path_kind(p, "path") == "dir":
        found = folder_formats(p)
        kinds = found if len(found) > 1 else None
    if kinds is None:
        kinds = [(None, "")]
    out = []
    files = _files(p) if p.exists() else ()
    for kind, why in kinds:
        options = {k: v for k, v in tables.items() if v is not None}
        if options and kind not in (None, "csv", "parquet"):
            raise BenchkitValueError(f"{path!r}: --items / --models describe CSV/Parquet responses; a "
                                     f"{kind} log carries its own items and models")
        rs, used, reason = read_any(path, fmt=kind, **options)
        reason = why if kind and why else reason
        if len(kinds) > 1:
            reason = f"{reason}; the folder mixes tools, each read with its own reader"
        out.append((rs, Input(path=str(path), format=used, reason=reason, summary=_summary(rs),
                              skipped=tuple(skipped_lines(rs)), files=files)))
    return out


def read_inputs(paths, fmt: str | None = None, *, items: str | None = None, models: str | None = None):
    """``(ResponseSet, [Input])``: every PATH read and joined into one ResponseSet."""
    tables = {"items": side_table(items, "item"), "models": side_table(models, "model")}
    reads = [r for path in paths for r in read_one(path, fmt, **tables)]
    if len(reads) == 1:
        return reads[0][0], [reads[0][1]]
    return join([rs for rs, _ in reads], [i.path + f" ({i.format})" for _, i in reads]), [i for _, i in reads]


def _side_table(frames: list[pd.DataFrame], names: list[str], what: str) -> pd.DataFrame:
    """Row tables (items or models) of several inputs as one; a row given twice must agree."""
    seen: dict = {}
    rows = []
    for frame, name in zip(frames, names):
        for key, row in frame.iterrows():
            if key in seen:
                other, first = seen[key]
                if not row.reindex(other.index).equals(other.reindex(row.index)):
                    raise BenchkitValueError(
                        f"{what} {key!r} is described differently by {first} and {name}; "
                        f"join the inputs yourself (ResponseSet.from_long) to say which is right")
                continue
            seen[key] = (row, name)
            rows.append(row)
    return pd.DataFrame(rows, columns=pd.Index(dict.fromkeys(c for f in frames for c in f.columns)))


def join(sets: list, names: list[str]):
    """One ResponseSet from several (cells must not overlap; shared items and models must agree)."""
    from benchkit.response_set import ResponseSet

    longs = []
    owner: dict = {}
    for rs, name in zip(sets, names):
        long = rs.to_long()
        for cell in long[["model", "item"]].drop_duplicates().itertuples(index=False):
            if tuple(cell) in owner:
                raise BenchkitValueError(
                    f"model {cell[0]!r} answers item {cell[1]!r} in both {owner[tuple(cell)]} and {name}; "
                    "pass inputs that do not overlap")
            owner[tuple(cell)] = name
        longs.append(long)
    items = _side_table([rs.items for rs in sets], names, "item")
    items.index.name = "item"
    notes = []
    partial = [c for c in _LIST_COLUMNS
               if c in items.columns and not all(c in rs.items.columns for rs in sets)]
    if partial:  # a list per item is required where the column exists; not every input has one
        items = items.drop(columns=partial)
        notes.append(f"items column(s) {partial} left out: not every input has them")
    models = _side_table([rs.models for rs in sets], names, "model")
    models.index.name = "model"
    models = models.drop(columns=[c for c in ("order",) if c in models.columns])
    long = pd.concat(longs, ignore_index=True)
    return ResponseSet.from_long(long, items=items.reset_index(), models=models.reset_index(),
                                 sample_budget="per_model", parse_names=False,
                                 meta={"inputs": names, "joined": notes})
