"""What the analysis commands share: common options, ``-o KEY=VALUE`` conversion, tables, the summary.

Every analysis command calls one public entry point with the ResponseSet read from PATH... and the
keyword arguments its options name (:func:`call_text` prints that call, so the summary says what
ran and ``--json`` carries it); its tables are the result's own (:func:`result_tables`), written
as they are, so the command's output equals the API's.
"""
from __future__ import annotations

import argparse
import inspect
import json
import types
import typing
from pathlib import Path
from typing import Any

import pandas as pd

from benchkit._terminal import escape
from benchkit._validation import BenchkitValueError

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}
TABLE_SUFFIXES = (".parquet", ".csv")


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help text with the command's example block kept as written."""


def convert(key: str, text: str, hint: Any) -> Any:
    """``text`` (from ``-o key=text``) as the parameter's annotated type ``hint``."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = typing.get_args(hint)
        if type(None) in args and text.strip().lower() == "none":
            return None
        errors = []
        for arg in (a for a in args if a is not type(None)):
            try:
                return convert(key, text, arg)
            except BenchkitValueError as exc:
                errors.append(str(exc))
        raise BenchkitValueError(errors[0] if errors else f"--option {key}={text!r} cannot be converted")
    if hint is str:
        return text
    if hint is Any or hint is inspect.Parameter.empty:  # unannotated: a JSON literal, else the text
        literal = _json_literal(text)
        return text if literal is None else literal[0]
    if hint is bool:
        low = text.strip().lower()
        if low in _TRUE | _FALSE:
            return low in _TRUE
        raise BenchkitValueError(f"--option {key}={text!r} must be a bool (true/false, yes/no, 1/0)")
    if hint in (int, float):
        try:
            return hint(text)
        except ValueError:
            kind = "an int" if hint is int else "a float"
            raise BenchkitValueError(f"--option {key}={text!r} must be {kind}") from None
    container = origin or hint
    if container in (list, tuple, set, frozenset, dict) or (
            isinstance(container, type) and container.__module__ == "collections.abc"):
        stripped = text.strip()
        if stripped.startswith(("[", "{")):
            try:
                value = json.loads(stripped)
            except json.JSONDecodeError as exc:
                raise BenchkitValueError(f"--option {key}={text!r} is not valid JSON: {exc}") from None
        elif container is dict or "Mapping" in getattr(container, "__name__", ""):
            raise BenchkitValueError(
                f"--option {key}={text!r} must be a JSON object, e.g. {key}='{{\"a\": 1}}'"
            )
        else:
            value = [v.strip() for v in stripped.split(",") if v.strip()]
        return value
    return text


def _json_literal(text: str):
    """``(value,)`` when ``text`` is a JSON number, list, object, bool or null; else None."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return (value,) if not isinstance(value, str) else None


def split_pairs(items: list[str], parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    pairs = []
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            parser.error(f"--option {item!r} must look like KEY=VALUE")
        pairs.append((key, value))
    return pairs


def keyword_options(func, pairs: list[tuple[str, str]], what: str, *, reserved=()) -> dict:
    """``-o KEY=VALUE`` pairs converted to the annotated types of ``func``'s keyword parameters."""
    params = inspect.signature(func).parameters
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # pragma: no cover - an annotation that cannot be resolved: keep strings
        hints = {}
    allowed = [n for n, p in params.items() if p.default is not inspect.Parameter.empty]
    options = {}
    for key, text in pairs:
        if key not in allowed:
            raise BenchkitValueError(
                f"--option {key}=... is not an option of {what}; its options: {', '.join(allowed) or 'none'}"
            )
        if key in reserved:
            raise BenchkitValueError(f"--option {key}=... is set by this command's own options (see --help); "
                                     "use those")
        hint = hints.get(key, params[key].annotation)
        if hint is inspect.Parameter.empty and params[key].default not in (None, inspect.Parameter.empty):
            hint = type(params[key].default)
        options[key] = convert(key, text, hint)
    return options


def add_inputs(p: argparse.ArgumentParser, *, nargs: str = "+") -> None:
    p.add_argument("paths", nargs=nargs, metavar="PATH",
                   help="a log, a folder of logs (several tools' logs are each read with their reader), "
                        "a CSV/Parquet file, or dataset:NAME[/PART] (a public dataset, see `benchkit "
                        "datasets`); "
                        "several PATHs are joined (their model x item cells must not overlap)")
    p.add_argument("--format", default=None, dest="fmt",
                   choices=("inspect", "lm_eval", "helm", "evalscope", "every_eval_ever", "csv", "parquet"),
                   help="skip content detection (every PATH has this format)")
    p.add_argument("--item-table", default=None, metavar="FILE",
                   help="CSV/Parquet table of the items (an 'item' column; benchmark, answer_key, text, "
                        "...) for CSV/Parquet responses")
    p.add_argument("--model-table", default=None, metavar="FILE",
                   help="CSV/Parquet table of the models (a 'model' column; family, owner, size, ...)")


def add_common(p: argparse.ArgumentParser, *, out_help: str, seed: bool = True, jobs: bool = True,
               fail_on: str | None = None, options: bool = True) -> None:
    g = p.add_argument_group("common options")
    g.add_argument("--out", metavar="FILE|DIR", default=None, help=out_help)
    g.add_argument("--quiet", "-q", action="store_true", help="no progress bars on stderr")
    g.add_argument("--json", action="store_true", dest="as_json",
                   help="print a machine-readable summary (JSON) on stdout instead of the paragraph")
    if seed:
        g.add_argument("--seed", type=int, default=0, metavar="INT",
                       help="root seed of every random stage (rng=SEED; default 0, so runs repeat)")
    if jobs:
        g.add_argument("-j", "--jobs", type=int, default=None, metavar="N",
                       help="workers for the resampling stages (n_jobs; results do not depend on it)")
    if fail_on:
        g.add_argument("--fail-on", type=int, default=None, metavar="N",
                       help=f"exit with code 1 when at least N {fail_on} (default: never; exit 0 "
                            "whenever the analysis ran)")
    if options:
        g.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                       help="any other keyword of the entry point, converted to its annotated type "
                            "(lists: a,b or JSON; mappings: JSON)")


def call_text(name: str, data: str, kwargs: dict) -> str:
    """The Python call a command makes, e.g. ``benchkit.boundary.profile(rs, axis='accuracy')``."""
    shown = ", ".join([data] + [f"{k}={v!r}" for k, v in kwargs.items() if k != "progress"])
    return f"{name}({shown})"


# ----------------------------------------------------------------------------- tables
def _is_table_method(result, name: str) -> bool:
    if name.startswith("_") or not (name == "to_frame" or name.endswith("_frame")
                                    or (name.startswith("table") and name[5:].isdigit())):
        return False
    fn = getattr(result, name, None)
    if not callable(fn):
        return False
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover
        return False
    return all(p.default is not inspect.Parameter.empty or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in params)


def result_tables(result, main: str) -> dict[str, pd.DataFrame]:
    """Every table a result gives, by name.

    ``to_frame()`` (named ``main``), each ``*_frame()`` / ``tableN()`` method that needs no argument,
    and each DataFrame field, in that order.
    """
    tables = {main: result.to_frame()}
    for name in sorted(dir(type(result))):
        if name != "to_frame" and _is_table_method(result, name):
            tables[name.removesuffix("_frame")] = getattr(result, name)()
    for name in getattr(result, "__dataclass_fields__", {}):
        value = getattr(result, name)
        if isinstance(value, pd.DataFrame) and name not in tables:
            tables[name] = value
    return tables


def _writable(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame with an index worth keeping as columns (a RangeIndex is dropped) and str column names."""
    out = frame if isinstance(frame.index, pd.RangeIndex) else frame.reset_index()
    if not all(isinstance(c, str) for c in out.columns):
        out = out.set_axis([str(c) for c in out.columns], axis=1)
    return out


def write_table(frame: pd.DataFrame, path: Path) -> None:
    frame = _writable(frame)
    if path.suffix.lower() == ".csv":
        frame.to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)


def read_table(path) -> pd.DataFrame:
    """A table written by :func:`write_table` (what the tests compare with the API's frames)."""
    path = Path(path)
    return pd.read_csv(path) if path.suffix.lower() == ".csv" else pd.read_parquet(path)


def check_out(out: str | None, suffixes=TABLE_SUFFIXES, *, folder: bool = True) -> Path | None:
    """``--out`` checked before any work: a file ending in one of ``suffixes``, or a folder."""
    if out is None:
        return None
    path = Path(out)
    if path.suffix.lower() in suffixes:
        if not path.parent.is_dir():
            raise BenchkitValueError(f"--out {str(path)!r}: folder {str(path.parent)!r} does not exist")
        if path.is_dir():
            raise BenchkitValueError(f"--out {str(path)!r} is a folder, not a file")
        return path
    if not folder or path.suffix:
        also = "; any other path without a suffix is a folder that receives every table" if folder else ""
        raise BenchkitValueError(f"--out {str(path)!r}: the file must end in {' or '.join(suffixes)}{also}")
    if path.exists() and not path.is_dir():
        raise BenchkitValueError(f"--out {str(path)!r} is a file, not a folder")
    return path


def write_tables(tables: dict[str, pd.DataFrame], out: str | None, main: str) -> dict[str, str]:
    """``--out``: FILE.parquet|.csv gets the main table; any other path is a folder of every table."""
    path = check_out(out)
    if path is None:
        return {}
    if path.suffix.lower() in TABLE_SUFFIXES:
        write_table(tables[main], path)
        return {main: str(path)}
    path.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, frame in tables.items():
        target = path / f"{name}.parquet"
        write_table(frame, target)
        written[name] = str(target)
    return written


# ----------------------------------------------------------------------------- summary
def emit(summary: dict, paragraph: str, as_json: bool, out) -> None:
    """The summary on stdout: one paragraph (escaped), or JSON with sorted keys (``--json``)."""
    if as_json:
        print(json.dumps(summary, sort_keys=True, indent=1, default=str, ensure_ascii=True), file=out)
    else:
        print(escape(paragraph, keep_newlines=True), file=out)


def exit_code(flagged: int | None, fail_on: int | None) -> int:
    """0, or 1 when ``--fail-on N`` was given and at least N things were flagged."""
    return 1 if fail_on is not None and flagged is not None and flagged >= fail_on else 0
