"""MMLU-Redux: expert error labels for 5,700 MMLU items, and HELM models' chosen letters.

Source: Gema et al., "Are We Done With MMLU?" (arXiv 2406.04127), repository ``aryopg/mmlu-redux``
at a pinned commit, license CC BY 4.0 (MMLU question text: MIT). :func:`load` reads, by ``part``:

- ``"labels"``: the 57 raw annotator files ``mmlu_redux/mmlu_<subject>.csv`` (100 items each), with
  the error type normalized to :data:`ERROR_TYPES` (the raw spelling is kept);
- ``"helm-labelled"``: those 5,700 items x the chosen letter of 14 HELM models
  (``outputs/multi_expert_helm/all.csv``) as a :class:`benchkit.ResponseSet`;
- ``"helm-full"``: the full MMLU test x 10 HELM models (``outputs/original_helm_combined/``), joined
  to the answer keys of the ``mmlu`` source by question text, as a ResponseSet;
- ``"corruption"``: the injected-error tests (``outputs/corruption_tests/``), a table;
- ``"helm-raw"``: the two raw HELM scenario-state files (``outputs/original_helm/``), a table;
- ``"em-per-error"``: the authors' per-subject exact-match table per error condition, a table.

Measured on the pinned files (and checked in the tests): 5,700 labelled items, 370 not ``ok``
(bad_question_clarity 132, wrong_groundtruth 107, multiple_correct_answers 39, no_correct_answer
35, expert 32, bad_options_clarity 25); HELM full: 14,015 rows, 14,014 joined.
"""
from __future__ import annotations

import ast
import csv
import dataclasses
import functools
import io
import json
import re

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit.datasets import mmlu as _mmlu
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source
from benchkit.datasets._mmlu_match import _align_key
from benchkit.datasets._mmlu_match import _match_to_mmlu
from benchkit.datasets._mmlu_match import _MmluMatcher

__all__ = ["SOURCE", "ERROR_TYPES", "PARTS", "HELM_LABELLED_MODELS", "HELM_FULL_MODELS",
           "CORRUPTIONS", "normalize_error_type", "load"]


SOURCE = load_source("mmlu-redux", repo="aryopg/mmlu-redux",
                     commit="4563cfa79b659d76716e5b6019f46bba85fa02db")

#: The normalized error-type vocabulary (``ok`` = no error found; ``expert`` = the annotator could
#: not judge the item without a domain expert).
ERROR_TYPES: tuple[str, ...] = (
    "ok",
    "wrong_groundtruth",
    "no_correct_answer",
    "multiple_correct_answers",
    "bad_question_clarity",
    "bad_options_clarity",
    "expert",
)

PARTS: tuple[str, ...] = ("labels", "helm-labelled", "helm-full", "corruption", "helm-raw",
                          "em-per-error")

#: The 14 HELM models of ``outputs/multi_expert_helm/all.csv``, in file order.
HELM_LABELLED_MODELS: tuple[str, ...] = (
    "anthropic_claude-3-5-sonnet-20240620", "anthropic_claude-3-opus-20240229",
    "meta_llama-3.1-405b-instruct-turbo", "openai_gpt-4o-2024-05-13",
    "qwen_qwen2.5-72b-instruct-turbo", "google_gemini-1.5-pro-001", "openai_gpt-4-0613",
    "qwen_qwen2-72b-instruct", "writer_palmyra-x-004", "openai_gpt-4-turbo-2024-04-09",
    "google_gemini-1.5-pro-preview-0409", "meta_llama-3.2-90b-vision-instruct-turbo",
    "meta_llama-3.1-70b-instruct-turbo", "mistralai_mistral-large-2407",
)

#: The 10 HELM models of ``outputs/original_helm_combined/<subject>.csv``, in file order.
HELM_FULL_MODELS: tuple[str, ...] = (
    "anthropic_claude-3-opus-20240229", "openai_gpt-4o-2024-05-13", "openai_gpt-4-0613",
    "google_gemini-1.5-pro-preview-0409", "openai_gpt-4-1106-preview", "meta_llama-3-70b",
    "writer_palmyra-x-v3", "google_text-unicorn@001", "mistralai_mixtral-8x22b",
    "google_gemini-1.5-flash-preview-0514",
)

#: Injected-error test files: code -> normalized error type.
CORRUPTIONS: dict[str, str] = {
    "BOC": "bad_options_clarity",
    "BQC": "bad_question_clarity",
    "MCA": "multiple_correct_answers",
    "NCA": "no_correct_answer",
    "WG": "wrong_groundtruth",
}

_HELM_RAW_MODELS = ("meta_llama-3-70b", "openai_gpt-4-0613")
_LETTERS = "ABCD"
_LETTER_SET = frozenset(_LETTERS)  # not `in _LETTERS`: "" is a substring of every string
_ALL_CSV = "outputs/multi_expert_helm/all.csv"
_EM_CSV = "outputs/multi_expert_helm/mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv"


def _meta(part: str, files: list[str], **extra) -> dict:
    return {
        "source": SOURCE.name,
        "part": part,
        "url": SOURCE.repo_url,
        "commit": SOURCE.commit,
        "license": SOURCE.license,
        "files": files,
        **extra,
    }


# ------------------------------------------------------------------------------------ parsing


def normalize_error_type(raw: str) -> str:
    """Map an annotator's error-type spelling to :data:`ERROR_TYPES`.

    Case, surrounding spaces and the separator (space or underscore) are ignored: ``"OK "``,
    ``"Ok"`` -> ``"ok"``; ``"Wrong Groundtruth"``, ``"wrong_groundtruth "`` ->
    ``"wrong_groundtruth"``; ``"No correct Answer"`` -> ``"no_correct_answer"``. Anything else is
    an error naming the value.

    Parameters
    ----------
    raw : str
        The ``error_type`` cell of an annotator file.

    Returns
    -------
    str
        One of :data:`ERROR_TYPES`.

    References
    ----------
    A. P. Gema et al. (2024), "Are We Done with MMLU?", arXiv:2406.04127; repository
    ``aryopg/mmlu-redux``. P. Liang et al. (2023), "Holistic Evaluation of Language Models",
    Transactions on Machine Learning Research (the HELM outputs).

    Examples
    --------
    >>> from benchkit.datasets.mmlu_redux import normalize_error_type
    >>> [normalize_error_type(x) for x in ["OK ", "Wrong Groundtruth", "no_correct_answer"]]
    ['ok', 'wrong_groundtruth', 'no_correct_answer']
    """
    key = re.sub(r"[\s_]+", "_", str(raw).strip().lower())
    if key not in ERROR_TYPES:
        raise BenchkitValueError(
            f"error_type {raw!r} is not a known MMLU-Redux label; known (after lower-casing and "
            f"joining words with '_'): {', '.join(ERROR_TYPES)}"
        )
    return key


def _decode(data: bytes) -> tuple[str, str]:
    """UTF-8, else Mac OS Roman (see :func:`load` Notes)."""
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("mac_roman"), "mac_roman"


def _parse_choices(text: str, where: str) -> list[str]:
    """A choices cell: a Python or JSON list literal of strings."""
    try:
        value = ast.literal_eval(text.strip())
    except (ValueError, SyntaxError) as exc:
        raise BenchkitValueError(f"{where}: choices {text[:60]!r} is not a list literal ({exc})") from exc
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BenchkitValueError(f"{where}: choices {text[:60]!r} is not a list of strings")
    return value


_STR_LIT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", re.S)


def _parse_numpy_choices(text: str, where: str) -> list[str]:
    r"""A choices cell printed by numpy (``['a' 'b'\n 'c']``: no commas between the strings)."""
    s = text.strip()
    if not (s.startswith("[") and s.endswith("]")):
        raise BenchkitValueError(f"{where}: choices {s[:60]!r} is not a bracketed list")
    inner = s[1:-1]
    rest = _STR_LIT.sub("", inner).strip()
    if rest:
        raise BenchkitValueError(f"{where}: choices {s[:60]!r} has text outside quotes: {rest[:30]!r}")
    return [ast.literal_eval(tok) for tok in _STR_LIT.findall(inner)]


@functools.lru_cache(maxsize=64)
def _read_raw_labels(local_path: str) -> tuple[str, str, tuple[dict, ...]]:
    """(encoding, delimiter, rows as dicts) of one raw annotator file."""
    with open(local_path, "rb") as fh:
        text, encoding = _decode(fh.read())
    header = text.split("\n", 1)[0]
    delimiter = ";" if header.count(";") > header.count(",") else ","
    rows = tuple(csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter))
    return encoding, delimiter, rows


@functools.lru_cache(maxsize=256)
def _read_csv(local_path: str) -> tuple[dict, ...]:
    with open(local_path, encoding="utf-8", newline="") as fh:
        return tuple(csv.DictReader(fh))


# ------------------------------------------------------------------------------------ labels


@functools.lru_cache(maxsize=2)
def _labels_frame(local_paths: tuple[str, ...]) -> pd.DataFrame:
    """The labels table, memoized on the verified local paths (see :func:`_labels`)."""
    records = []
    for subject, rel, local in zip(_mmlu.SUBJECTS, _label_paths(), local_paths):
        encoding, delimiter, rows = _read_raw_labels(local)
        need = {"question", "choices", "answer", "error_type", "source", "correct_answer",
                "potential_reason"}
        missing = need.difference(rows[0].keys()) if rows else need
        if missing:
            raise BenchkitValueError(f"{rel}: columns {sorted(missing)} are missing")
        for i, r in enumerate(rows):
            where = f"{rel} row {i}"
            options = _parse_choices(r["choices"], where)
            answer = r["answer"].strip()
            if answer not in ("0", "1", "2", "3") or len(options) != 4:
                raise BenchkitValueError(f"{where}: answer {answer!r} / {len(options)} options; "
                                         "expected an index 0-3 and 4 options")
            records.append({
                "item": f"mmlu-redux/{subject}/{i}",
                "benchmark": "mmlu-redux",
                "source": subject,
                "subject": subject,
                "row": i,
                "text": r["question"],
                "options": options,
                "answer_index": int(answer),
                "answer_key": _LETTERS[int(answer)],
                "error_type": normalize_error_type(r["error_type"]),
                "error_type_raw": r["error_type"],
                "correct_answer": r["correct_answer"],
                "annotation_source": r["source"],
                "potential_reason": r["potential_reason"],
                "file": rel,
                "file_encoding": encoding,
                "file_delimiter": delimiter,
            })
    frame = pd.DataFrame.from_records(records)
    frame["mmlu_item"], frame["mmlu_match"] = _match_to_mmlu(frame)
    return frame


def _label_paths() -> tuple[str, ...]:
    return tuple(f"mmlu_redux/mmlu_{s}.csv" for s in _mmlu.SUBJECTS)


def _labels() -> pd.DataFrame:
    # fetch (and so verify the sha256 of) every file on every call; parse once per location
    local_paths = tuple(str(fetch_file(SOURCE, rel)) for rel in _label_paths())
    return _labels_frame(local_paths).copy()


# ------------------------------------------------------------------------------------ HELM


def _chosen(raw: str) -> str:
    """The answer state of a HELM output cell: the letter A-D, else NO_ANSWER."""
    from benchkit import NO_ANSWER

    s = raw.strip()
    return s if s in _LETTER_SET else NO_ANSWER


def _non_letters(values: dict[str, list[str]]) -> dict[str, dict[str, int]]:
    out = {}
    for model, vals in values.items():
        counts: dict[str, int] = {}
        for v in vals:
            s = v.strip()
            if s not in _LETTER_SET:
                counts[s] = counts.get(s, 0) + 1
        out[model] = dict(sorted(counts.items(), key=lambda kv: -kv[1]))
    return out


def _helm_responses(rows: list[dict], model_names, items: pd.DataFrame):
    """HELM outputs as benchkit long responses.

    ``rows`` are HELM csv rows aligned with ``items`` (its ``item`` and ``answer_key`` columns);
    returns the raw outputs per model, the long frame (model, item, answer, correct; models in
    ``model_names`` order, items in row order) and the model table (model, order).
    """
    n, m = len(rows), len(model_names)
    raw = {mod: [r[mod] for r in rows] for mod in model_names}
    answers = [_chosen(v) for mod in model_names for v in raw[mod]]
    keys = np.tile(items["answer_key"].to_numpy(dtype=object), m)
    responses = pd.DataFrame({
        "model": np.repeat(np.array(model_names, dtype=object), n),
        "item": np.tile(items["item"].to_numpy(dtype=object), m),
        "answer": answers,
        "correct": (np.array(answers, dtype=object) == keys).astype(np.float64),
    })
    models = pd.DataFrame({"model": list(model_names), "order": range(m)})
    return raw, responses, models


def _helm_labelled():
    from benchkit import ResponseSet

    labels = _labels()
    local = fetch_file(SOURCE, _ALL_CSV)
    rows = _read_csv(str(local))
    if len(rows) != len(labels):
        raise BenchkitValueError(f"{_ALL_CSV} has {len(rows)} rows; the labels have {len(labels)}")
    missing = [m for m in HELM_LABELLED_MODELS if m not in rows[0]]
    if missing:
        raise BenchkitValueError(f"{_ALL_CSV} lacks model columns {missing}")
    # all.csv is the 57 annotator files concatenated in subject order; check it row by row.
    bad = []
    for i, (r, q, a, e) in enumerate(zip(rows, labels["text"], labels["answer_index"], labels["error_type"])):
        if _align_key(r["question"]) != _align_key(q) or int(r["groundtruth_answer"]) != a \
                or r["error_type"] != e:
            bad.append(i)
    if bad:
        raise BenchkitValueError(
            f"{_ALL_CSV} does not line up with the annotator files at {len(bad)} rows, e.g. row "
            f"{bad[0]}; the pinned files should align exactly"
        )
    n, m = len(rows), len(HELM_LABELLED_MODELS)
    raw, responses, models = _helm_responses(rows, HELM_LABELLED_MODELS, labels)
    meta = _meta(
        "helm-labelled",
        list(_label_paths()) + [_ALL_CSV],
        n_items=n,
        n_models=m,
        n_not_ok=int((labels["error_type"] != "ok").sum()),
        error_type_counts=labels["error_type"].value_counts().to_dict(),
        non_letter_outputs=_non_letters(raw),
        notes=(
            "answer = the HELM model's output letter (A-D); any other output (empty, 'The', "
            "'E', ...) is NO_ANSWER and incorrect. correct = answer == answer_key (the MMLU "
            "ground truth, groundtruth_answer in all.csv == answer in the annotator files). Item "
            "text, options and labels come from the annotator files (all.csv dropped a few "
            "non-ASCII characters); all.csv's aggregate columns (majority, entropy) are not used."
        ),
    )
    return ResponseSet.from_long(responses, models=models, items=labels, name="mmlu-redux",
                                 meta=meta)


def _helm_full():
    from benchkit import ResponseSet
    from benchkit.response_set import DropEntry

    matcher = _MmluMatcher()
    items = matcher.items
    paths = [f"outputs/original_helm_combined/{s}.csv" for s in _mmlu.SUBJECTS]
    matched_pos: list[int] = []
    matched_raw: list[dict] = []
    helm_where: list[tuple[str, int]] = []
    failures: list[dict] = []
    how_counts: dict[str, int] = {}
    n_rows = 0
    for subject, rel in zip(_mmlu.SUBJECTS, paths):
        rows = _read_csv(str(fetch_file(SOURCE, rel)))
        absent = [m for m in HELM_FULL_MODELS if rows and m not in rows[0]]
        if absent:
            raise BenchkitValueError(f"{rel} lacks model columns {absent}")
        for j, r in enumerate(rows):
            n_rows += 1
            pos, how = matcher.match(subject, r["question"], _parse_choices(r["choices"], f"{rel} row {j}"))
            if pos is None:
                failures.append({"file": rel, "row": j, "subject": subject,
                                 "question": r["question"][:120], "reason": how})
                continue
            how_counts[how] = how_counts.get(how, 0) + 1
            matched_pos.append(pos)
            matched_raw.append(r)
            helm_where.append((rel, j))
    # MMLU test rows without a HELM row, and why
    taken = matcher.taken
    twin = matcher.twins()
    item_ids = items["item"].to_numpy(dtype=object)
    mmlu_unmatched = []
    for p in np.nonzero(~taken)[0]:
        if p in twin and taken[twin[p]]:
            why = "identical to an earlier row of the subject (HELM evaluates one copy)"
        else:
            why = "no HELM row could be joined to it"
        mmlu_unmatched.append({"item": item_ids[p], "reason": why})
    sub = items.iloc[matched_pos].reset_index(drop=True)
    sub["helm_file"] = [w[0] for w in helm_where]
    sub["helm_row"] = [w[1] for w in helm_where]
    m = len(HELM_FULL_MODELS)
    raw, responses, models = _helm_responses(matched_raw, HELM_FULL_MODELS, sub)
    reasons: dict[str, int] = {}
    for f in mmlu_unmatched:
        reasons[f["reason"]] = reasons.get(f["reason"], 0) + 1
    join = {
        "n_helm_rows": n_rows,
        "n_joined": len(sub),
        "n_failed": len(failures),
        "join_rate": len(sub) / n_rows,
        "failed": failures,
        "joined_by": how_counts,
        "n_mmlu_test_rows": len(items),
        "n_mmlu_rows_without_helm": len(mmlu_unmatched),
        "mmlu_rows_without_helm_reasons": reasons,
        "mmlu_rows_without_helm": mmlu_unmatched,
    }
    meta = _meta(
        "helm-full",
        paths + [f"mmlu:{p}" for p in (f"data_mmlu/test/{s}_test.csv" for s in _mmlu.SUBJECTS)],
        join=join,
        non_letter_outputs=_non_letters(raw),
        notes=(
            "HELM rows carry no gold answer: each is joined to the MMLU test row (mmlu source) of "
            "the same subject with the same whitespace-normalized question text and options; when "
            "no row has the same options, a unique row with the same question text is used. Item "
            "ids are the mmlu source's ('mmlu/<subject>/test/<row>'). answer = the output letter "
            "A-D, anything else NO_ANSWER (incorrect); correct = answer == the MMLU answer key. "
            "HELM rows that could not be joined are dropped and listed in meta['join'] and "
            "report."
        ),
    )
    rs = ResponseSet.from_long(responses, models=models, items=sub, name="mmlu-redux-helm-full",
                               meta=meta)
    entries = []
    by_reason: dict[str, list[dict]] = {}
    for f in failures:
        by_reason.setdefault(f["reason"], []).append(f)
    for reason, fs in by_reason.items():
        entries.append(DropEntry(
            f"HELM row not joined to an MMLU test item: {reason}",
            n_rows=len(fs) * m, n_cells=len(fs) * m,
            examples=tuple(f"{f['file']} row {f['row']}: {f['question'][:60]!r}" for f in fs[:3]),
        ))
    if entries:
        rs = dataclasses.replace(rs, report=dataclasses.replace(
            rs.report, entries=tuple(rs.report.entries) + tuple(entries)))
    return rs


# ------------------------------------------------------------------------------------ tables


def _corruption() -> pd.DataFrame:
    records = []
    for code, etype in CORRUPTIONS.items():
        rel = f"outputs/corruption_tests/corruption_test_{code}.csv"
        rows = _read_csv(str(fetch_file(SOURCE, rel)))
        for i, r in enumerate(rows):
            where = f"{rel} row {i}"
            options = _parse_numpy_choices(r["choices"], where)
            ans = r["answer"].strip()
            if ans == "n/a":
                idx = None
            elif ans.isdigit() and int(ans) < len(options):
                idx = int(ans)
            else:
                raise BenchkitValueError(f"{where}: answer {ans!r} is not an option index or 'n/a'")
            if normalize_error_type(r["corruptions"]) != etype:
                raise BenchkitValueError(f"{where}: corruptions {r['corruptions']!r} != {etype!r}")
            records.append({
                "item": f"mmlu-redux-corruption/{code}/{i}",
                "corruption": code,
                "error_type": etype,
                "row": i,
                "text": r["question"],
                "options": options,
                "n_options": len(options),
                "answer_index": idx,
                "answer_key": None if idx is None else "ABCDEFGHIJ"[idx],
                "subject": None if r["subject"].strip() == "n/a" else r["subject"],
                "original_dataset": r["original_dataset"],
                "llm_for_corruption": r.get("llm_for_corruption", r.get("llm for corruption")),
                "original_question": r.get("original_question"),
                "added_correct_answer": r.get("added_correct_answer"),
                "original_correct": r.get("original_correct"),
                "original_groundtruth": (None if r.get("original_grountruth") is None
                                         else int(r["original_grountruth"])),
                "file": rel,
            })
    frame = pd.DataFrame.from_records(records)
    frame["answer_index"] = frame["answer_index"].astype("Int64")
    frame["original_groundtruth"] = frame["original_groundtruth"].astype("Int64")
    return frame


def _helm_raw() -> pd.DataFrame:
    records = []
    for model in _HELM_RAW_MODELS:
        rel = f"outputs/original_helm/{model}/global_facts.json"
        with open(fetch_file(SOURCE, rel), encoding="utf-8") as fh:
            data = json.load(fh)
        spec = data["adapter_spec"]
        for k, st in enumerate(data["request_states"]):
            inst = st["instance"]
            refs = inst["references"]
            correct_idx = [i for i, ref in enumerate(refs) if "correct" in ref.get("tags", [])]
            mapping = st.get("output_mapping") or {}
            letter_of = {v: k2 for k2, v in mapping.items()}
            comps = st["result"]["completions"]
            text = comps[0]["text"] if comps else ""
            chosen = text.strip()
            key = (letter_of.get(refs[correct_idx[0]]["output"]["text"])
                   if len(correct_idx) == 1 else None)
            records.append({
                "model": model,
                "helm_model": spec.get("model"),
                "subject": "global_facts",
                "instance_id": inst["id"],
                "split": inst.get("split"),
                "request_index": k,
                "text": inst["input"]["text"],
                "options": ([mapping[L] for L in sorted(mapping)] if mapping
                            else [r["output"]["text"] for r in refs]),
                "answer_key": key,
                "completion": text,
                "chosen": chosen if chosen in mapping else None,
                "correct": (chosen == key) if key is not None else None,
                "completion_logprob": comps[0].get("logprob") if comps else None,
                "finish_reason": (comps[0].get("finish_reason") or {}).get("reason") if comps else None,
                "num_train_instances": st.get("num_train_instances"),
                "prompt_truncated": st.get("prompt_truncated"),
                "method": spec.get("method"),
                "max_train_instances": spec.get("max_train_instances"),
                "temperature": spec.get("temperature"),
                "file": rel,
            })
    frame = pd.DataFrame.from_records(records)
    frame["correct"] = frame["correct"].astype("boolean")
    return frame


def _em_per_error() -> pd.DataFrame:
    rows = _read_csv(str(fetch_file(SOURCE, _EM_CSV)))
    frame = pd.DataFrame.from_records(list(rows))
    model_cols = [c for c in frame.columns if c.endswith("_correct")]
    frame[model_cols] = frame[model_cols].apply(pd.to_numeric, errors="raise")
    frame.insert(1, "subject", frame["Subject"].map(
        lambda s: "all" if s == "All" else s.strip().lower().replace(" ", "_")))
    long = frame.melt(id_vars=["Subject", "subject", "Condition"], value_vars=model_cols,
                      var_name="model", value_name="em")
    long["model"] = long["model"].str.removesuffix("_correct")
    long = long.rename(columns={"Subject": "subject_title", "Condition": "condition"})
    return long[["subject", "subject_title", "condition", "model", "em"]]


# ------------------------------------------------------------------------------------ entry


def load(*, part: str = "helm-labelled"):
    """Load a part of MMLU-Redux: expert labels, HELM response sets or the documented tables.

    Parameters
    ----------
    part : {"helm-labelled", "labels", "helm-full", "corruption", "helm-raw", "em-per-error"}
        What to return (default ``"helm-labelled"``):

        ``"labels"`` -> DataFrame, 5,700 rows (57 subjects x 100, subject then file order):
            ``item`` (``'mmlu-redux/<subject>/<row>'``), ``benchmark`` (``'mmlu-redux'``),
            ``source`` and ``subject`` (the MMLU subject), ``row``, ``text``, ``options`` (list of
            4 str), ``answer_index`` (0-3, the MMLU ground truth), ``answer_key`` (A-D),
            ``error_type`` (normalized, one of :data:`ERROR_TYPES`), ``error_type_raw`` (the
            annotator's spelling), ``correct_answer`` (the annotator's suggested answer, free
            text, often empty), ``annotation_source`` (the raw ``source`` column: a URL or note),
            ``potential_reason``, ``file``, ``file_encoding``, ``file_delimiter``, and
            ``mmlu_item`` (the id of the same question in :func:`benchkit.datasets.mmlu.load`:
            same subject and whitespace-normalized question and options, else a unique
            question-text match, else the same ASCII letters and digits; None if unmatched) with
            ``mmlu_match`` (how it matched, or why not). Measured: 5,692 exact, 5 by ASCII
            characters (U+FFFD or mis-decoded quotes in the annotator files), 3 unmatched.
        ``"helm-labelled"`` -> :class:`benchkit.ResponseSet`, 5,700 items x 14 models
            (:data:`HELM_LABELLED_MODELS`, one sample each): ``answer`` = the model's output
            letter, ``correct`` = answer == answer key; items are the ``"labels"`` table (so they
            carry ``error_type`` and ``source`` = subject).
        ``"helm-full"`` -> ResponseSet, the full MMLU test x 10 HELM models
            (:data:`HELM_FULL_MODELS`). The HELM files hold no gold column, so each row is joined
            to the ``mmlu`` source's test table by subject and whitespace-normalized question text
            and options (falling back to a unique question-text match). Items are the mmlu
            source's (ids ``'mmlu/<subject>/test/<row>'``, its ``answer_key``) plus ``helm_file``
            and ``helm_row``. ``rs.meta["join"]`` gives the join: HELM rows, joined, failed (each
            with file, row and reason), join rate, and the MMLU rows that have no HELM row and
            why; ``rs.report`` lists the dropped HELM rows. Measured: 14,015 HELM rows, 14,014
            joined (one question's text differs: "Step l" vs "Step 1"), 27 MMLU test rows are
            exact repeats of another row and have no HELM row of their own, plus the unjoined one.
        ``"corruption"`` -> DataFrame, 500 rows: the injected-error tests, 100 ARC-Easy items x 5
            corruptions (:data:`CORRUPTIONS`; row ``i`` of every file is the same source item):
            ``item`` (``'mmlu-redux-corruption/<code>/<row>'``), ``corruption``, ``error_type``,
            ``row``, ``text``, ``options`` (list; 3 for NCA, else 4), ``n_options``,
            ``answer_index`` (Int64; NA for no_correct_answer), ``answer_key``, ``subject``
            (None: the files say n/a), ``original_dataset``, and the per-corruption provenance
            columns ``llm_for_corruption``, ``original_question`` (BQC), ``added_correct_answer``
            (MCA), ``original_correct`` (NCA), ``original_groundtruth`` (WG, Int64), ``file``.
        ``"helm-raw"`` -> DataFrame, 200 rows: the two raw HELM scenario-state files
            (global_facts, 100 instances, for meta_llama-3-70b and openai_gpt-4-0613): ``model``,
            ``helm_model``, ``subject``, ``instance_id``, ``split``, ``request_index``, ``text``,
            ``options`` (in output-mapping order A-D), ``answer_key`` (letter of the reference
            tagged correct), ``completion`` (raw text), ``chosen`` (the letter, None if the output
            is not an option letter), ``correct`` (boolean), ``completion_logprob`` (0 in these
            files: they carry no option probabilities), ``finish_reason``,
            ``num_train_instances``, ``prompt_truncated``, ``method``, ``max_train_instances``,
            ``temperature``, ``file``.
        ``"em-per-error"`` -> DataFrame (long): the authors' exact-match table
            ``mmlu-redux-2-em_concat_all_subjects_EM_per_error.csv``: ``subject`` (snake case,
            ``'all'`` for the pooled row), ``subject_title``, ``condition`` ("Overall", "OK",
            "Not OK"), ``model`` and ``em`` (fraction correct), for 10 of the 14 HELM models.

    Returns
    -------
    ResponseSet or pandas.DataFrame
        As listed above. ResponseSets carry provenance in ``meta`` (repository, commit, license,
        files, counts, the raw non-letter outputs per model, notes).

    Notes
    -----
    Source semantics reproduced: the answer key is MMLU's (``groundtruth_answer`` of all.csv,
    equal to ``answer`` of the annotator files); a response is correct when the model's output
    letter equals it, which is the exact-match score of the authors' table (``"em-per-error"``:
    the tests check per-subject agreement). Outputs that are not a letter A-D (empty cells,
    truncated words such as "To" or "The", "E") get the answer state
    :data:`benchkit.NO_ANSWER` and count as incorrect; their raw values are counted in
    ``meta["non_letter_outputs"]``.

    The annotator files vary: 9 are ``;``-delimited (detected from the header line), column
    order differs (read by name), and ``mmlu_moral_scenarios.csv`` is not UTF-8. SOURCE.md calls
    it latin-1, but its single non-ASCII byte 0xD5 sits in "my sister?s head", where MMLU has a
    right single quote: that is Mac OS Roman (0xD5 = U+2019), so non-UTF-8 files are decoded as
    ``mac_roman``. Error types are normalized by :func:`normalize_error_type` (27 raw spellings
    map to the 7 labels; the counts then equal all.csv's clean column, which the loader checks
    row by row, along with the question text and answer).

    References
    ----------
    A. P. Gema et al. (2024), "Are We Done with MMLU?", arXiv:2406.04127; repository
    ``aryopg/mmlu-redux``. P. Liang et al. (2023), "Holistic Evaluation of Language Models",
    Transactions on Machine Learning Research (the HELM outputs).

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import mmlu_redux
    >>> mmlu_redux.load()  # doctest: +SKIP
    ResponseSet 'mmlu-redux': 5,700 items x 14 models, 79,800 responses, T=1, 0.0% cells missing, ...
    >>> labels = mmlu_redux.load(part="labels")  # doctest: +SKIP
    >>> int((labels["error_type"] != "ok").sum())  # doctest: +SKIP
    370
    """
    check_choice("part", part, PARTS)
    if part == "labels":
        return _labels()
    if part == "helm-labelled":
        return _helm_labelled()
    if part == "helm-full":
        return _helm_full()
    if part == "corruption":
        return _corruption()
    if part == "helm-raw":
        return _helm_raw()
    return _em_per_error()
