"""Issue 12, the judged probe: further bad inputs, tried as a new user would, none listed in the issue.

Every public entry point below either refuses the input with a benchkit error naming the argument
(or file), the bad value and what is allowed, or returns the right result (checked against a
hand-worked value). ``FINDING`` marks the inputs that, before this branch (r12 base 993c0a2),
raised a raw non-benchkit exception or returned a silently wrong result; each was fixed here.
docs/bad-inputs.md lists them (section "Probe").
"""

from __future__ import annotations

import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchkit import NO_ANSWER
from benchkit import BenchkitError
from benchkit import BenchkitTypeError
from benchkit import BenchkitValueError
from benchkit import ResponseSet

FIXTURES = Path(__file__).parent / "tool_fixtures"
LONG = pd.DataFrame(
    {"model": ["m1", "m1", "m2", "m2"], "item": ["a", "b", "a", "b"], "correct": [1, 0, 0, 1]}
)


def _rs():
    return ResponseSet.from_long(LONG)


def _Y():
    return (np.random.default_rng(0).random((20, 6)) < 0.5).astype(int)


def _write(tmp: Path, name: str, content) -> Path:
    path = tmp / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def _inspect_log(samples, **header) -> str:
    return json.dumps(
        {
            "version": 2,
            "status": "success",
            "eval": {"task": "t", "model": "m"},
            "samples": samples,
            **header,
        },
        ensure_ascii=False,
    )


def _lm(tmp: Path, record: dict) -> Path:
    return _write(tmp, "lm/samples_t_2024-01-01T00-00-00.000001.jsonl", json.dumps(record) + "\n")


def _helm(tmp: Path, states, method="generation") -> Path:
    return _write(
        tmp,
        "h.json",
        json.dumps({"adapter_spec": {"method": method, "model": "m"}, "request_states": states}),
    )


def _gen_state(iid="i", tags=("correct",), text="4"):
    return {
        "instance": {
            "id": iid,
            "references": [
                {"output": {"text": "4"}, "tags": list(tags) if not isinstance(tags, str) else tags}
            ],
        },
        "result": {"completions": [{"text": text}]},
    }


# (id, call(tmp_path), expected): expected is (error class, regex) or a check on the result
CASES = [
    # ------------------------------------------------------------------ ResponseSet constructors
    (
        "long-correct-strings-True-False",
        lambda t: ResponseSet.from_long(LONG.assign(correct=["True", "False", "False", "True"])),
        (BenchkitTypeError, r"'correct' must be numeric"),
    ),
    (
        "long-correct-python-bools",
        lambda t: ResponseSet.from_long(LONG.assign(correct=[True, False, False, True])).accuracy().tolist(),
        lambda r: r == [0.5, 0.5],
    ),
    (
        "long-item-None",
        lambda t: ResponseSet.from_long(LONG.assign(item=["a", None, "a", "b"])),
        (BenchkitValueError, r"item"),
    ),
    (
        "long-model-empty-string",
        lambda t: ResponseSet.from_long(LONG.assign(model=["", "", "m2", "m2"])),
        (BenchkitValueError, r"model"),
    ),
    (
        "long-correct-inf",
        lambda t: ResponseSet.from_long(LONG.assign(correct=[1, 0, np.inf, 1])),
        (BenchkitValueError, r"correct"),
    ),
    (
        "long-sample-negative",
        lambda t: ResponseSet.from_long(LONG.assign(sample=[-1, 0, 0, 0])),
        (BenchkitValueError, r"'sample' must be >= 0"),
    ),
    (
        "long-sample-float",
        lambda t: ResponseSet.from_long(LONG.assign(sample=[0.5, 0, 0, 0])),
        (BenchkitTypeError, r"'sample' must hold integers"),
    ),
    (
        "long-sample-strings",
        lambda t: ResponseSet.from_long(LONG.assign(sample=["0"] * 4)),
        (BenchkitTypeError, r"'sample' must hold integers"),
    ),
    (
        "long-ids-in-the-index",
        lambda t: ResponseSet.from_long(LONG.set_index(["model", "item"])),
        (BenchkitValueError, r"model"),
    ),
    ("long-T-as-string", lambda t: ResponseSet.from_long(LONG, T="3"), (BenchkitTypeError, r"T")),
    ("long-T-True", lambda t: ResponseSet.from_long(LONG, T=True), (BenchkitTypeError, r"T")),
    (
        "long-sample-budget-unknown",
        lambda t: ResponseSet.from_long(LONG, sample_budget="x"),
        (BenchkitValueError, r"sample_budget"),
    ),
    # FINDING: name=5 was accepted ("ResponseSet 5")
    (
        "long-name-not-a-string",
        lambda t: ResponseSet.from_long(LONG, name=5),
        (BenchkitTypeError, r"name must be a string or None, got 5"),
    ),
    # FINDING: meta=[1] raised a raw TypeError from dict()
    (
        "long-meta-a-list",
        lambda t: ResponseSet.from_long(LONG, meta=[1]),
        (BenchkitTypeError, r"meta must be a dict"),
    ),
    # FINDING: drop_incomplete="no" is truthy and dropped cells
    (
        "long-drop-incomplete-string-no",
        lambda t: ResponseSet.from_long(LONG, drop_incomplete="no"),
        (BenchkitTypeError, r"drop_incomplete must be True or False, got 'no'"),
    ),
    # FINDING: parse_names="yes" was accepted as truthy
    (
        "counts-parse-names-string",
        lambda t: ResponseSet.from_counts(
            pd.DataFrame({"model": ["m"], "item": ["a"], "n_correct": [1], "n_samples": [2]}),
            parse_names="yes",
        ),
        (BenchkitTypeError, r"parse_names must be True or False"),
    ),
    (
        "long-models-a-dict",
        lambda t: ResponseSet.from_long(LONG, models={"m1": 1}),
        (BenchkitTypeError, r"models"),
    ),
    (
        "long-items-without-item-column",
        lambda t: ResponseSet.from_long(LONG, items=pd.DataFrame({"x": [1, 2]})),
        (BenchkitValueError, r"item"),
    ),
    (
        "long-items-with-duplicate-ids",
        lambda t: ResponseSet.from_long(LONG, items=pd.DataFrame({"item": ["a", "a", "b"]})),
        (BenchkitValueError, r"items"),
    ),
    (
        "long-option-probs-NaN",
        lambda t: ResponseSet.from_long(
            LONG.assign(option_probs=[[0.5, 0.5], [np.nan, 1], [0.5, 0.5], [0.5, 0.5]])
        ),
        (BenchkitValueError, r"option"),
    ),
    (
        "long-option-probs-negative",
        lambda t: ResponseSet.from_long(
            LONG.assign(option_probs=[[1.5, -0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
        ),
        (BenchkitValueError, r"option"),
    ),
    (
        "long-option-probs-scalars",
        lambda t: ResponseSet.from_long(LONG.assign(option_probs=[0.5] * 4)),
        (BenchkitError, r"option"),
    ),
    (
        "long-option-logprobs-plus-inf",
        lambda t: ResponseSet.from_long(
            LONG.assign(option_logprobs=[[np.inf, 0.0], [-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0]])
        ),
        (BenchkitValueError, r"option"),
    ),
    (
        "long-option-logprobs-NaN",
        lambda t: ResponseSet.from_long(
            LONG.assign(option_logprobs=[[np.nan, -1.0], [-1.0, -1.0], [-1.0, -1.0], [-1.0, -1.0]])
        ),
        (BenchkitValueError, r"option"),
    ),
    (
        "long-variant-None",
        lambda t: ResponseSet.from_long(LONG.assign(variant=[None, "x", "x", "x"])),
        (BenchkitValueError, r"variant"),
    ),
    (
        "long-model-ids-1.0-and-1",
        lambda t: ResponseSet.from_long(LONG.assign(model=pd.Series([1.0, 1.0, 1, 1], dtype=object))),
        (BenchkitError, r"model"),
    ),
    (
        "long-a-list-of-dicts",
        lambda t: ResponseSet.from_long([{"model": "m", "item": "a", "correct": 1}]),
        (BenchkitTypeError, r"DataFrame"),
    ),
    (
        "long-a-numpy-array",
        lambda t: ResponseSet.from_long(LONG.to_numpy()),
        (BenchkitTypeError, r"DataFrame"),
    ),
    (
        "counts-n-samples-0",
        lambda t: ResponseSet.from_counts(
            pd.DataFrame({"model": ["m"], "item": ["a"], "n_correct": [0], "n_samples": [0]})
        ),
        (BenchkitValueError, r"'n_samples' must be >= 1"),
    ),
    (
        "counts-n-correct-negative",
        lambda t: ResponseSet.from_counts(
            pd.DataFrame({"model": ["m"], "item": ["a"], "n_correct": [-1], "n_samples": [3]})
        ),
        (BenchkitValueError, r"n_correct"),
    ),
    (
        "counts-as-strings",
        lambda t: ResponseSet.from_counts(
            pd.DataFrame({"model": ["m"], "item": ["a"], "n_correct": ["1"], "n_samples": [3]})
        ),
        (BenchkitTypeError, r"n_correct"),
    ),
    (
        "counts-as-booleans",
        lambda t: ResponseSet.from_counts(
            pd.DataFrame({"model": ["m"], "item": ["a"], "n_correct": [True], "n_samples": [True]})
        ),
        (BenchkitError, r"n_"),
    ),
    (
        "wide-value-2-with-T-1",
        lambda t: ResponseSet.from_wide(pd.DataFrame({"m1": [1, 2], "m2": [0, 1]}, index=["a", "b"])),
        (BenchkitValueError, r"correct"),
    ),
    (
        "wide-NaN-cell-is-missing",
        lambda t: (
            ResponseSet.from_wide(pd.DataFrame({"m1": [1, np.nan], "m2": [0, 1]}, index=["a", "b"]))
            .counts()
            .N.tolist()
        ),
        lambda r: r == [[1, 1], [0, 1]],
    ),
    (
        "wide-yes-no-strings",
        lambda t: ResponseSet.from_wide(
            pd.DataFrame({"m1": ["yes", "no"], "m2": ["no", "no"]}, index=["a", "b"])
        ),
        (BenchkitTypeError, r"must be numeric"),
    ),
    (
        "wide-duplicate-item-index",
        lambda t: ResponseSet.from_wide(pd.DataFrame({"m1": [1, 0], "m2": [0, 1]}, index=["a", "a"])),
        (BenchkitValueError, r"duplicate item"),
    ),
    (
        "wide-duplicate-model-columns",
        lambda t: ResponseSet.from_wide(pd.DataFrame([[1, 0], [0, 1]], columns=["m", "m"], index=["a", "b"])),
        (BenchkitValueError, r"'m'"),
    ),
    (
        "wide-T-0",
        lambda t: ResponseSet.from_wide(pd.DataFrame({"m1": [1, 0]}, index=["a", "b"]), T=0),
        (BenchkitValueError, r"T"),
    ),
    ("wide-empty-frame", lambda t: ResponseSet.from_wide(pd.DataFrame()), (BenchkitValueError, r"empty")),
    (
        "wide-numpy-array",
        lambda t: ResponseSet.from_wide(np.array([[1, 0], [0, 1]])),
        (BenchkitTypeError, r"DataFrame"),
    ),
    ("select-unknown-model", lambda t: _rs().select(models=["zz"]), (BenchkitValueError, r"zz")),
    (
        "select-unknown-benchmark",
        lambda t: _rs().select(benchmark="zz"),
        (BenchkitValueError, r"zz|benchmark"),
    ),
    ("select-empty-item-list", lambda t: _rs().select(items=[]), (BenchkitValueError, r"item")),
    (
        "select-variant-on-a-set-without-variants",
        lambda t: _rs().select(variant="x"),
        (BenchkitValueError, r"variant"),
    ),
    # FINDING: select(models=5) raised a raw TypeError ('int' object is not iterable)
    (
        "select-models-an-int",
        lambda t: _rs().select(models=5),
        (BenchkitTypeError, r"models must be an id or a list"),
    ),
    # FINDING: select(benchmark=5) raised a raw TypeError
    (
        "select-benchmark-an-int",
        lambda t: ResponseSet.from_long(
            LONG, items=pd.DataFrame({"item": ["a", "b"], "benchmark": ["x", "y"]})
        ).select(benchmark=5),
        (BenchkitTypeError, r"benchmark must be a name or a list of names, got 5"),
    ),
    (
        "long-float-item-ids",
        lambda t: ResponseSet.from_long(LONG.assign(item=[1.0, 2.0, 1.0, 2.0])),
        (BenchkitTypeError, r"'item' must hold strings"),
    ),
    (
        "wide-models-1-and-'1'",
        lambda t: ResponseSet.from_wide(pd.DataFrame([[1, 0], [0, 1]], columns=[1, "1"], index=["a", "b"])),
        (BenchkitValueError, r"duplicate"),
    ),
    # ----------------------------------------------------------------------------- readers
    # FINDING: writing to a folder raised IsADirectoryError
    (
        "every-eval-ever-write-to-a-folder",
        lambda t: _read("write_every_eval_ever", _rs(), t),
        (BenchkitValueError, r"is a directory; give the \.jsonl file"),
    ),
    (
        "every-eval-ever-write-into-a-missing-folder",
        lambda t: _read("write_every_eval_ever", _rs(), t / "no" / "o.jsonl"),
        (BenchkitValueError, r"does not exist"),
    ),
    ("csv-missing-path", lambda t: _read("read_csv", t / "nope.csv"), (BenchkitValueError, r"nope\.csv")),
    (
        "csv-a-directory",
        lambda t: _read("read_csv", t),
        (BenchkitValueError, r"does not exist or is not a file"),
    ),
    (
        "csv-semicolon-separated",
        lambda t: _read("read_csv", _write(t, "s.csv", "model;item;correct\nm;a;1\n")),
        (BenchkitValueError, r"separated by ';'.*read_options=\{'sep': ';'\}"),
    ),
    (
        "csv-correct-yes-no",
        lambda t: _read("read_csv", _write(t, "y.csv", "model,item,correct\nm,a,yes\nm,b,no\n")),
        (BenchkitTypeError, r"correct"),
    ),
    (
        "csv-layout-Long-capitalized",
        lambda t: _read("read_csv", _write(t, "o.csv", "model,item,correct\nm,a,1\n"), layout="Long"),
        (BenchkitValueError, r"layout"),
    ),
    (
        "csv-utf8-BOM",
        lambda t: _read(
            "read_csv", _write(t, "b.csv", "\ufeffmodel,item,correct\nm,a,1\nm,b,0\n".encode())
        ).item_ids.tolist(),
        lambda r: r == ["a", "b"],
    ),
    (
        "csv-CRLF",
        lambda t: (
            _read("read_csv", _write(t, "c.csv", b"model,item,correct\r\nm,a,1\r\nm,b,0\r\n"))
            .accuracy()
            .tolist()
        ),
        lambda r: r == [0.5],
    ),
    # FINDING: ids NA / null / nan / None were parsed as missing values (a model named NA refused)
    (
        "csv-ids-NA-null-nan-kept-as-strings",
        lambda t: _read(
            "read_csv",
            _write(t, "n.csv", "model,item,correct\nNA,nan,1\nNA,None,0\nnull,nan,0\nnull,None,1\n"),
        ),
        lambda r: list(r.model_ids) == ["NA", "null"] and list(r.item_ids) == ["nan", "None"],
    ),
    (
        "csv-wide-index-col-missing",
        lambda t: _read("read_csv", _write(t, "w.csv", "item,m1\na,1\n"), layout="wide", index_col="zz"),
        (BenchkitValueError, r"zz"),
    ),
    (
        "parquet-empty-file",
        lambda t: _read("read_parquet", _write(t, "e.parquet", b"")),
        (BenchkitValueError, r"e\.parquet"),
    ),
    (
        "parquet-aggregate-maybe",
        lambda t: _read("read_parquet", _write(t, "x.parquet", b"PAR1"), aggregate="maybe"),
        (BenchkitValueError, r"aggregate"),
    ),
    (
        "duckdb-bad-SQL",
        lambda t: _read("read_duckdb", "SELEC nonsense"),
        (BenchkitValueError, r"could not be read by DuckDB"),
    ),
    (
        "duckdb-missing-table",
        lambda t: _read("read_duckdb", "no_such_table"),
        (BenchkitValueError, r"no_such_table"),
    ),
    (
        "duckdb-query-without-rows",
        lambda t: _read("read_duckdb", "SELECT 'm' AS model, 'a' AS item, 1 AS correct WHERE 1=0"),
        (BenchkitValueError, r"empty"),
    ),
    ("inspect-path-an-int", lambda t: _read("read_inspect", 5), (BenchkitTypeError, r"path_or_glob")),
    (
        "inspect-empty-eval-file",
        lambda t: _read("read_inspect", _write(t, "e.eval", b"")),
        (BenchkitValueError, r"e\.eval"),
    ),
    (
        "inspect-eval-of-plain-text",
        lambda t: _read("read_inspect", _write(t, "t.eval", "hello")),
        (BenchkitValueError, r"t\.eval"),
    ),
    (
        "inspect-zip-without-a-header",
        lambda t: _read("read_inspect", _zip(t / "z.eval", {"a.txt": b"x"})),
        (BenchkitValueError, r"no header\.json"),
    ),
    (
        "inspect-json-eval-a-string",
        lambda t: _read("read_inspect", _write(t, "s.json", json.dumps({"eval": "x", "version": 2}))),
        (BenchkitValueError, r"s\.json: field 'eval' is 'x'; allowed: an object"),
    ),
    # FINDING: raw TypeError (argument of type 'int' is not iterable)
    (
        "inspect-samples-not-objects",
        lambda t: _read("read_inspect", _write(t, "s.json", _inspect_log([1, 2]))),
        (BenchkitValueError, r"samples\[0\]: an Inspect sample must be an object, got 1"),
    ),
    # FINDING: a dict of samples was iterated by its keys (error naming no sample rule)
    (
        "inspect-samples-not-a-list",
        lambda t: _read("read_inspect", _write(t, "s.json", _inspect_log({"a": 1}))),
        (BenchkitValueError, r"'samples' is .*not a list"),
    ),
    (
        "inspect-score-value-a-dict",
        lambda t: _read(
            "read_inspect",
            _write(t, "s.json", _inspect_log([{"id": 1, "epoch": 1, "scores": {"s": {"value": {"a": 1}}}}])),
        ),
        (BenchkitValueError, r"value"),
    ),
    # FINDING: a list id silently became the item 't/[1]'
    (
        "inspect-sample-id-a-list",
        lambda t: _read(
            "read_inspect",
            _write(t, "s.json", _inspect_log([{"id": [1], "epoch": 1, "scores": {"s": {"value": "C"}}}])),
        ),
        (BenchkitValueError, r"field 'id' is \[1\]; allowed: a non-empty string or an integer"),
    ),
    # FINDING: raw UnicodeDecodeError
    (
        "inspect-latin1-json",
        lambda t: _read(
            "read_inspect",
            _write(
                t, "l.json", _inspect_log([{"id": 1, "epoch": 1, "input": "caf\u00e9"}]).encode("latin-1")
            ),
        ),
        (BenchkitValueError, r"not UTF-8"),
    ),
    (
        "inspect-max-member-bytes-a-string",
        lambda t: _read("read_inspect", FIXTURES / "inspect" / "mc.eval", max_member_bytes="1MB"),
        (BenchkitTypeError, r"max_member_bytes"),
    ),
    (
        "inspect-allow-partial-a-string",
        lambda t: _read("read_inspect", FIXTURES / "inspect" / "mc.eval", allow_partial="yes"),
        (BenchkitTypeError, r"allow_partial must be True or False"),
    ),
    # FINDING: a misspelt option (scorere=...) reached from_long: raw TypeError, after reading every file
    *(
        (
            f"{slug}-misspelt-option",
            lambda t, reader=reader, path=path, option=option: _read(reader, FIXTURES / path, **option),
            (BenchkitTypeError, rf"unexpected option\(s\) \[{next(iter(option))!r}\] for {reader}"),
        )
        for slug, reader, path, option in [
            ("inspect", "read_inspect", "inspect/mc.eval", {"scorere": "choice"}),
            ("lm-eval", "read_lm_eval", "lm_eval/run_a", {"metrc": "acc"}),
            ("evalscope", "read_evalscope", "evalscope", {"modle": "m"}),
            ("every-eval-ever", "read_every_eval_ever", "every_eval_ever", {"Tee": 1}),
        ]
    ),
    # FINDING: items= collided with the reader's own items table (raw TypeError "multiple values")
    (
        "helm-items-option",
        lambda t: _read("read_helm", _helm(t, [_gen_state()]), items=pd.DataFrame({"item": ["h/i"]})),
        (BenchkitTypeError, r"unexpected option\(s\) \['items'\] for read_helm"),
    ),
    # FINDING: meta=[1] raised a raw TypeError from dict() inside the reader
    (
        "inspect-meta-a-list",
        lambda t: _read("read_inspect", FIXTURES / "inspect" / "mc.eval", scorer="choice", meta=[1]),
        (BenchkitTypeError, r"meta must be a dict"),
    ),
    (
        "lm-eval-file-not-named-samples",
        lambda t: _read("read_lm_eval", _write(t, "out.jsonl", "{}\n")),
        (BenchkitValueError, r"not named like an lm-eval samples file"),
    ),
    # FINDING: tasks="bk_mc" was split into the letters {'b', 'k', '_', 'm', 'c'}
    (
        "lm-eval-tasks-a-string",
        lambda t: _read("read_lm_eval", FIXTURES / "lm_eval" / "run_a", tasks="bk_mc"),
        (BenchkitTypeError, r"tasks must be a list of task names, got the string 'bk_mc'"),
    ),
    (
        "lm-eval-unknown-metric",
        lambda t: _read("read_lm_eval", FIXTURES / "lm_eval" / "run_a", tasks=["bk_mc"], metric="f1"),
        (BenchkitValueError, r"no metric 'f1'"),
    ),
    (
        "lm-eval-broken-results-json",
        lambda t: (
            _lm(t, {"doc_id": 0, "target": "x", "filtered_resps": ["x"], "exact_match": 1}),
            _write(t, "lm/results_2024-01-01T00-00-00.000001.json", "{"),
            _read("read_lm_eval", t / "lm"),
        )[-1],
        (BenchkitValueError, r"results_2024.*is not valid JSON"),
    ),
    (
        "lm-eval-metric-a-dict",
        lambda t: _read(
            "read_lm_eval",
            _lm(
                t, {"doc_id": 0, "target": "x", "filtered_resps": ["x"], "metrics": ["acc"], "acc": {"a": 1}}
            ),
            model="m",
        ),
        (BenchkitValueError, r"metric 'acc' is"),
    ),
    # FINDING: a null response became the answer "None"
    (
        "lm-eval-null-response-is-no-answer",
        lambda t: (
            _read(
                "read_lm_eval",
                _lm(t, {"doc_id": 0, "target": "x", "filtered_resps": None, "exact_match": 0}),
                model="m",
            )
            .to_long()["answer"]
            .tolist()
        ),
        lambda r: r == [NO_ANSWER],
    ),
    # FINDING: a list doc_id silently became the item 't/[0]'
    (
        "lm-eval-doc-id-a-list",
        lambda t: _read(
            "read_lm_eval",
            _lm(t, {"doc_id": [0], "target": "x", "filtered_resps": ["x"], "exact_match": 1}),
            model="m",
        ),
        (BenchkitValueError, r"field 'doc_id' is \[0\]; allowed: an integer or a non-empty string"),
    ),
    # FINDING: raw UnicodeDecodeError
    (
        "lm-eval-latin1-file",
        lambda t: _read(
            "read_lm_eval",
            _write(
                t,
                "lm/samples_t_2024-01-01T00-00-00.000001.jsonl",
                '{"doc_id": 0, "target": "caf\u00e9"}\n'.encode("latin-1"),
            ),
            model="m",
        ),
        (BenchkitValueError, r"not UTF-8"),
    ),
    (
        "helm-scenario-state-a-list",
        lambda t: _read("read_helm", _write(t, "h.json", "[]")),
        (BenchkitValueError, r"a HELM scenario state must be an object, got \[\]"),
    ),
    (
        "helm-metric-None",
        lambda t: _read("read_helm", _write(t, "h.json", "[]"), metric=None),
        (BenchkitTypeError, r"metric"),
    ),
    # FINDING: raw AttributeError ('str' object has no attribute 'get')
    (
        "helm-request-state-a-string",
        lambda t: _read("read_helm", _helm(t, ["x"])),
        (BenchkitValueError, r"field 'request_states\[0\]' is 'x'; allowed: an object"),
    ),
    (
        "helm-no-request-states",
        lambda t: _read("read_helm", _helm(t, [])),
        (BenchkitValueError, r"no request states"),
    ),
    (
        "helm-output-mapping-a-list",
        lambda t: _read(
            "read_helm", _helm(t, [{**_gen_state(), "output_mapping": ["a"]}], method="multiple_choice_joint")
        ),
        (BenchkitValueError, r"output_mapping"),
    ),
    # FINDING: tags "incorrect" (a string) counted as "correct" (substring test)
    (
        "helm-tags-a-string",
        lambda t: _read("read_helm", _helm(t, [_gen_state(tags="incorrect")])),
        (BenchkitValueError, r"field 'request_states\[0\].instance.references\[0\].tags' is 'incorrect'; "
                           r"allowed: a list"),
    ),
    # FINDING: raw AttributeError ('list' object has no attribute 'get')
    (
        "helm-adapter-spec-a-list",
        lambda t: _read(
            "read_helm", _write(t, "h.json", json.dumps({"adapter_spec": [], "request_states": []}))
        ),
        (BenchkitValueError, r"adapter_spec"),
    ),
    (
        "evalscope-empty-folder",
        lambda t: _read("read_evalscope", _mkdir(t / "es")),
        (BenchkitValueError, r"directory with no \*\.jsonl files"),
    ),
    (
        "evalscope-broken-jsonl",
        lambda t: _read("read_evalscope", _write(t, "es/reviews/m/b.jsonl", "{bad\n").parents[2]),
        (BenchkitValueError, r"not valid JSON"),
    ),
    (
        "every-eval-ever-plain-text",
        lambda t: _read("read_every_eval_ever", _write(t, "e.jsonl", "hello\n")),
        (BenchkitValueError, r"e\.jsonl"),
    ),
    (
        "every-eval-ever-record-missing-fields",
        lambda t: _read(
            "read_every_eval_ever",
            _write(
                t,
                "e.jsonl",
                json.dumps({"schema_version": "0.1", "evaluation_id": "x", "sample_id": "1"}) + "\n",
            ),
        ),
        (BenchkitValueError, r"e\.jsonl:1: an Every Eval Ever instance record needs the field"),
    ),
    (
        "write-every-eval-ever-of-a-DataFrame",
        lambda t: _read("write_every_eval_ever", LONG, t / "o.jsonl"),
        (BenchkitTypeError, r"ResponseSet"),
    ),
    # ----------------------------------------------------------------------------- methods
    (
        "irt-fit-1pl-value-2",
        lambda t: _irt().fit_1pl(np.array([[0, 1, 2], [1, 0, 1]])),
        (BenchkitValueError, r"Y must hold 0/1 responses .*found 2\.0"),
    ),
    (
        "irt-fit-1pl-1D",
        lambda t: _irt().fit_1pl(np.array([0, 1, 1])),
        (BenchkitValueError, r"Y must have 2 dimension"),
    ),
    (
        "irt-fit-1pl-method-MML-uppercase",
        lambda t: _irt().fit_1pl(_Y(), method="MML"),
        (BenchkitValueError, r"method"),
    ),
    (
        "irt-fit-1pl-negative-prior",
        lambda t: _irt().fit_1pl(_Y(), item_prior_sd=-1),
        (BenchkitValueError, r"item_prior_sd"),
    ),
    (
        "irt-fit-1pl-strings",
        lambda t: _irt().fit_1pl(np.array([["0", "1"], ["1", "0"]])),
        (BenchkitTypeError, r"Y must be numeric"),
    ),
    # FINDING: a constant matrix returned unconverged difficulties of -38 (mml) with no error
    (
        "irt-fit-1pl-all-correct",
        lambda t: _irt().fit_1pl(np.ones((5, 4), int)),
        (BenchkitValueError, r"every observed response is 1"),
    ),
    # FINDING: ValueError "cannot convert float NaN to integer" from the quadrature grid
    (
        "irt-fit-1pl-2x2-separated",
        lambda t: _irt().fit_1pl(np.array([[1, 0], [0, 1]])),
        (BenchkitValueError, r"fit diverged .*use method='jml'"),
    ),
    (
        "irt-fit-1pl-counts-K-above-N",
        lambda t: _irt().fit_1pl_counts(np.array([[3, 1]]), np.array([[2, 2]])),
        (BenchkitValueError, r"0 <= K <= N"),
    ),
    (
        "irt-fit-spectral-K-0",
        lambda t: _irt().fit_spectral(_Y().astype(float), 0),
        (BenchkitValueError, r"K"),
    ),
    (
        "measure-ddm-NaN",
        lambda t: _measure().steps.ddm([0.1, np.nan, 0.5]),
        (BenchkitValueError, r"z must be finite"),
    ),
    (
        "measure-ddm-empty",
        lambda t: _measure().steps.ddm([]),
        (BenchkitValueError, r"z must have at least 1 element"),
    ),
    (
        "measure-ddm-target-unknown",
        lambda t: _measure().steps.ddm([0.1, 0.5], target="gauss"),
        (BenchkitValueError, r"target"),
    ),
    ("measure-top-gaps-k-0", lambda t: _measure().steps.top_gaps([0.1, 0.5, 0.9], k=0),
     (BenchkitValueError, r"k")),
    (
        "measure-benchmarks-by-missing-column",
        lambda t: _measure().measure_benchmarks(_rs(), by="zz"),
        (BenchkitValueError, r"zz"),
    ),
    (
        "measure-summarize-z-outside-0-1",
        lambda t: _measure().steps.summarize([-3, 0.5, 7]),
        (BenchkitValueError, r"normalized difficulties in \[0, 1\]"),
    ),
    # FINDING: AttributeError 'DataFrame' object has no attribute 'counts'
    (
        "measure-fit-difficulties-a-DataFrame",
        lambda t: _measure().fit_difficulties(LONG),
        (BenchkitTypeError, r"rs must be a benchkit.ResponseSet, got a DataFrame \(4 rows x 3 columns\)"),
    ),
    # FINDING: AttributeError 'function' object has no attribute 'columns' (DataFrame.items)
    (
        "boundary-diagnose-a-DataFrame",
        lambda t: _boundary().diagnose(LONG),
        (BenchkitTypeError, r"rs must be a benchkit.ResponseSet, got .*from_long"),
    ),
    (
        "boundary-profile-responses-a-DataFrame",
        lambda t: _boundary().profile(LONG),
        (BenchkitTypeError, r"rs must be a benchkit.ResponseSet"),
    ),
    (
        "boundary-diagnose-alpha-o-2",
        lambda t: _boundary().diagnose(_rs(), alpha_o=2),
        (BenchkitValueError, r"alpha_o"),
    ),
    (
        "boundary-profiles-counts-above-T",
        lambda t: _boundary().steps.profiles(np.array([[5, 1], [0, 1]]), 3),
        (BenchkitValueError, r"counts must lie in \[0, T=3\]"),
    ),
    # FINDING: gamma_grid(-1) returned an empty array
    ("boundary-gamma-table-T-negative", lambda t: _boundary().steps.gamma_grid(-1),
     (BenchkitValueError, r"T")),
    # FINDING: ValueError "Exceeds the limit (4300 digits) for integer string conversion"
    (
        "boundary-exact-table-n-huge",
        lambda t: _boundary().steps.exact_calibration(10**6, 50),
        (BenchkitValueError, r"about 10\^1,707,570 count vectors"),
    ),
    ("boundary-build-table-T-0", lambda t: _boundary().steps.build_calibration(3, 0),
     (BenchkitValueError, r"T=0")),
    (
        "landscape-points-logprobs-all-minus-inf",
        lambda t: _landscape().steps.points(np.array([[-np.inf, -np.inf]]), kind="logprobs"),
        (BenchkitValueError, r"-inf logprobs on every offered option"),
    ),
    (
        "landscape-points-negative",
        lambda t: _landscape().steps.points(np.array([[1.2, -0.2]])),
        (BenchkitValueError, r"probs\[0, 1\]=-0.2"),
    ),
    ("subsets-rng-a-float", lambda t: _subsets().select_random(10, 5, rng=1.5), (BenchkitTypeError, r"rng")),
    ("boundary-get-table-n-0", lambda t: _boundary().steps.get_calibration(0, 5), (BenchkitValueError, r"n")),
    (
        "boundary-reliability-unknown-model",
        lambda t: _boundary().estimate_reliability(
            ResponseSet.from_long(LONG.assign(answer=list("ABAB"))), "zz"
        ),
        (BenchkitValueError, r"zz"),
    ),
    # FINDING: a flat family list raised TypeError 'int' object is not iterable
    (
        "quality-cad-families-flat-list",
        lambda t: _quality().steps.cad(_Y(), [0, 1]),
        (BenchkitTypeError, r"families\[0\] is 0; each family is a list"),
    ),
    # FINDING: an inversion rate of 2 gave a score
    (
        "quality-cad-score-rate-2",
        lambda t: _quality().steps.cad_score(2.0),
        (BenchkitValueError, r"rate is an inversion rate in \[0, 1\]"),
    ),
    ("quality-band-unknown-metric", lambda t: _quality().steps.band("zz", 0.5), (BenchkitValueError, r"zz")),
    (
        "quality-assess-a-DataFrame",
        lambda t: _quality().assess(LONG),
        (BenchkitError, r"data must be a ResponseSet"),
    ),
    ("quality-stability-ratio-0", lambda t: _quality().steps.stability(_Y(), 0.0),
     (BenchkitValueError, r"ratio")),
    (
        "landscape-points-kind-unknown",
        lambda t: _landscape().steps.points(np.array([[0.5, 0.5]]), kind="zz"),
        (BenchkitValueError, r"kind"),
    ),
    (
        "landscape-letter-logprobs-missing-unknown",
        lambda t: _landscape().steps.letter_logprobs({"A": -1.0}, "AB", missing="zz"),
        (BenchkitValueError, r"missing"),
    ),
    (
        "landscape-mask-fraction-2",
        lambda t: _landscape().steps.mask(
            pd.DataFrame({"item": ["a"], "text": ["q"], "options": [["x", "y"]]}), fraction=2
        ),
        (BenchkitValueError, r"fraction"),
    ),
    # FINDING: a missing results file read as an empty table
    (
        "landscape-read-results-missing-file",
        lambda t: _landscape().steps.read_results(t / "nope.jsonl"),
        (BenchkitValueError, r"nope\.jsonl' is not a file"),
    ),
    (
        "landscape-points-from-responses-without-probs",
        lambda t: _landscape().map_points(_rs()),
        (BenchkitValueError, r"no option probabilities"),
    ),
    # FINDING: labels of different lengths gave kappa 0.0
    (
        "dif-cohen-kappa-different-lengths",
        lambda t: _stats().cohen_kappa([1, 0], [1]),
        (BenchkitValueError, r"one length; got shapes \(2,\) and \(1,\)"),
    ),
    # FINDING: a bad regular expression raised re.error
    (
        "dif-assign-families-bad-regex",
        lambda t: _dif().steps.assign_families(["llama-7b"], families={"x": "("}),
        (BenchkitValueError, r"families\['x'\] = '\(' is not a regular expression"),
    ),
    (
        "dif-audit-a-DataFrame",
        lambda t: _dif().audit_rankings(LONG),
        (BenchkitError, r"rs must be a benchkit.ResponseSet"),
    ),
    (
        "dif-easiness-cells-n-strata-0",
        lambda t: _dif().steps.easiness_cells(np.array([0.1, 0.2]), ["a", "b"], n_strata=0),
        (BenchkitValueError, r"n_strata"),
    ),
    (
        "subsets-select-random-size-above-pool",
        lambda t: _subsets().select_random(3, 5),
        (BenchkitValueError, r"size=5 exceeds the candidate pool of 3"),
    ),
    (
        "subsets-kmeans-k-0",
        lambda t: _subsets().kmeans(np.random.default_rng(0).random((5, 2)), 0),
        (BenchkitValueError, r"k"),
    ),
]


def _read(name, *args, **kwargs):
    from benchkit import io as bio

    return getattr(bio, name)(*args, **kwargs)


def _zip(path: Path, members: dict) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


def _irt():
    import benchkit.irt as m

    return m


def _measure():
    import benchkit.measure as m

    return m


def _boundary():
    import benchkit.boundary as m

    return m


def _quality():
    import benchkit.quality as m

    return m


def _landscape():
    import benchkit.landscape as m

    return m


def _dif():
    import benchkit.dif as m

    return m


def _stats():
    import benchkit.stats as m

    return m


def _subsets():
    import benchkit.subsets as m

    return m


def test_the_probe_has_at_least_40_inputs():
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.filterwarnings("ignore::benchkit.BenchkitWarning")
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize(("call", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_probe_input(tmp_path, call, expected):
    if isinstance(expected, tuple):
        cls, pattern = expected
        with pytest.raises(cls, match=pattern) as info:
            call(tmp_path)
        assert isinstance(info.value, BenchkitError)  # never a raw library exception
    else:
        assert expected(call(tmp_path))


# ----------------------------------------------------------------------------------- the CLI
CLI_CASES = [
    ("missing-path", ["info", "{tmp}/nope"], r"nope' does not exist"),
    ("empty-folder", ["info", "{tmp}/emptydir"], r"no evaluation files recognized"),
    ("binary-file", ["info", "{tmp}/bin.dat"], r"format not recognized"),
    ("zip-that-is-not-a-log", ["info", "{tmp}/other.zip"], r"is a zip archive but not an Inspect log"),
    ("empty-file", ["info", "{tmp}/empty.txt"], r"format not recognized"),
    ("format-inspect-on-a-csv", ["info", "--format", "inspect", "{tmp}/one.csv"], r"not valid JSON"),
    ("format-helm-on-a-csv", ["info", "--format", "helm", "{tmp}/one.csv"], r"one\.csv. is not valid JSON"),
    (
        "format-parquet-on-a-csv",
        ["info", "--format", "parquet", "{tmp}/one.csv"],
        r"could not be read as Parquet",
    ),
    # FINDING: a folder with lm-eval samples and .eval logs was read as lm-eval only, silently
    ("folder-of-two-tools", ["info", "{tmp}/mixed"], r"holds logs of several tools .*pass --format"),
    ("unknown-dataset", ["fetch", "no-such-dataset"], r"name='no-such-dataset' is not allowed"),
    ("unknown-loader-option", ["fetch", "mmlu-redux", "-o", "zz=1"], r"not an option of dataset"),
]


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in CLI_CASES], ids=[c[0] for c in CLI_CASES])
def test_probe_cli(tmp_path, capsys, argv, message):
    from benchkit.cli import main

    (tmp_path / "emptydir").mkdir()
    (tmp_path / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "empty.txt").write_text("")
    (tmp_path / "one.csv").write_text("model,item,correct\nm,a,1\n")
    _zip(tmp_path / "other.zip", {"a.txt": b"x"})
    shutil.copytree(FIXTURES / "lm_eval" / "run_a", tmp_path / "mixed" / "lm")
    shutil.copy(FIXTURES / "inspect" / "mc.eval", tmp_path / "mixed")
    assert main([a.format(tmp=tmp_path) for a in argv], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.startswith("benchkit: error: ")
    assert err.count("\n") == 1
    assert "Traceback" not in err
    assert __import__("re").search(message, err)


def test_probe_covers_every_area():
    ids = " ".join(c[0] for c in CASES)
    for area in (
        "long-",
        "counts-",
        "wide-",
        "select-",
        "csv-",
        "parquet-",
        "duckdb-",
        "inspect-",
        "lm-eval-",
        "helm-",
        "evalscope-",
        "every-eval-ever-",
        "irt-",
        "measure-",
        "boundary-",
        "quality-",
        "landscape-",
        "dif-",
        "subsets-",
    ):
        assert area in ids, area
    assert len(CASES) + len(CLI_CASES) >= 100
