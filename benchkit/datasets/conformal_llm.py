"""LLaMA-13B option probabilities on 16 MMLU subjects under 10 prompts (ConformalLLM).

The source is Kumar et al.'s "Conformal Prediction with Large Language Models for Multi-Choice
Question Answering" (repository ``bhaweshiitk/ConformalLLM``, MIT) at commit ``5419c301``:
``llm_probs_gpt.zip`` holds, for each of 16 MMLU subjects, ``<subject>_scores.npy`` (float64,
shape (10, N, 4): the softmax over A-D of the original LLaMA-13B, 1-shot, under each of 10 prompt
variants) and ``<subject>_targets.npy`` (int64, shape (N,): the gold option index 0-3).

Counts (checked in the tests): 16 subjects, 2,886 items x 10 prompts = 28,860 responses. The
items were drawn from lukaemon/mmlu train+validation+test after a length filter, so row order is
not plain MMLU test order and no question text is included.
"""
from __future__ import annotations

import functools
import io
import zipfile

import numpy as np
import pandas as pd

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choices
from benchkit.datasets._fetch import fetch_file
from benchkit.datasets._fetch import load_source
from benchkit.response_set import ResponseSet

__all__ = ["SOURCE", "SUBJECTS", "load", "read_arrays"]

_ZIP = "llm_probs_gpt.zip"
_MODEL = "llama-13b"
_LETTERS = "ABCD"

SOURCE = load_source("conformal-llm", repo="bhaweshiitk/ConformalLLM",
                     commit="5419c301b7aeb5c76684e0de0e401ac0258ea0ff")

#: The 16 subjects, alphabetical (the archive's own order is arbitrary).
SUBJECTS: tuple[str, ...] = (
    "anatomy", "business_ethics", "clinical_knowledge", "college_chemistry",
    "college_computer_science", "college_medicine", "computer_security", "formal_logic",
    "high_school_biology", "high_school_computer_science", "machine_learning", "management",
    "marketing", "professional_accounting", "professional_medicine", "public_relations",
)


@functools.lru_cache(maxsize=2)
def _read_zip(local_path: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    out = {}
    with zipfile.ZipFile(local_path) as zf:
        names = set(zf.namelist())
        for subject in SUBJECTS:
            arrays = []
            for kind in ("scores", "targets"):
                member = f"llm_probs_gpt/{subject}_{kind}.npy"
                if member not in names:
                    raise BenchkitValueError(f"{SOURCE.name}/{_ZIP} has no member {member!r}")
                arrays.append(np.load(io.BytesIO(zf.read(member)), allow_pickle=False))
            scores, targets = arrays
            if scores.ndim != 3 or scores.shape[0] != 10 or scores.shape[2] != 4:
                raise BenchkitValueError(
                    f"{subject}_scores.npy has shape {scores.shape}; expected (10, N, 4)"
                )
            if targets.shape != (scores.shape[1],):
                raise BenchkitValueError(
                    f"{subject}_targets.npy has shape {targets.shape}; expected ({scores.shape[1]},)"
                )
            if not np.issubdtype(targets.dtype, np.integer) or targets.min() < 0 or targets.max() > 3:
                raise BenchkitValueError(f"{subject}_targets.npy must hold option indices 0-3")
            scores.setflags(write=False)
            targets.setflags(write=False)
            out[subject] = (scores, targets)
    return out


def read_arrays() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The raw arrays: subject -> (scores float64 (10, N, 4), targets int64 (N,)), read-only.

    Returns
    -------
    dict of str to (ndarray, ndarray)
        Per subject: the softmax over A-D under each of 10 prompts (10, N, 4) and the gold option
        index (N,), as stored in ``llm_probs_gpt.zip``.

    References
    ----------
    B. Kumar, C. Lu, G. Gupta, A. Palepu, D. Bellamy, R. Raskar and A. Beam (2023), "Conformal
    Prediction with Large Language Models for Multi-Choice Question Answering", arXiv:2305.18404;
    repository ``bhaweshiitk/ConformalLLM``.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import conformal_llm
    >>> scores, targets = conformal_llm.read_arrays()["anatomy"]  # doctest: +SKIP
    >>> scores.shape, targets.shape  # doctest: +SKIP
    ((10, 150, 4), (150,))
    """
    return dict(_read_zip(str(fetch_file(SOURCE, _ZIP))))


def load(*, subjects=None) -> ResponseSet:
    """Load LLaMA-13B's option probabilities as a ResponseSet with 10 prompt variants.

    Parameters
    ----------
    subjects : str or sequence of str, optional
        MMLU subjects to keep (:data:`SUBJECTS`); default all 16.

    Returns
    -------
    ResponseSet
        One model, ``"llama-13b"``; one response per (item, prompt variant) with

        - ``variant``: the prompt id ``"prompt_0"`` .. ``"prompt_9"`` (axis 0 of the scores);
        - ``option_probs``: the stored softmax over A-D (4 floats, unchanged);
        - ``answer``: the argmax letter (``"A"`` to ``"D"``; ties, which do not occur in the
          pinned data, go to the first letter);
        - ``correct``: 1 when the argmax equals the gold index, else 0;
        - items, index ``"<subject>/<row>"`` (row = position in the subject's arrays), columns
          ``benchmark`` (``"mmlu"``), ``source`` (the subject), ``answer_key`` (the gold letter),
          ``answer_index`` (0-3), ``row``.

        Use ``rs.select(variant="prompt_3")`` for one prompt's dense views.

    Notes
    -----
    Files are read with ``numpy.load(..., allow_pickle=False)``. The accuracy per subject and
    prompt is what the repository's ``conformal_llm_scores.py`` reports for its "gpt4-based
    1-shot" prompts (argmax of the softmax vs the target).

    References
    ----------
    B. Kumar, C. Lu, G. Gupta, A. Palepu, D. Bellamy, R. Raskar and A. Beam (2023), "Conformal
    Prediction with Large Language Models for Multi-Choice Question Answering", arXiv:2305.18404;
    repository ``bhaweshiitk/ConformalLLM``.

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit.datasets import conformal_llm
    >>> rs = conformal_llm.load(subjects="anatomy")  # doctest: +SKIP
    >>> rs  # doctest: +SKIP
    ResponseSet 'conformal-llm': 150 items x 1 models, 1,500 responses, T=1, ..., 10 variants
    >>> rs.select(variant="prompt_0").accuracy().round(3).tolist()  # doctest: +SKIP
    [0.44]
    """
    chosen = list(SUBJECTS) if subjects is None else check_choices("subjects", subjects, SUBJECTS)
    arrays = read_arrays()
    item_frames, resp = [], []
    for subject in chosen:
        scores, targets = arrays[subject]
        n = len(targets)
        ids = np.array([f"{subject}/{r}" for r in range(n)], dtype=object)
        item_frames.append(pd.DataFrame({
            "item": ids, "benchmark": "mmlu", "source": subject,
            "answer_key": [_LETTERS[t] for t in targets], "answer_index": targets.astype(np.int64),
            "row": np.arange(n),
        }))
        for v in range(scores.shape[0]):
            pv = scores[v]
            arg = np.argmax(pv, axis=1)
            resp.append(pd.DataFrame({
                "model": _MODEL, "item": ids, "variant": f"prompt_{v}",
                "correct": (arg == targets).astype(np.float64),
                "answer": np.array(list(_LETTERS), dtype=object)[arg],
                "option_probs": list(pv),
            }))
    items = pd.concat(item_frames, ignore_index=True)
    responses = pd.concat(resp, ignore_index=True)
    models = pd.DataFrame({"model": [_MODEL], "family": ["llama"], "owner": ["meta"],
                           "size": [13e9], "series": ["llama-1"], "variant": ["base"]})
    meta = {"source": SOURCE.name, "url": f"{SOURCE.repo_url}/blob/{SOURCE.commit}/{_ZIP}",
            "commit": SOURCE.commit,
            "notes": "original LLaMA-13B, 1-shot; 10 prompt variants; softmax over A-D as stored"}
    return ResponseSet.from_long(responses, models=models, items=items, T=1, parse_names=False,
                                 name="conformal-llm", meta=meta)
