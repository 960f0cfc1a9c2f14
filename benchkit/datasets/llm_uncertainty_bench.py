"""Option-letter logits of 16 base LLMs on MMLU, HellaSwag and CosmosQA (LLM-Uncertainty-Bench).

The source is Ye et al.'s "Benchmarking LLMs via Uncertainty Quantification" (repository
``smartyfh/LLM-Uncertainty-Bench``, MIT) at commit ``5d189dcc``: for each of 16 base models,
10,000 items per dataset, the last-token logits of the six option letters A-F (the item's four
options plus the two the prompts add, "I don't know" and "None of the above"). MMLU is run
under three prompt templates (``base``, ``shared``, ``task``), HellaSwag and CosmosQA under one
(``base``).

This is not a response set: the answer files (``data/*_10k.json``) are not part of the source, so
there is no answer key and no correctness. :func:`load` returns a documented long table of logits
and :func:`option_probs` the softmax over an explicit set of offered options, ready for the
probability-landscape metrics (top-1 probability, residual entropy, mean pairwise distance).

The file read, ``option_logits_base.parquet``, is a conversion made for the mirror (its SOURCE.md):
the repository's ``outputs_base/*.pkl`` files (each a list of 10,000 dicts ``{"id",
"logits_options": float32[6]}``) were read with a restricted unpickler that allows only numpy
array reconstruction and written unchanged to one parquet table, with ``source_file`` naming the
original pickle. There is no public URL for the parquet, so without a mirror (or a cached copy)
:func:`load` fails with an error saying so; benchkit does not unpickle the originals itself.

Counts (checked in the tests): 800,000 rows = 16 models x 5 (dataset, template) x 10,000 items;
the in-context demonstrations (item ids 1, 3, 5, 7, 9) are dropped by default: 400 rows, leaving
799,600 (16 x 5 x 9,995).
"""
from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_choices
from benchkit._validation import check_columns
from benchkit._validation import describe
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source

__all__ = ["SOURCE", "MODELS", "DATASETS", "PROMPT_TEMPLATES", "DEMONSTRATION_IDS", "OPTION_SETS",
           "OptionProbs", "load", "option_probs"]

_PARQUET = "option_logits_base.parquet"

SOURCE = load_source("llm-uncertainty-bench", repo="smartyfh/LLM-Uncertainty-Bench",
                     commit="5d189dcc54dbde7f6a327e7139142aa41ff7c42c")

#: The 16 models, as named in the upstream file names (parquet order).
MODELS: tuple[str, ...] = (
    "Llama-2-13b-hf", "Llama-2-70b-hf", "Llama-2-7b-hf", "Mistral-7B-v0.1", "Qwen-14B", "Qwen-1_8B",
    "Qwen-72B", "Qwen-7B", "Yi-34B", "Yi-6B", "deepseek-llm-67b-base", "deepseek-llm-7b-base",
    "falcon-40b", "falcon-7b", "internlm-7b", "mpt-7b",
)
DATASETS: tuple[str, ...] = ("mmlu", "hellaswag", "cosmosqa")
PROMPT_TEMPLATES: tuple[str, ...] = ("base", "shared", "task")
#: Item ids used as in-context demonstrations in the prompts (drop them before analysis).
DEMONSTRATION_IDS: tuple[int, ...] = (1, 3, 5, 7, 9)
#: Accepted values of ``options`` in :func:`option_probs`.
OPTION_SETS: dict[str, tuple[str, ...]] = {"ABCDEF": tuple("ABCDEF"), "ABCD": tuple("ABCD")}
_LOGITS = tuple(f"logit_{c}" for c in "ABCDEF")
_COLUMNS = ("source_file", "model", "dataset", "prompt_template", "item_id") + _LOGITS


@result
class OptionProbs:
    """Option probabilities of one (dataset, prompt template) slice.

    ``probs`` is float64 (n_models, n_items, k); ``models`` and ``items`` label its first two
    axes, ``options`` its last (letters). Returned by :func:`option_probs`.

    Parameters
    ----------
    probs, models, items, options, dataset, prompt_template
        The fields below, filled by :func:`option_probs`.

    Attributes
    ----------
    probs : ndarray of float64 (n_models, n_items, k)
        Softmax probabilities over the offered options; each (model, item) row sums to 1.
    models : tuple of str
        Model names, the first axis (in :data:`MODELS` order).
    items : tuple of str
        Item ids ``"<dataset>/<item_id>"``, the second axis (ascending ``item_id``).
    options : tuple of str
        The offered option letters, the last axis (``A``-``F`` or ``A``-``D``).
    dataset : str
        The dataset of the slice (``"mmlu"``, ``"hellaswag"``, ``"cosmosqa"``).
    prompt_template : str
        The prompt template of the slice (``"base"``, ``"shared"``, ``"task"``).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.datasets.llm_uncertainty_bench import OptionProbs
    >>> op = OptionProbs(np.array([[[0.7, 0.3]]]), ("m",), ("mmlu/0",), ("A", "B"), "mmlu", "base")
    >>> op.to_frame()
      model    item  p_A  p_B
    0     m  mmlu/0  0.7  0.3
    """

    probs: np.ndarray
    models: tuple[str, ...]
    items: tuple[str, ...]
    options: tuple[str, ...]
    dataset: str
    prompt_template: str

    def to_frame(self) -> pd.DataFrame:
        """Long form: one row per (model, item) with a ``p_<letter>`` column per option."""
        n_m, n_i, k = self.probs.shape
        frame = pd.DataFrame({
            "model": np.repeat(np.array(self.models, dtype=object), n_i),
            "item": np.tile(np.array(self.items, dtype=object), n_m),
        })
        flat = self.probs.reshape(n_m * n_i, k)
        for j, letter in enumerate(self.options):
            frame[f"p_{letter}"] = flat[:, j]
        return frame


def _local_parquet():
    try:
        return fetch_file(SOURCE, _PARQUET, download=False)
    except DatasetIntegrityError:
        raise
    except BenchkitValueError as exc:
        raise BenchkitValueError(
            f"{SOURCE.name}/{_PARQUET} is not available locally ({exc}). It is a conversion of "
            f"{SOURCE.repo}@{SOURCE.commit[:8]}'s outputs_base/*.pkl made for the benchkit data "
            "mirror and has no public URL, so it cannot be downloaded: set BENCHKIT_DATA_MIRROR to "
            "a copy of the mirror (a folder holding llm-uncertainty-bench/option_logits_base.parquet)"
        ) from None


@functools.lru_cache(maxsize=2)
def _read(local_path: str) -> pd.DataFrame:
    import pyarrow.parquet as pq

    table = pq.read_table(local_path)
    check_columns(f"{SOURCE.name}/{_PARQUET}", table.column_names, required=_COLUMNS)
    frame = table.select(list(_COLUMNS)).to_pandas()
    for c in ("source_file", "model", "dataset", "prompt_template"):
        frame[c] = frame[c].astype(object)
    frame["item_id"] = frame["item_id"].astype(np.int64)
    return frame


def load(*, drop_demonstrations: bool = True, datasets=None, models=None) -> pd.DataFrame:
    """The long table of option logits, one row per (model, dataset, prompt template, item).

    Parameters
    ----------
    drop_demonstrations : bool, default True
        Drop the rows of the in-context demonstration items (:data:`DEMONSTRATION_IDS`: ids 1, 3,
        5, 7, 9 of every dataset), as the source says to; their number is in
        ``frame.attrs["n_demonstration_rows_dropped"]`` (400 for the full table). False keeps
        them.
    datasets, models : str or sequence of str, optional
        Keep only these datasets (:data:`DATASETS`) / models (:data:`MODELS`); default all.

    Returns
    -------
    pandas.DataFrame
        Columns ``model`` (upstream name, e.g. ``"Qwen-1_8B"``), ``dataset`` (``"mmlu"``,
        ``"hellaswag"``, ``"cosmosqa"``), ``prompt_template`` (``"base"``, ``"shared"``,
        ``"task"``; only MMLU has the last two), ``item`` (str, ``"<dataset>/<item_id>"``: the same
        item under every template and model), ``item_id`` (int, 0..9999, the upstream ``id``),
        ``logit_A`` .. ``logit_F`` (float32, the raw last-token logits of the option letters:
        A-D the item's options, E and F the two added options), ``source_file`` (the original
        pickle, e.g. ``"outputs_base/Qwen-7B_mmlu_10k_base_icl1.pkl"``). Rows in file order.
        ``frame.attrs`` records the drop count and the source commit.

    Notes
    -----
    Values are exactly those of the pickles (float32). There is no answer key: accuracy and the
    paper's conformal set sizes cannot be computed from this table alone.

    References
    ----------
    F. Ye, M. Yang, J. Pang, L. Wang, D. F. Wong, E. Yilmaz, S. Shi and Z. Tu (2024),
    "Benchmarking LLMs via Uncertainty Quantification", arXiv:2401.12794; repository
    ``smartyfh/LLM-Uncertainty-Bench``.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import llm_uncertainty_bench
    >>> llm_uncertainty_bench.load(datasets="mmlu", models="Qwen-1_8B").shape  # doctest: +SKIP
    (29985, 12)
    """
    if not isinstance(drop_demonstrations, bool):
        raise BenchkitValueError(
            f"drop_demonstrations must be True or False, got {drop_demonstrations!r}"
        )
    frame = _read(str(_local_parquet()))
    mask = np.ones(len(frame), dtype=bool)
    for name, values, allowed in (("datasets", datasets, DATASETS), ("models", models, MODELS)):
        if values is None:
            continue
        values = check_choices(name, values, allowed)
        mask &= frame["dataset" if name == "datasets" else "model"].isin(values).to_numpy()
    demo = frame["item_id"].isin(DEMONSTRATION_IDS).to_numpy() & mask
    n_demo = int(demo.sum())
    if drop_demonstrations:
        mask &= ~demo
    out = frame.loc[mask, ["model", "dataset", "prompt_template", "item_id", *_LOGITS,
                           "source_file"]].reset_index(drop=True)
    out.insert(3, "item", out["dataset"] + "/" + out["item_id"].astype(str))
    out.attrs = {
        "source": SOURCE.name, "commit": SOURCE.commit,
        "n_demonstration_rows": n_demo,
        "n_demonstration_rows_dropped": n_demo if drop_demonstrations else 0,
    }
    return out


def option_probs(frame: pd.DataFrame, *, options: str, dataset: str = "mmlu",
                 prompt_template: str = "base"):
    """Option probabilities as an array (models x items x options), softmax over chosen options.

    Parameters
    ----------
    frame : DataFrame
        A table from :func:`load` (e.g. ``load()``, demonstrations dropped).
    options : {"ABCDEF", "ABCD"}
        Required, no default: which options count as offered. ``"ABCDEF"``: all six letters the
        prompts offer (the item's four plus "I don't know" and "None of the above"), softmax over
        the six logits. ``"ABCD"``: the four real options only, softmax over their four logits
        (equivalently, the six-way probabilities of A-D renormalized to sum to 1).
    dataset : str, default "mmlu"
        The dataset of the slice (:data:`DATASETS`).
    prompt_template : str, default "base"
        The (dataset, template) slice; every model must have the same items in it.

    Returns
    -------
    OptionProbs
        ``probs``: float64 array (n_models, n_items, k), ``k`` = 6 or 4, options in letter
        order; ``models``: models in :data:`MODELS` order (those present); ``items``:
        ``"<dataset>/<item_id>"`` in ascending ``item_id``; ``options``, ``dataset``,
        ``prompt_template``; ``to_frame()`` gives the long form.

    Notes
    -----
    The softmax is computed stably in float64 (``exp(z - max z)`` normalized). The paper turns
    logits into probabilities with a softmax over the offered options; which options are offered
    is the caller's explicit choice here.

    References
    ----------
    F. Ye, M. Yang, J. Pang, L. Wang, D. F. Wong, E. Yilmaz, S. Shi and Z. Tu (2024),
    "Benchmarking LLMs via Uncertainty Quantification", arXiv:2401.12794; repository
    ``smartyfh/LLM-Uncertainty-Bench``.

    Examples
    --------
    A hand-made table in :func:`load`'s layout (one model, two items):

    >>> import pandas as pd
    >>> from benchkit.datasets.llm_uncertainty_bench import option_probs
    >>> frame = pd.DataFrame({"model": ["Qwen-7B"] * 2, "dataset": ["mmlu"] * 2,
    ...                       "prompt_template": ["base"] * 2, "item": ["mmlu/0", "mmlu/2"],
    ...                       "item_id": [0, 2], **{f"logit_{c}": [0.0, 0.0] for c in "ABCDEF"}})
    >>> frame["logit_A"] = [3.0, 0.0]
    >>> op = option_probs(frame, options="ABCD")
    >>> op.probs.round(3).tolist()  # e**3 / (e**3 + 3) = 0.870
    [[[0.87, 0.043, 0.043, 0.043], [0.25, 0.25, 0.25, 0.25]]]
    """
    check_choice("options", options, tuple(OPTION_SETS))
    check_choice("dataset", dataset, DATASETS)
    check_choice("prompt_template", prompt_template, PROMPT_TEMPLATES)
    if not isinstance(frame, pd.DataFrame):
        raise BenchkitTypeError(
            f"frame must be a DataFrame from load() (e.g. load(datasets={dataset!r})); got {describe(frame)}"
        )
    check_columns("frame", frame.columns, required=("model", "dataset", "prompt_template",
                                                    "item_id", *_LOGITS))
    part = frame[(frame["dataset"] == dataset) & (frame["prompt_template"] == prompt_template)]
    if len(part) == 0:
        raise BenchkitValueError(
            f"frame has no rows for dataset={dataset!r}, prompt_template={prompt_template!r}"
            + ("; only MMLU has the 'shared' and 'task' templates" if dataset != "mmlu" else "")
        )
    models = [m for m in MODELS if m in set(part["model"])]
    models += sorted(set(part["model"]) - set(models))
    items = np.sort(part["item_id"].unique())
    counts = part.groupby("model")["item_id"].nunique()
    short = counts[counts != len(items)]
    if len(short):
        raise BenchkitValueError(
            f"model {short.index[0]!r} has {int(short.iloc[0])} items in ({dataset}, "
            f"{prompt_template}), others have {len(items)}; select a complete slice"
        )
    if part.duplicated(["model", "item_id"]).any():
        raise BenchkitValueError(
            f"frame has repeated (model, item_id) rows in ({dataset}, {prompt_template})"
        )
    cols = [f"logit_{c}" for c in OPTION_SETS[options]]
    m_idx = pd.Index(models).get_indexer(part["model"])
    i_idx = np.searchsorted(items, part["item_id"].to_numpy())
    z = np.full((len(models), len(items), len(cols)), np.nan)
    z[m_idx, i_idx] = part[cols].to_numpy(dtype=np.float64)
    z -= z.max(axis=2, keepdims=True)
    p = np.exp(z)
    p /= p.sum(axis=2, keepdims=True)
    return OptionProbs(probs=p, models=tuple(models), items=tuple(f"{dataset}/{i}" for i in items),
                       options=OPTION_SETS[options], dataset=dataset, prompt_template=prompt_template)
