"""Ordered model axes for BSDProbe (App. F; sub-axes of App. H.2).

An axis is the ordered tuple of probe models f_1 < ... < f_n (weakest first). The paper's default
is empirical: models ranked by principal-answer accuracy on the items with complete, scoreable
responses for every candidate model, ties keeping the roster order. Explicit axes (a given order,
or by parameter count within a family) and endpoint-preserving sub-axes are also supported.
"""
from __future__ import annotations

from dataclasses import field
from dataclasses import replace
from itertools import combinations

import numpy as np
import pandas as pd

from benchkit._results import result
from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_int
from benchkit._validation import describe
from benchkit.response_set import check_response_set

__all__ = ["ModelAxis", "empirical_axis", "size_axis", "explicit_axis", "model_axis", "subaxes"]


@result
class ModelAxis:
    """An ordered model axis f_1 < ... < f_n (weakest first), the reference of every profile.

    BSDProbe reads each item along an ordered list of probe models: a correctness transition is
    located by the position on this axis where the fitted correctness rises (Sec. 3.1). The
    axis is built by :func:`~benchkit.boundary.steps.empirical_axis` (the paper's ordering by
    principal-answer accuracy, App. F), :func:`~benchkit.boundary.steps.size_axis`,
    :func:`~benchkit.boundary.steps.explicit_axis` or, for the endpoint-preserving reductions of
    App. H.2, :meth:`subaxis` and :func:`~benchkit.boundary.steps.subaxes`.

    Parameters
    ----------
    models, method, accuracy, accuracy_kind, n_items, positions, name
        The fields below (see Attributes); an axis is usually built by the functions above.

    Attributes
    ----------
    models : tuple of str
        Model ids in axis order, weakest first: position i of every trajectory is ``models[i]``.
    method : {"accuracy", "size", "explicit", "subaxis"}
        How the order was obtained: ranked by accuracy (App. F), by parameter count, as given,
        or kept from a parent axis.
    accuracy : tuple of float, optional
        Accuracy of each model (axis order) on the ``n_items`` ordering items, in [0, 1];
        non-decreasing along an "accuracy" axis. None for the other methods.
    accuracy_kind : {"principal", "mean"}, optional
        "principal": accuracy of the principal answer (App. F); "mean": mean correctness over the
        samples, used when the data has no principal answer (sets built from counts with T > 1).
    n_items : int
        Items used for the ordering (complete and scoreable for every candidate); 0 when the
        order did not come from the data.
    positions : tuple of float
        Coordinates of the models on the parent axis, in [0, 1]: (i - 1)/(n - 1) for a full axis;
        for a sub-axis the retained models' original coordinates (App. H.2), used to map
        crossings back (:meth:`map_positions`).
    name : str, optional
        A label for tables and charts (e.g. "qwen3" or the family of a size axis).

    See Also
    --------
    benchkit.boundary.profile : profiles along an axis (its ``axis`` argument).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1 (the ordered model axis), App. F (its empirical ordering), App. H.2
       (sub-axes).

    Examples
    --------
    >>> from benchkit.boundary.steps import explicit_axis
    >>> ax = explicit_axis(["m-1b", "m-7b", "m-70b"], name="toy")
    >>> ax.models, ax.positions
    (('m-1b', 'm-7b', 'm-70b'), (0.0, 0.5, 1.0))
    >>> sub = ax.subaxis(["m-1b", "m-70b"])   # endpoints kept, original coordinates kept
    >>> sub.positions, float(sub.map_positions(0.5))
    ((0.0, 1.0), 0.5)
    """

    models: tuple
    method: str = "explicit"
    accuracy: tuple | None = None
    accuracy_kind: str | None = None
    n_items: int = 0
    positions: tuple = field(default=())
    name: str | None = None

    def __post_init__(self):
        if not self.positions:
            n = len(self.models)
            pos = tuple(float(i) / (n - 1) if n > 1 else 0.0 for i in range(n))
            object.__setattr__(self, "positions", pos)

    @property
    def n(self) -> int:
        return len(self.models)

    def to_frame(self) -> pd.DataFrame:
        """One row per model: position on the axis, parent coordinate and ordering accuracy."""
        df = pd.DataFrame(
            {
                "position": np.arange(self.n) / max(self.n - 1, 1),
                "coordinate": self.positions,
            },
            index=pd.Index(list(self.models), name="model"),
        )
        if self.accuracy is not None:
            df["accuracy"] = self.accuracy
        return df

    def map_positions(self, q) -> np.ndarray:
        """Map normalized positions on this axis to the parent coordinates (piecewise linear).

        A position s in [0, 1] lies between models j and j+1 (s (n-1) = j + t); it maps to
        positions[j] + t (positions[j+1] - positions[j]) (App. H.2). NaN stays NaN.
        """
        q = np.asarray(q, dtype=np.float64)
        grid = np.arange(self.n) / (self.n - 1)
        out = np.interp(q, grid, np.asarray(self.positions, dtype=np.float64))
        return np.where(np.isnan(q), np.nan, out)

    def subaxis(self, models) -> "ModelAxis":
        """The sub-axis of the given models, kept in this axis' order, with parent coordinates."""
        models = [str(m) for m in models]
        unknown = [m for m in models if m not in self.models]
        if unknown:
            raise BenchkitValueError(
                f"sub-axis models {describe(unknown)} are not on the axis {describe(list(self.models))}"
            )
        idx = sorted({self.models.index(m) for m in models})
        if len(idx) < 2:
            raise BenchkitValueError("a sub-axis needs at least 2 models")
        acc = None if self.accuracy is None else tuple(self.accuracy[i] for i in idx)
        return replace(self, models=tuple(self.models[i] for i in idx), method="subaxis",
                       accuracy=acc, positions=tuple(self.positions[i] for i in idx))


def _candidates(rs, models) -> pd.Index:
    if models is None:
        return pd.Index(rs.model_ids, name="model")
    if isinstance(models, str):
        raise BenchkitTypeError(f"models must be a sequence of model ids, not the string {models!r}")
    models = [str(m) for m in models]
    unknown = [m for m in models if m not in rs.model_ids]
    if unknown:
        raise BenchkitValueError(
            f"models {describe(unknown)} are not in the ResponseSet; known: "
            f"{describe(list(rs.model_ids[:8]))}"
        )
    if len(set(models)) != len(models):
        raise BenchkitValueError(f"models lists a model more than once: {describe(models)}")
    return pd.Index(models, name="model")


def empirical_axis(rs, *, models=None, name: str | None = None) -> ModelAxis:
    """Axis ordered by principal-answer accuracy, the paper's empirical model axis (App. F).

    BSDProbe needs the probe models ordered from weakest to strongest on the benchmark at hand;
    the paper ranks them by how often their principal answer is correct on the items every
    candidate answered, and uses that one order for every item of the benchmark.

    Parameters
    ----------
    rs : benchkit.ResponseSet
        The benchmark's responses (principal answers, or counts).
    models : sequence of str, optional
        The candidate roster (its order breaks ties); default all models in roster order.
    name : str, optional
        Label stored on the axis (``ModelAxis.name``).

    Returns
    -------
    ModelAxis
        ``method="accuracy"``; ``accuracy`` holds each model's accuracy in axis order (non-decreasing)
        and ``n_items`` the number of items it was measured on.

    Notes
    -----
    Accuracy is the fraction of the shared items with complete, scoreable responses for every
    candidate (no missing cell) whose principal answer is judged correct (``rs.binary()``). Sets
    built from counts with more than one sample have no principal answer; their models are ranked
    by mean correctness k/N instead (``accuracy_kind="mean"``). Ties keep the roster order (a
    stable sort; accuracies are compared after rounding to 12 decimals so that equal fractions
    tie exactly).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. F (empirical ordering of model axes).

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import empirical_axis
    >>> rs = simulate.repeated_sampling(n_items=40, T=10, rng=0).responses
    >>> ax = empirical_axis(rs)
    >>> ax.models[0], ax.models[-1], ax.n_items
    ('sim-0.6b', 'sim-32b', 40)
    >>> [round(a, 3) for a in ax.accuracy]
    [0.15, 0.275, 0.3, 0.6, 0.6, 0.75]
    """
    check_response_set("rs", rs)
    cand = _candidates(rs, models)
    if len(cand) < 2:
        raise BenchkitValueError(f"an axis needs at least 2 models; got {len(cand)}")
    mi = rs.model_ids.get_indexer(cand)
    try:
        Y = rs.binary()[:, mi]
        kind = "principal"
    except ValueError:
        Y = rs.scores()[:, mi]
        kind = "mean"
    complete = ~np.isnan(Y).any(axis=1)
    if not complete.any():
        raise BenchkitValueError(
            "no item has scoreable responses for every candidate model; cannot order the axis"
        )
    acc = Y[complete].mean(axis=0)
    order = np.argsort(np.round(acc, 12), kind="stable")
    return ModelAxis(models=tuple(cand[order]), method="accuracy",
                     accuracy=tuple(float(a) for a in acc[order]), accuracy_kind=kind,
                     n_items=int(complete.sum()), name=name)


def size_axis(rs, *, family: str | None = None, models=None, name: str | None = None) -> ModelAxis:
    """Axis ordered by parameter count (``rs.models['size']``), e.g. a size ladder in one family.

    An alternative to the empirical order of App. F when the models form a family whose sizes
    give the expected capability order (the paper's Qwen3 and Qwen2.5 axes list the models by
    size, Table 4).

    Parameters
    ----------
    rs : benchkit.ResponseSet
        Responses whose models table has a ``size`` column (and ``family`` when ``family`` is given).
    family : str, optional
        Keep only the models of this family (``rs.models['family']``).
    models : sequence of str, optional
        Candidate models (default all); ties in size keep this order.
    name : str, optional
        Label of the axis (default: ``family``).

    Returns
    -------
    ModelAxis
        ``method="size"``, smallest model first.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. F, Table 4 (model axes).

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import size_axis
    >>> rs = simulate.repeated_sampling(n_items=10, T=10, rng=0).responses
    >>> size_axis(rs).models
    ('sim-0.6b', 'sim-1.7b', 'sim-4b', 'sim-8b', 'sim-14b', 'sim-32b')
    """
    check_response_set("rs", rs)
    cand = _candidates(rs, models)
    meta = rs.models.loc[cand]
    if family is not None:
        if "family" not in meta.columns:
            raise BenchkitValueError("family= needs a models column 'family'; this set has none")
        fams = pd.unique(meta["family"].dropna()).tolist()
        if family not in fams:
            raise BenchkitValueError(f"family={family!r} is not allowed; choose one of {describe(fams)}")
        meta = meta[meta["family"] == family]
    if "size" not in meta.columns:
        raise BenchkitValueError("a size axis needs a models column 'size'; this set has none")
    size = meta["size"].to_numpy(dtype=np.float64)
    if np.isnan(size).any():
        bad = list(meta.index[np.isnan(size)][:5])
        raise BenchkitValueError(f"models {describe(bad)} have no size; pass an explicit axis")
    if len(meta) < 2:
        raise BenchkitValueError(f"an axis needs at least 2 models; got {len(meta)}")
    order = np.argsort(size, kind="stable")
    return ModelAxis(models=tuple(meta.index[order]), method="size", name=name or family)


def explicit_axis(models, *, name: str | None = None) -> ModelAxis:
    """Axis in the given order (weakest first).

    Use it to impose an order fixed in advance, such as the paper's task-specific cross-model
    orders (Table 6), instead of estimating it from the data.

    Parameters
    ----------
    models : sequence of str
        At least 2 distinct model ids, weakest first.
    name : str, optional
        Label of the axis.

    Returns
    -------
    ModelAxis
        ``method="explicit"`` with positions (i - 1)/(n - 1).

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. F, Table 6 (prescribed cross-model orders).

    Examples
    --------
    >>> from benchkit.boundary.steps import explicit_axis
    >>> explicit_axis(["small", "medium", "large"]).positions
    (0.0, 0.5, 1.0)
    """
    if isinstance(models, str):
        raise BenchkitTypeError(f"models must be a sequence of model ids, not the string {models!r}")
    models = tuple(str(m) for m in models)
    if len(models) < 2:
        raise BenchkitValueError(f"an axis needs at least 2 models; got {len(models)}")
    if len(set(models)) != len(models):
        raise BenchkitValueError(f"models lists a model more than once: {describe(list(models))}")
    return ModelAxis(models=models, method="explicit", name=name)


def model_axis(rs, *, axis=None) -> ModelAxis:
    """Resolve an axis specification against a ResponseSet.

    Every ResponseSet-level BSDProbe call accepts the same ``axis=`` argument; this is where it
    becomes a :class:`ModelAxis` checked against the set's models.

    Parameters
    ----------
    rs : benchkit.ResponseSet
        The responses the axis must match.
    axis : None, "accuracy", "size", sequence of str, dict or ModelAxis, optional
        ``None`` or ``"accuracy"``: :func:`empirical_axis` over all models (the paper's default,
        App. F); ``"size"``: :func:`size_axis` over all models; a sequence of model ids: those
        models in that order; a :class:`ModelAxis`: checked against the set. A mapping
        ``{"models": [...], "order": "accuracy" or "size", "name": ..., "family": ...}`` orders the
        listed candidates.

    Returns
    -------
    ModelAxis
        The resolved axis.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. Sec. 3.1 and App. F (the ordered model axis).

    Examples
    --------
    >>> from benchkit import simulate
    >>> from benchkit.boundary.steps import model_axis
    >>> rs = simulate.repeated_sampling(n_items=10, T=10, rng=0).responses
    >>> model_axis(rs, axis=["sim-1.7b", "sim-14b"]).models
    ('sim-1.7b', 'sim-14b')
    >>> model_axis(rs, axis="size").method
    'size'
    """
    check_response_set("rs", rs)
    if axis is None or (isinstance(axis, str) and axis == "accuracy"):
        return empirical_axis(rs)
    if isinstance(axis, str):
        if axis == "size":
            return size_axis(rs)
        raise BenchkitValueError(
            f"axis={axis!r} is not allowed; choose 'accuracy', 'size', a sequence of model ids or a "
            "ModelAxis"
        )
    if isinstance(axis, ModelAxis):
        _candidates(rs, axis.models)
        return axis
    if isinstance(axis, dict):
        order = axis.get("order", "accuracy")
        if order == "accuracy":
            return empirical_axis(rs, models=axis.get("models"), name=axis.get("name"))
        if order == "size":
            return size_axis(rs, models=axis.get("models"), family=axis.get("family"),
                             name=axis.get("name"))
        raise BenchkitValueError(f"axis['order']={order!r} is not allowed; choose 'accuracy' or 'size'")
    try:
        models = list(axis)
    except TypeError:
        raise BenchkitTypeError(
            f"axis must be None, 'accuracy', 'size', a sequence of model ids or a ModelAxis; got "
            f"{describe(axis)}"
        ) from None
    _candidates(rs, models)
    return explicit_axis(models)


def subaxes(axis: ModelAxis, *, sizes=(3, 4, 5)) -> list[ModelAxis]:
    """All endpoint-preserving sub-axes with the given model counts (App. H.2).

    The paper tests how much an item's profile depends on the intermediate probe models by
    dropping them while keeping the weakest and the strongest model.

    Parameters
    ----------
    axis : ModelAxis
        The full axis (n models).
    sizes : sequence of int, default (3, 4, 5)
        Model counts of the sub-axes (the paper's n = 3, 4, 5), each in [2, n].

    Returns
    -------
    list of ModelAxis
        Each keeps f_1 and f_n and a subset of the intermediate models in their original order,
        with ``positions`` the retained models' original coordinates (i - 1)/(n - 1); for n = 6
        and sizes (3, 4, 5) that is 4 + 6 + 4 sub-axes.

    References
    ----------
    .. [1] Hu, H., Liang, Y., Li, Y., Shi, Y., Xu, L. and Wang, T. "Are Benchmarks Reliable?
       Toward Structural Diagnosis via Item-Level Capability Boundaries." arXiv:2609.33196,
       2026. App. H.2 (endpoint-preserving model reduction), Table 10.

    Examples
    --------
    >>> from benchkit.boundary.steps import explicit_axis, subaxes
    >>> ax = explicit_axis([f"m{i}" for i in range(1, 7)])
    >>> [len(subaxes(ax, sizes=(k,))) for k in (3, 4, 5)]
    [4, 6, 4]
    >>> subaxes(ax, sizes=(3,))[0].positions
    (0.0, 0.2, 1.0)
    """
    if not isinstance(axis, ModelAxis):
        raise BenchkitTypeError(f"axis must be a ModelAxis; got {describe(axis)}")
    out = []
    n = axis.n
    for size in sizes:
        size = check_int("sizes", size, min=2, max=n)
        for mid in combinations(range(1, n - 1), size - 2):
            keep = (0,) + mid + (n - 1,)
            out.append(axis.subaxis([axis.models[i] for i in keep]))
    return out
