"""Population construction of the family-DIF audit (paper 001, Sec. 3.1, App. C.1, D.2).

Family by a unique case-insensitive model-id match, owner = uploader, owner cap per owner-family
pair (population seed), minimum capped family size, deterministic greedy owner-disjoint halves,
one ranking representative per owner-family pair.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from collections.abc import Sequence
from dataclasses import field
from typing import Any

import numpy as np
import pandas as pd

from benchkit._random import generator
from benchkit._random import seed_sequence
from benchkit._results import result
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_int
from benchkit.model_names import model_owner

__all__ = [
    "LINEAGE_TERMS",
    "PAPER_FAMILIES",
    "Population",
    "assign_families",
    "build_population",
    "model_owners",
]

#: The paper's frozen family rules (App. C.1): label -> case-insensitive regular expression.
#: "phi" is a token beginning with phi: preceded by the start or a non-alphanumeric character.
PAPER_FAMILIES: dict[str, str] = {
    "gemma": r"gemma",
    "llama": r"llama",
    "mistral": r"mistral|mixtral",
    "phi": r"(?<![a-z0-9])phi",
    "qwen": r"qwen",
}

#: The conservative lineage filter's terms (App. D.2), matched case-insensitively as substrings.
LINEAGE_TERMS: tuple[str, ...] = (
    "merge", "slerp", "franken", "lora", "qlora", "adapter", "distill", "hybrid", "fusion", "dpo",
    "ppo", "orpo", "kto", "abliterat", "uncensor",
)


def assign_families(model_ids: Sequence[str], *, families: Mapping[str, str] = PAPER_FAMILIES
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Family of every model id by a unique case-insensitive pattern match (App. C.1).

    Families are observational labels read from the model name; a model whose id matches no
    pattern, or several (a merge of two families), is left out of the audit.

    Parameters
    ----------
    model_ids : sequence of str
        Model identifiers (``"owner/name"``).
    families : mapping of str to str, default :data:`PAPER_FAMILIES`
        Family label -> regular expression searched case-insensitively in the id (the paper's
        frozen rules: qwen, llama, gemma, mistral|mixtral, a token beginning with phi).

    Returns
    -------
    family : ndarray of object (models,)
        The label, None when zero or several patterns match.
    n_matches : ndarray of int (models,)
        The number of matching patterns.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1, App. C.1 (family matching rules).

    Examples
    --------
    >>> from benchkit.dif.steps import assign_families
    >>> fam, n = assign_families(["Qwen/Qwen2-7B", "x/phi-3-mini", "z/llama-qwen-merge",
    ...                           "tiiuae/falcon-7b"])
    >>> fam.tolist(), n.tolist()
    (['qwen', 'phi', None, None], [1, 1, 2, 0])
    """
    pats = {}
    for k, v in families.items():
        try:
            pats[k] = re.compile(v, re.IGNORECASE)
        except (re.error, TypeError) as exc:
            raise BenchkitValueError(
                f"families[{k!r}] = {v!r} is not a regular expression ({exc}); each family maps to a "
                "pattern searched in the model id, e.g. {'llama': 'llama'}") from None
    fam = np.empty(len(model_ids), dtype=object)
    nm = np.zeros(len(model_ids), dtype=np.int64)
    for j, mid in enumerate(model_ids):
        hits = [k for k, p in pats.items() if p.search(str(mid))]
        nm[j] = len(hits)
        fam[j] = hits[0] if len(hits) == 1 else None
    return fam, nm


def model_owners(model_ids: Sequence[str]) -> np.ndarray:
    """Owner of every model id: the uploader component (App. C.1) by the one owner rule.

    :func:`benchkit.model_names.model_owner`: the uploader of ``org/name`` or ``org--name`` (a
    publisher's accounts written as the publisher), else the publisher of a name that starts with
    its family token; an id whose owner the name does not tell is its own owner (the id, lower
    case), so no two such models are merged into one owner on a guess.

    Owners define the cross-fitting halves: whole owners go to one half, so no model is scored by
    anchors its own uploader's checkpoints helped select.

    Parameters
    ----------
    model_ids : sequence of str
        Model identifiers.

    Returns
    -------
    ndarray of object (models,)
        The owner of each id (lower case).

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1, App. C.1 ("the owner is the uploader component of the model ID").

    Examples
    --------
    >>> from benchkit.dif.steps import model_owners
    >>> model_owners(["Qwen/Qwen2-7B", "meta-llama/Llama-3-8B"]).tolist()
    ['alibaba', 'meta']
    """
    out = np.empty(len(model_ids), dtype=object)
    for j, mid in enumerate(model_ids):
        own = model_owner(str(mid))
        out[j] = own if own is not None else str(mid).lower()
    return out


@result
class Population:
    """An audit population (App. C.1) with its report.

    Which models the audit uses (families, owner cap, minimum family size), the owner-disjoint
    halves of the cross-fit, and one ranking representative per owner-family pair, with the reason
    for every exclusion.

    Parameters
    ----------
    table, families, settings, rng_entropy
        The fields described under Attributes (built by :func:`benchkit.dif.steps.build_population`).

    Attributes
    ----------
    table : DataFrame
        One row per input model (roster order): ``model, family, owner, accuracy, n_matches,
        status`` ("retained" or why excluded), ``half`` (0/1, -1 if excluded) and
        ``representative`` (bool).
    families : tuple of str
        Retained family labels, sorted.
    settings : dict
        The options used.
    rng_entropy : int or None
        Entropy of the root seed of the population seed ``rng`` (used by the owner cap):
        ``build_population(..., rng=rng_entropy)`` rebuilds the same population. Inside
        :func:`benchkit.dif.audit_rankings` this is ``population_rng``'s entropy.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1, App. C.1, App. D.2 (perturbed populations).

    Examples
    --------
    The population of a simulated leaderboard (Zipf-sized owners, a few unmatched names):

    >>> from benchkit.dif.steps import build_population, simulate_family_dif
    >>> sim = simulate_family_dif(n_items=120, n_models=300, n_sources=4, n_owners=40, rng=0)
    >>> pop = build_population(sim.model_ids, sim.Y.mean(0), min_family_size=5)
    >>> pop.families, pop.retained.size, pop.representatives().size
    (('gemma', 'llama', 'mistral', 'phi', 'qwen'), 160, 43)
    >>> pop.table["status"].value_counts().to_dict()
    {'retained': 160, 'owner cap 5': 125, 'no family pattern matches': 15}
    """

    table: pd.DataFrame
    families: tuple[str, ...]
    settings: dict = field(default_factory=dict)
    rng_entropy: Any = None

    @property
    def retained(self) -> np.ndarray:
        """Roster positions of retained (capped) checkpoints."""
        return np.flatnonzero(self.table["status"].to_numpy() == "retained")

    def half_models(self, h: int) -> np.ndarray:
        """Roster positions of retained checkpoints in half ``h``."""
        t = self.table
        return np.flatnonzero((t["status"].to_numpy() == "retained") & (t["half"].to_numpy() == h))

    def representatives(self, *, h: int | None = None) -> np.ndarray:
        """Roster positions of the owner-family representatives (of half ``h``)."""
        t = self.table
        m = t["representative"].to_numpy()
        if h is not None:
            m = m & (t["half"].to_numpy() == h)
        return np.flatnonzero(m)

    def family_codes(self) -> np.ndarray:
        """Family code (index into :attr:`families`) per roster model, -1 if excluded."""
        lookup = {f: k for k, f in enumerate(self.families)}
        st = self.table["status"].to_numpy() == "retained"
        return np.array([lookup[f] if s else -1 for f, s in zip(self.table["family"], st)],
                        dtype=np.int64)

    def counts_frame(self) -> pd.DataFrame:
        """Retained checkpoints, owners and representatives per family and half."""
        t = self.table[self.table["status"] == "retained"]
        g = t.groupby(["family", "half"])
        out = pd.DataFrame({"checkpoints": g.size(), "owners": g["owner"].nunique(),
                            "representatives": g["representative"].sum()})
        return out.reset_index()

    def excluded_frame(self) -> pd.DataFrame:
        """Every excluded model and why."""
        return self.table.loc[self.table["status"] != "retained", ["model", "family", "owner",
                                                                    "status"]]

    def to_frame(self) -> pd.DataFrame:
        """The per-model table (:attr:`table`), a copy."""
        return self.table.copy()


def _greedy_halves(owner_of: np.ndarray, fam_of: np.ndarray, acc: np.ndarray,
                   n_fam: int) -> dict[Any, int]:
    """Assign whole owners to halves, balancing per-family checkpoint counts and accuracy sums."""
    owners, inv = np.unique(owner_of.astype(str), return_inverse=True)
    cnt = np.zeros((owners.size, n_fam))
    accs = np.zeros((owners.size, n_fam))
    np.add.at(cnt, (inv, fam_of), 1.0)
    np.add.at(accs, (inv, fam_of), acc)
    tot_c = np.maximum(cnt.sum(0), 1.0)
    tot_a = np.maximum(accs.sum(0), 1e-12)
    order = sorted(range(owners.size), key=lambda o: (-cnt[o].sum(), owners[o]))
    hc = np.zeros((2, n_fam))
    ha = np.zeros((2, n_fam))
    half = {}
    for o in order:
        costs = []
        for h in (0, 1):
            c, a = hc.copy(), ha.copy()
            c[h] += cnt[o]
            a[h] += accs[o]
            costs.append(float(np.sum(np.abs(c[0] - c[1]) / tot_c + np.abs(a[0] - a[1]) / tot_a)))
        if costs[0] < costs[1] - 1e-12:
            h = 0
        elif costs[1] < costs[0] - 1e-12:
            h = 1
        else:
            h = 0 if hc[0].sum() <= hc[1].sum() else 1
        hc[h] += cnt[o]
        ha[h] += accs[o]
        half[owners[o]] = h
    return half


def _owner_family_groups(rows: np.ndarray, ids, fam, own) -> list[np.ndarray]:
    """``rows`` grouped by (owner, family), groups in sorted (owner, family) order, each in id order.

    Rows whose owner or family is missing form no group (as in a pandas ``groupby``).
    """
    rows = [int(i) for i in rows if not (pd.isna(own[i]) or pd.isna(fam[i]))]
    rows.sort(key=lambda i: (own[i], fam[i], ids[i]))
    groups: list[list[int]] = []
    for i in rows:
        if groups and own[groups[-1][0]] == own[i] and fam[groups[-1][0]] == fam[i]:
            groups[-1].append(i)
        else:
            groups.append([i])
    return [np.array(g, dtype=np.int64) for g in groups]


def build_population(model_ids: Sequence[str], accuracy, *, owners: Sequence[str] | None = None,
                     families: Mapping[str, str] = PAPER_FAMILIES, owner_cap: int = 5,
                     min_family_size: int = 20, representative: str = "median",
                     lineage_filter: bool = False, lineage_terms: Sequence[str] = LINEAGE_TERMS,
                     omit: Sequence[str] = (), rng: Any = 0) -> Population:
    """Build the audit population of App. C.1 (and its D.2 perturbations).

    Parameters
    ----------
    model_ids : sequence of str
        Model identifiers ("owner/name").
    accuracy : array_like
        Full-benchmark accuracy per model (used for halves and representatives).
    owners : sequence of str, optional
        Owners; default :func:`model_owners` (the uploader component).
    families : mapping label -> regex
        The frozen family rules (default :data:`PAPER_FAMILIES`); zero or several matches exclude.
    owner_cap : int
        Checkpoints kept per owner-family pair (5; 1 and 3 are D.2 perturbations), drawn without
        replacement with the population seed ``rng``.
    min_family_size : int
        Minimum capped family size (20 in the primary analysis, 15 in the D.2 perturbations);
        smaller families are excluded.
    representative : {"median", "lexicographic"}
        Ranking representative per owner-family pair: the checkpoint closest to the pair's median
        accuracy (ties: smaller model id), or the first model id (the score-blind variant).
    lineage_filter : bool
        Exclude ids containing any of ``lineage_terms`` (the conservative lineage perturbation).
    lineage_terms : sequence of str, default :data:`LINEAGE_TERMS`
        Substrings (case-insensitive) that mark merged, adapter, distilled, preference-tuned or
        uncensored derivatives (App. D.2).
    omit : sequence of str
        Family labels to leave out (the leave-one-family-out perturbations).
    rng : None, int, SeedSequence or Generator, default 0
        The frozen population-selection seed (used only by the owner cap).

    Returns
    -------
    Population
        ``table`` (per model: family, owner, accuracy, status, half, representative),
        ``families`` (retained, sorted), ``settings`` and ``rng_entropy``.

    Notes
    -----
    Halves (App. C.1) are built greedily: owners in order of decreasing retained checkpoints (ties
    by owner id) go to the half that minimises ``sum_f |n_f0 - n_f1| / n_f + |a_f0 - a_f1| / a_f``
    (checkpoint counts and accuracy sums per family, each scaled by the family total); exact ties go
    to the half with fewer checkpoints, then half 0. This reading is deterministic and balances
    both quantities "within every family", as the paper asks.

    References
    ----------
    Q. Zheng and Y. Yang, "Are Near-Tied LLM Rankings Robust to Family-DIF-Guided Benchmark
    Recomposition?", Sec. 3.1, App. C.1 (families, owners, owner cap 5, halves, representatives), App. D.2
    (owner caps 1 and 3, score-blind representative, lineage filter, leave-one-family-out, minimum
    family size 15).

    Examples
    --------
    >>> import numpy as np
    >>> from benchkit.dif.steps import build_population
    >>> ids = [f"o{o}/{f}-{k}" for o, f in [(1, "llama"), (2, "llama"), (3, "qwen"), (4, "qwen")]
    ...        for k in range(3)]
    >>> pop = build_population(ids, np.linspace(0.4, 0.7, 12), owner_cap=2, min_family_size=2, rng=0)
    >>> pop.table[["model", "status", "half", "representative"]].head(4)
            model       status  half  representative
    0  o1/llama-0  owner cap 2    -1           False
    1  o1/llama-1     retained     0            True
    2  o1/llama-2     retained     0           False
    3  o2/llama-0     retained     1            True
    >>> build_population(ids, np.linspace(0.4, 0.7, 12), owner_cap=2, min_family_size=2,
    ...                  rng=pop.rng_entropy).table.equals(pop.table)
    True
    """
    ids = np.asarray([str(m) for m in model_ids], dtype=object)
    acc = np.asarray(accuracy, dtype=float)
    if acc.shape != ids.shape:
        raise BenchkitValueError(f"accuracy must have one value per model ({ids.size}); "
                                 f"got shape {acc.shape}")
    owner_cap = check_int("owner_cap", owner_cap, min=1)
    min_family_size = check_int("min_family_size", min_family_size, min=1)
    check_choice("representative", representative, ("median", "lexicographic"))
    unknown = [f for f in omit if f not in families]
    if unknown:
        raise BenchkitValueError(f"omit={list(omit)!r} names unknown families {unknown}; "
                                 f"families are {sorted(families)}")
    if len(set(ids)) != ids.size:
        raise BenchkitValueError("model_ids must be unique")
    fam, nm = assign_families(ids, families=families)
    own = np.asarray(owners, dtype=object) if owners is not None else model_owners(ids)
    if own.shape != ids.shape:
        raise BenchkitValueError(f"owners must have one value per model ({ids.size}); "
                                 f"got {own.shape}")
    status = np.array(["retained"] * ids.size, dtype=object)
    status[nm == 0] = "no family pattern matches"
    status[nm > 1] = "several family patterns match"
    status[~np.isfinite(acc) & (status == "retained")] = "accuracy is not finite"
    for f in omit:
        status[(fam == f) & (status == "retained")] = f"family {f} omitted"
    if lineage_filter:
        pat = re.compile("|".join(re.escape(t) for t in lineage_terms), re.IGNORECASE)
        lin = np.array([bool(pat.search(m)) for m in ids])
        status[lin & (status == "retained")] = "lineage filter"
    # owner cap (population seed; candidates in sorted id order so the draw is order-free)
    root = seed_sequence(rng)
    gen = generator(root)
    for cand in _owner_family_groups(np.flatnonzero(status == "retained"), ids, fam, own):
        if cand.size > owner_cap:
            chosen = set(gen.choice(cand, size=owner_cap, replace=False).tolist())
            for i in cand:
                if i not in chosen:
                    status[i] = f"owner cap {owner_cap}"
    # minimum capped family size
    kept_fams = []
    for f in sorted(families):
        n_f = int(np.sum((fam == f) & (status == "retained")))
        if n_f < min_family_size:
            status[(fam == f) & (status == "retained")] = (
                f"family {f} has {n_f} < min_family_size={min_family_size} capped checkpoints")
        elif n_f > 0:
            kept_fams.append(f)
    keep = status == "retained"
    half = np.full(ids.size, -1, dtype=np.int64)
    rep = np.zeros(ids.size, dtype=bool)
    if keep.any():
        codes = {f: k for k, f in enumerate(kept_fams)}
        fc = np.array([codes[f] for f in fam[keep]], dtype=np.int64)
        hmap = _greedy_halves(own[keep], fc, acc[keep], len(kept_fams))
        half[keep] = [hmap[str(o)] for o in own[keep]]
        for g in _owner_family_groups(np.flatnonzero(keep), ids, fam, own):
            if representative == "lexicographic":
                pick = g[0]
            else:
                dist = np.abs(acc[g] - np.median(acc[g]))
                pick = g[int(np.argmin(dist))]  # first (smallest id) among ties
            rep[pick] = True
    table = pd.DataFrame({"model": ids, "family": fam, "owner": own, "accuracy": acc,
                          "n_matches": nm, "status": status, "half": half,
                          "representative": rep})
    settings = {"families": dict(families), "owner_cap": owner_cap, "min_family_size": min_family_size,
                    "representative": representative, "lineage_filter": lineage_filter,
                    "omit": tuple(omit)}
    return Population(table=table, families=tuple(kept_fams), settings=settings,
                      rng_entropy=root.entropy)
