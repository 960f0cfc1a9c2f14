"""Running models on rendered MCQ prompts: prompts -> option log-probabilities, resumable.

Paper 003, Sec. 4.3 and App. F: each prompt (the App. F template and system instruction, as
rendered by :func:`benchkit.landscape.steps.render`) is sent to a model with decoding limited to
one token; the log-probabilities of the option-letter tokens ``A, B, C, D`` at that position are
kept and turned into option probabilities by a softmax over the offered letters.

Two backends, one driver:

* :class:`CallableBackend` -- any Python function ``prompts -> per-option log-probabilities``
  (a local ``transformers`` model, a mock, a cache...).
* :class:`OpenAIBackend` -- an OpenAI-compatible HTTP endpoint (vLLM, Ollama, llama.cpp server,
  hosted APIs): the ``/v1/completions`` API (``logprobs=<n>``, legacy format) or the
  ``/v1/chat/completions`` API (``logprobs=true, top_logprobs=<n>``), ``max_tokens=1``,
  ``temperature=0``. Standard library only (:mod:`urllib`), so no new dependency.
* :func:`run_prompts` -- batching, retries with exponential backoff (HTTP 429/5xx, timeouts,
  refused connections; ``Retry-After`` honoured), a tqdm progress bar, and results appended to a
  JSONL file after every batch, keyed by ``(model, item, variant)``: an interrupted run started
  again with the same file skips the finished prompts.

:func:`read_results` reads such a file back; :func:`to_long` / :meth:`RunResult.to_long` give the
``responses`` frame of :meth:`benchkit.ResponseSet.from_long` (``option_logprobs``, ``variant``,
``correct``, ``answer``) and :meth:`RunResult.to_response_set` builds the ResponseSet.

Layout: the prompt, the backend interface and its errors are in :mod:`._backends`, the HTTP
client in :mod:`._openai_backend`, the JSONL results store in :mod:`._results_file`; this module
keeps the driver, :class:`RunResult` and the conversions of records.

No model is run by the tests: they use a fake OpenAI-compatible server on 127.0.0.1.
"""
from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any
from typing import Callable
from typing import Mapping
from typing import Sequence

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_columns
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.landscape._backends import Backend
from benchkit.landscape._backends import Prompt
from benchkit.landscape._backends import RunnerError
from benchkit.landscape._backends import TransientError
from benchkit.landscape._points import LETTERS
from benchkit.landscape._results_file import _read_jsonl
from benchkit.landscape._results_file import _records_frame

__all__ = ["RunResult", "run_prompts", "to_long", "points_from_records"]


# ----------------------------------------------------------------------------- results
@result
class RunResult:
    """What a run produced (including rows finished by earlier, interrupted runs).

    The option log-probabilities of every prompt, ready to become landscape points
    (:meth:`points`) or a :class:`benchkit.ResponseSet` (:meth:`to_response_set`), plus the
    counts that tell whether the run is complete.

    Parameters
    ----------
    records, path, n_prompts, n_new, n_resumed, n_failed, failed, n_truncated, prompts
        The fields described under Attributes (built by :func:`run_prompts`).

    Attributes
    ----------
    records : DataFrame
        One row per finished prompt: ``model, item, variant, letters, option_logprobs,
        n_missing, token, answer_index, digest, letter_missing``, in prompt order.
        ``letter_missing`` is True when at least one option letter was absent from the returned
        top log-probabilities (``n_missing`` of them): its probability is unknown (stored as
        ``-inf`` or the floor), so H_norm of that row is not reported unless asked
        (:meth:`points`, :meth:`to_response_set`, :func:`points_from_records`).
    path : Path or None
        The JSONL file (None for an in-memory run).
    n_prompts : int
        Prompts asked for.
    n_new : int
        Prompts computed in this call.
    n_resumed : int
        Prompts found already finished in ``path`` and skipped.
    n_failed : int
        Prompts that failed for good (``on_error="skip"``); their keys are in ``failed``.
    failed : tuple of str
        The resume keys (``model<TAB>item<TAB>variant``) of the failed prompts: run again to retry
        them.
    n_truncated : int
        Incomplete trailing lines of ``path`` (from an interruption) that were discarded.
    prompts : DataFrame or None
        The rendered prompt table of the call (its ``benchmark`` and ``source`` columns become
        item columns of :meth:`to_response_set`).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3, App. F.

    Examples
    --------
    Two variants of one item, from a backend that always prefers B:

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import CallableBackend, perturb, run_prompts
    >>> items = pd.DataFrame({"item": ["q1"], "text": ["Which gas do plants absorb?"], "answer_key": ["B"],
    ...                       "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"]]})
    >>> backend = CallableBackend(lambda prompts: [[-2.0, -0.2, -3.0, -4.0]] * len(prompts), model="toy")
    >>> run = run_prompts(perturb(items, variants=["baseline", "no_answer"]), backend, progress=False)
    >>> run.n_prompts, run.n_new, run.n_failed
    (2, 2, 0)
    >>> run.to_long()[["variant", "answer", "correct"]]
         variant answer  correct
    0   baseline      B      1.0
    1  no_answer      B      1.0
    """

    records: pd.DataFrame
    path: Path | None
    n_prompts: int
    n_new: int
    n_resumed: int
    n_failed: int = 0
    failed: tuple[str, ...] = ()
    n_truncated: int = 0
    prompts: pd.DataFrame | None = None

    def to_frame(self) -> pd.DataFrame:
        """The records (see the class docstring)."""
        return self.records.copy()

    def to_long(self, **kwargs: Any) -> pd.DataFrame:
        """The ``responses`` frame of :meth:`ResponseSet.from_long` (see :func:`to_long`)."""
        return to_long(self.records, **kwargs)

    @property
    def missing_letters(self) -> pd.DataFrame:
        """The records with a missing option letter: ``model, item, variant, n_missing``."""
        r = self.records
        if "letter_missing" not in r.columns or r.empty:
            return pd.DataFrame(columns=["model", "item", "variant", "n_missing"])
        return r.loc[r["letter_missing"].astype(bool),
                     ["model", "item", "variant", "n_missing"]].reset_index(drop=True)

    def points(self, *, missing_letters: str = "raise", **kwargs: Any):
        """Landscape points of the records (:func:`points_from_records`)."""
        return points_from_records(self.records, missing_letters=missing_letters, **kwargs)

    def to_response_set(self, *, items: pd.DataFrame | None = None, name: str | None = None,
                        meta: dict | None = None, missing_letters: str = "raise", **kwargs: Any):
        """A :class:`benchkit.ResponseSet` with ``option_logprobs`` and ``variant``.

        ``items`` defaults to the item ids with the prompt table's per-item columns
        (``benchmark``, ``source``) when the run kept it. Extra keyword arguments go to
        :meth:`ResponseSet.from_long`.

        ``missing_letters`` decides about records with an option letter absent from the returned
        top log-probabilities (``records["letter_missing"]``), whose H_norm the ResponseSet would
        otherwise report as if the letter had probability 0 (or the floor): ``"raise"`` (default)
        refuses with the list of such records; ``"drop"`` leaves them out; ``"allow"`` keeps them.
        """
        from benchkit.response_set import ResponseSet

        check_choice("missing_letters", missing_letters, ("raise", "drop", "allow"))
        recs = self.records
        if "letter_missing" in recs.columns and recs["letter_missing"].astype(bool).any():
            if missing_letters == "raise":
                raise BenchkitValueError(_missing_message(recs, "to_response_set", "'drop'"))
            if missing_letters == "drop":
                recs = recs[~recs["letter_missing"].astype(bool)]
        long = to_long(recs)
        if items is None:
            ids = pd.unique(long["item"])
            items = pd.DataFrame({"item": ids})
            if self.prompts is not None:
                pf = self.prompts
                for col in ("benchmark", "source"):
                    if col in pf.columns:
                        per = pf.drop_duplicates("item").set_index("item")[col]
                        items[col] = per.reindex(ids).to_numpy()
        m = {"source": "benchkit.landscape.steps.run_prompts", "path": str(self.path) if self.path else None}
        m.update(meta or {})
        return ResponseSet.from_long(long, items=items, T=1, name=name, meta=m, **kwargs)


def _missing_message(recs: pd.DataFrame, where: str, other: str) -> str:
    miss = recs[recs["letter_missing"].astype(bool)]
    first = miss.iloc[0]
    return (
        f"{len(miss)} of {len(recs)} records lack at least one option letter among the returned "
        f"top log-probabilities (first: model={first['model']!r}, item={first['item']!r}, "
        f"variant={first['variant']!r}, {int(first['n_missing'])} missing); their H_norm would "
        "treat the missing options as improbable. Ask the server for more top_logprobs, or pass "
        f"missing_letters={other} (or 'allow') to {where}; records['letter_missing'] marks them"
    )


def points_from_records(records: pd.DataFrame, *, missing_letters: str = "raise",
                        meta_columns: Sequence[str] = ("model", "item", "variant")):
    """Landscape points (P_top1, H_norm; paper 003 Sec. 3) of runner records.

    Parameters
    ----------
    records : DataFrame
        :attr:`RunResult.records` or :func:`read_results`.
    missing_letters : {"raise", "nan", "allow"}, default "raise"
        Records whose server response lacked an option letter among its top log-probabilities
        (``n_missing > 0``): ``"raise"`` refuses with the first such record; ``"nan"`` reports
        their H_norm as NaN (P_top1 and the prediction are kept: the argmax among returned letters
        is still the top choice when the missing ones were outside the top list); ``"allow"``
        computes H_norm with the missing letters at probability 0 (``-inf``) or the floor.
    meta_columns : sequence of str
        Record columns carried into the point metadata (``letter_missing`` is always added).

    Returns
    -------
    LandscapePoints
        Softmax over each record's letters (``kind="logprobs"``); ``answer`` from
        ``answer_index`` when every record has it.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 3.1-3.2 (``P_top1``,
    ``H_norm``), Sec. 4.3 (softmax over the letter logits).

    Examples
    --------
    Records as :func:`read_results` returns them (two noise-injection items):

    >>> import pandas as pd
    >>> from benchkit.landscape.steps import points_from_records
    >>> records = pd.DataFrame({"model": "toy", "item": ["q1", "q2"], "variant": "noise",
    ...                         "letters": [("A", "B", "C", "D")] * 2, "answer_index": [0, 2],
    ...                         "option_logprobs": [[-0.05, -3.5, -4.0, -4.5], [-1.2, -0.9, -2.0, -1.6]]})
    >>> points_from_records(records).to_frame()[["item", "p_top1", "h_norm", "pred", "correct"]].round(3)
      item  p_top1  h_norm pred  correct
    0   q1   0.941   0.929    A     True
    1   q2   0.389   0.953    B    False
    """
    from benchkit.landscape._points import LandscapePoints
    from benchkit.landscape._points import points

    if not isinstance(records, pd.DataFrame):
        raise BenchkitTypeError(f"records must be a DataFrame; got {type(records).__name__}")
    check_columns("records", records.columns, required=["letters", "option_logprobs"])
    check_choice("missing_letters", missing_letters, ("raise", "nan", "allow"))
    recs = records.reset_index(drop=True)
    if "letter_missing" in recs.columns:
        miss = recs["letter_missing"].astype(bool).to_numpy()
    elif "n_missing" in recs.columns:
        miss = recs["n_missing"].fillna(0).to_numpy() > 0
    else:
        miss = np.zeros(len(recs), dtype=bool)
    if miss.any() and missing_letters == "raise":
        tmp = recs.assign(letter_missing=miss)
        if "n_missing" not in tmp.columns:
            tmp["n_missing"] = 1
        for c in ("model", "item", "variant"):
            if c not in tmp.columns:
                tmp[c] = None
        raise BenchkitValueError(_missing_message(tmp, "points", "'nan'"))
    k = int(recs["option_logprobs"].map(len).max()) if len(recs) else 0
    L = np.full((len(recs), k), -np.inf)
    for i, v in enumerate(recs["option_logprobs"]):
        L[i, :len(v)] = [(-np.inf if x is None else float(x)) for x in v]
    n_opt = recs["option_logprobs"].map(len).to_numpy().astype(np.int64)
    if len(recs) and not np.isfinite(L).any(axis=1).all():
        bad = int(np.flatnonzero(~np.isfinite(L).any(axis=1))[0])
        raise BenchkitValueError(f"record {bad} has no finite option log-probability")
    meta = pd.DataFrame({c: recs[c].to_numpy() for c in meta_columns if c in recs.columns})
    meta["letter_missing"] = miss
    answer = None
    if "answer_index" in recs.columns and recs["answer_index"].notna().all() and len(recs):
        answer = recs["answer_index"].astype(np.int64).to_numpy()
    letters = tuple(recs["letters"].iloc[int(np.argmax(n_opt))]) if len(recs) else ()
    pts = points(L, kind="logprobs", offered=n_opt, answer=answer, meta=meta,
                 labels=letters if len(letters) == k else None)
    if missing_letters == "nan" and miss.any():
        h = pts.h_norm.copy()
        h[miss] = np.nan
        pts = LandscapePoints(p_top1=pts.p_top1, h_norm=h, pred=pts.pred, probs=pts.probs,
                              n_options=pts.n_options, outside_mass=pts.outside_mass,
                              answer=pts.answer, correct=pts.correct, kind=pts.kind,
                              labels=pts.labels, meta=pts.meta)
    return pts


def to_long(records: pd.DataFrame, *, answer: bool = True) -> pd.DataFrame:
    """Records (``read_results`` / ``RunResult.records``) -> the ``from_long`` responses frame.

    Columns: ``model, item, variant, option_logprobs`` (list of k floats, ``-inf`` allowed for a
    letter the server did not return), ``answer`` (the argmax letter; ties: first letter) and
    ``correct`` (argmax == ``answer_index``; requires ``answer_index`` in every record).
    All rows must have the same number of options (``from_long`` needs one k): split the
    records of 4- and 5-option items first.

    Parameters
    ----------
    records : DataFrame
        :attr:`RunResult.records` or :func:`read_results`.
    answer : bool, default True
        Add the ``answer`` column (the argmax letter).

    Returns
    -------
    DataFrame
        One row per record: ``model, item, variant, answer, correct, option_logprobs``.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3.

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import to_long
    >>> records = pd.DataFrame({"model": "toy", "item": ["q1", "q2"], "variant": "baseline",
    ...                         "letters": [("A", "B", "C")] * 2, "answer_index": [0, 2],
    ...                         "option_logprobs": [[-0.2, -1.9, -3.0], [-2.2, -0.3, -1.5]]})
    >>> to_long(records)[["item", "answer", "correct"]]
      item answer  correct
    0   q1      A      1.0
    1   q2      B      0.0
    """
    if not isinstance(records, pd.DataFrame):
        raise BenchkitTypeError(f"records must be a DataFrame; got {type(records).__name__}")
    check_columns("records", records.columns,
                  required=["model", "item", "variant", "letters", "option_logprobs"])
    ks = records["option_logprobs"].map(len)
    if ks.nunique() > 1:
        raise BenchkitValueError(
            f"records mix items with {sorted(ks.unique().tolist())} options; ResponseSet needs "
            "one number of options: select the rows of one size first"
        )
    lp = [np.asarray(v, dtype=np.float64) for v in records["option_logprobs"]]
    bad = [i for i, v in enumerate(lp) if not np.isfinite(v).any()]
    if bad:
        r = records.iloc[bad[0]]
        raise BenchkitValueError(
            f"record for ({r['model']!r}, {r['item']!r}, {r['variant']!r}) has no finite option "
            "log-probability (no letter token among the returned top tokens)"
        )
    out = pd.DataFrame({
        "model": records["model"].astype(str).to_numpy(),
        "item": records["item"].astype(str).to_numpy(),
        "variant": records["variant"].astype(str).to_numpy(),
    })
    pred = [int(np.argmax(v)) for v in lp]
    if answer:
        out["answer"] = [str(lets[p]) for lets, p in zip(records["letters"], pred)]
    if "answer_index" in records.columns and records["answer_index"].notna().all():
        ai = records["answer_index"].astype(np.int64).to_numpy()
        out["correct"] = (np.asarray(pred) == ai).astype(np.float64)
    else:
        raise BenchkitValueError(
            "records lack answer_index for some rows; correctness needs the keyed option of every "
            "(item, variant) (render the prompts from a variants table with answer_index)"
        )
    out["option_logprobs"] = [v.tolist() for v in lp]
    return out


# ----------------------------------------------------------------------------- driver
def _prompts_from(frame: Any, model: str, system: str | None) -> tuple[list[Prompt], pd.DataFrame]:
    from benchkit.landscape._perturb import PerturbationSet
    from benchkit.landscape._perturb import render

    if isinstance(frame, PerturbationSet):
        frame = frame.frame
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(
            "prompts must be a DataFrame (perturb.render(...) output, or a variants table) or a "
            f"PerturbationSet; got {type(frame).__name__}"
        )
    if "prompt" not in frame.columns:
        frame = render(frame, system=system)
    check_columns("prompts", frame.columns, required=["item", "prompt"])
    df = frame.reset_index(drop=True)
    variant = df["variant"].astype(str) if "variant" in df.columns else \
        pd.Series(["baseline"] * len(df))
    if "letters" in df.columns:
        letters = [tuple(str(x) for x in v) for v in df["letters"]]
    elif "options" in df.columns:
        letters = [tuple(LETTERS[: len(o)]) for o in df["options"]]
    else:
        raise BenchkitValueError("prompts needs an 'options' or a 'letters' column (the offered "
                                 "option letters)")
    if "system" in df.columns and system is None:
        sys_col = df["system"].astype(str).tolist()
    else:
        sys_col = [system or ""] * len(df)
    ans = df["answer_index"].tolist() if "answer_index" in df.columns else [None] * len(df)
    out, seen = [], set()
    for i, (it, v, s, p, lets, a) in enumerate(zip(df["item"].astype(str), variant, sys_col,
                                                   df["prompt"].astype(str), letters, ans)):
        if "\t" in it or "\t" in v or "\t" in model:
            raise BenchkitValueError(f"row {i}: item, variant and model ids must not contain tabs")
        key = f"{model}\t{it}\t{v}"
        if key in seen:
            raise BenchkitValueError(
                f"prompts has two rows for item {it!r}, variant {v!r}; each (item, variant) "
                "must be unique (name the variants apart)"
            )
        seen.add(key)
        if len(lets) < 2:
            raise BenchkitValueError(f"row {i} (item {it!r}) offers {len(lets)} option(s)")
        aidx = None if a is None or (isinstance(a, float) and math.isnan(a)) else int(a)
        out.append(Prompt(key, it, v, s, p, lets, aidx))
    return out, df


def _normalize_result(res: Any, p: Prompt) -> dict:
    extra: dict[str, Any] = {}
    if isinstance(res, Mapping) and "option_logprobs" in res:
        extra = {k: res[k] for k in ("n_missing", "token") if k in res}
        res = res["option_logprobs"]
    if isinstance(res, Mapping):
        unknown = [k for k in res if k not in p.letters]
        if unknown:
            raise BenchkitValueError(f"result for {p.item!r}/{p.variant!r} names letters "
                                     f"{unknown} not offered ({', '.join(p.letters)})")
        vals = [float(res.get(lab, -math.inf)) for lab in p.letters]
        extra.setdefault("n_missing", sum(lab not in res for lab in p.letters))
    else:
        try:
            vals = [float(v) for v in res]
        except (TypeError, ValueError):
            raise BenchkitTypeError(f"result for {p.item!r}/{p.variant!r} must be a sequence of "
                                    f"floats or a mapping letter -> float; got "
                                    f"{type(res).__name__}") from None
    if len(vals) != len(p.letters):
        raise BenchkitValueError(f"result for {p.item!r}/{p.variant!r} has {len(vals)} values for "
                                 f"{len(p.letters)} options ({', '.join(p.letters)})")
    if any(math.isnan(v) or v == math.inf for v in vals):
        raise BenchkitValueError(f"result for {p.item!r}/{p.variant!r} has NaN or +inf: {vals}")
    return {
        "key": p.key, "model": p.key.split("\t", 1)[0], "item": p.item, "variant": p.variant,
        "letters": list(p.letters),
        "option_logprobs": [None if v == -math.inf else v for v in vals],  # JSON has no -inf
        "n_missing": int(extra.get("n_missing", 0)), "token": extra.get("token"),
        "answer_index": p.answer_index, "digest": p.digest,
    }


def _progress(progress: Any, total: int, initial: int, desc: str):
    if progress is False or progress is None:
        return None
    if callable(progress) and progress is not True:
        return progress(total=total, initial=initial, desc=desc)
    from tqdm import tqdm  # plain tqdm: no Jupyter import in the compute package

    return tqdm(total=total, initial=initial, desc=desc, unit="prompt")


def run_prompts(
    prompts: Any,
    backend: Backend,
    *,
    path: str | os.PathLike | None = None,
    batch_size: int = 8,
    max_retries: int = 5,
    backoff: float = 1.0,
    max_backoff: float = 60.0,
    on_error: str = "raise",
    progress: Any = True,
    system: str | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> RunResult:
    """Run a backend over rendered prompts, in batches, resumably.

    Parameters
    ----------
    prompts : DataFrame or PerturbationSet
        One row per (item, variant): the output of :func:`benchkit.landscape.steps.render`
        (``item, variant, system, prompt, options[, answer_index]``), or a variants table
        (rendered here with the App. F template). ``letters`` may replace ``options``.
    backend : Backend
        :class:`CallableBackend`, :class:`OpenAIBackend` or any object with ``model`` and
        ``__call__(list[Prompt])``.
    path : path, optional
        JSONL results file. Each finished batch is appended and flushed (``fsync``), one record per
        prompt keyed by ``model, item, variant``. Prompts whose key is already in the file are
        skipped (resume); a record whose prompt text changed since raises an error (use a new
        file). None: keep results in memory only.
    batch_size : int
        Prompts per backend call (and per write).
    max_retries : int
        Retries of a batch after a :class:`TransientError` (0: none).
    backoff, max_backoff : float
        Wait ``min(max_backoff, backoff * 2**attempt)`` seconds before retry ``attempt`` (0-based),
        or the server's ``Retry-After`` when larger (still capped by ``max_backoff``).
    on_error : {"raise", "skip"}
        After the retries: raise :class:`RunnerError` (default; finished batches stay in the file)
        or skip the batch, counting its prompts in ``n_failed``.
    progress : bool or callable
        Show a tqdm bar (default), none (False), or a factory ``f(total=, initial=, desc=)``
        returning an object with ``update(n)`` and ``close()``.
    system : str, optional
        System instruction when ``prompts`` has no ``system`` column (App. F default otherwise).
    sleep : callable
        Used for the backoff waits (tests pass a recorder).

    Returns
    -------
    RunResult
        All finished prompts of this call's prompt set (resumed and new), in prompt order.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3 (one-token decoding,
    letter logits, softmax), App. C (decoding settings),
    App. F (prompts).

    Examples
    --------
    >>> import pandas as pd
    >>> from benchkit.landscape.steps import CallableBackend, baseline, render, run_prompts
    >>> items = pd.DataFrame({
    ...     "item": ["q1", "q2"], "text": ["Which gas do plants absorb?", "Which planet is largest?"],
    ...     "options": [["Oxygen", "Carbon dioxide", "Helium", "Neon"],
    ...                 ["Mars", "Venus", "Jupiter", "Earth"]],
    ...     "answer_key": ["B", "C"]})
    >>> def toy_model(prompt):      # a stand-in for a real model: letter log-probabilities
    ...     if prompt.item == "q1":
    ...         return {"B": -0.1, "A": -2.5, "C": -4.0}      # D not among the top tokens
    ...     return [-3.0, -2.0, -0.2, -4.0]
    >>> backend = CallableBackend(toy_model, model="toy", batched=False)
    >>> run = run_prompts(render(baseline(items)), backend, progress=False)
    >>> run.records[["item", "option_logprobs", "n_missing"]]
      item           option_logprobs  n_missing
    0   q1  [-2.5, -0.1, -4.0, -inf]          1
    1   q2  [-3.0, -2.0, -0.2, -4.0]          0
    >>> run.points(missing_letters="nan").to_frame()[["item", "p_top1", "h_norm", "pred"]].round(3)
      item  p_top1  h_norm pred
    0   q1   0.900     NaN    B
    1   q2   0.801   0.758    C

    With ``path``, a second call skips the finished prompts (resume):

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.jsonl")
    >>> first = run_prompts(render(baseline(items)), backend, path=path, progress=False)
    >>> again = run_prompts(render(baseline(items)), backend, path=path, progress=False)
    >>> first.n_new, again.n_new, again.n_resumed
    (2, 0, 2)
    """
    if not isinstance(backend, Backend) and not (callable(backend) and hasattr(backend, "model")):
        raise BenchkitTypeError(f"backend must be a benchkit.landscape.steps.Backend (or have "
                                f"'model' and be callable); got {type(backend).__name__}")
    batch_size = check_int("batch_size", batch_size, min=1)
    max_retries = check_int("max_retries", max_retries, min=0)
    backoff = check_float("backoff", backoff, min=0.0)
    max_backoff = check_float("max_backoff", max_backoff, min=0.0)
    on_error = check_choice("on_error", on_error, ("raise", "skip"))
    model = str(backend.model)
    plist, frame = _prompts_from(prompts, model, system)

    done: dict[str, dict] = {}
    n_trunc = 0
    fpath = None if path is None else Path(path)
    if fpath is not None:
        recs, n_trunc = _read_jsonl(fpath)
        for r in recs:
            done[r["key"]] = r
        if n_trunc:  # drop the partial line so that appends start on a fresh line
            raw = fpath.read_bytes()
            fpath.write_bytes(raw[: raw.rfind(b"\n") + 1] if b"\n" in raw else b"")
        by_key = {p.key: p for p in plist}
        for k, r in done.items():
            p = by_key.get(k)
            if p is not None and r.get("digest") not in (None, p.digest):
                raise BenchkitValueError(
                    f"{fpath} has a result for item {p.item!r}, variant {p.variant!r}, model "
                    f"{model!r} computed from a different prompt; write to a new file (or delete "
                    "the file) to run the changed prompts"
                )
    todo = [p for p in plist if p.key not in done]
    n_resumed = len(plist) - len(todo)
    bar = _progress(progress, len(plist), n_resumed, model)
    failed: list[str] = []
    n_new = 0
    fh = open(fpath, "a", encoding="utf-8") if fpath is not None else None
    try:
        for start in range(0, len(todo), batch_size):
            batch = todo[start:start + batch_size]
            attempt = 0
            while True:
                try:
                    res = backend(batch)
                    if len(res) != len(batch):
                        raise RunnerError(f"backend returned {len(res)} results for "
                                          f"{len(batch)} prompts")
                    recs = [_normalize_result(r, p) for r, p in zip(res, batch)]
                    break
                except TransientError as exc:
                    if attempt >= max_retries:
                        if on_error == "skip":
                            recs = None
                            break
                        raise RunnerError(
                            f"batch starting at item {batch[0].item!r} / variant "
                            f"{batch[0].variant!r} failed after {max_retries} retries: {exc}. "
                            f"{n_new + n_resumed} prompts are finished"
                            + (f" in {fpath}; run again to resume" if fpath else "")
                        ) from exc
                    wait = min(max_backoff, backoff * (2.0 ** attempt))
                    if exc.retry_after is not None:
                        wait = min(max_backoff, max(wait, exc.retry_after))
                    sleep(wait)
                    attempt += 1
                except RunnerError:
                    if on_error == "skip":
                        recs = None
                        break
                    raise
            if recs is None:
                failed.extend(p.key for p in batch)
                continue
            if fh is not None:
                fh.write("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs))
                fh.flush()
                os.fsync(fh.fileno())
            for r in recs:
                done[r["key"]] = r
            n_new += len(recs)
            if bar is not None:
                bar.update(len(recs))
    finally:
        if fh is not None:
            fh.close()
        if bar is not None:
            bar.close()
    ordered = [done[p.key] for p in plist if p.key in done]
    return RunResult(records=_records_frame(ordered), path=fpath, n_prompts=len(plist),
                     n_new=n_new, n_resumed=n_resumed, n_failed=len(failed),
                     failed=tuple(failed), n_truncated=n_trunc, prompts=frame)
