"""benchkit.charts.labels and benchkit.charts.paired: the chart data are the results' numbers, and
each chart renders through vl-convert."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

import benchkit
from benchkit.charts.labels import key_issues_chart  # Altair is imported inside each chart function
from benchkit.charts.labels import key_issues_frame  # Altair is imported inside each chart function
from benchkit.charts.labels import roc_chart  # Altair is imported inside each chart function
from benchkit.charts.labels import roc_frame  # Altair is imported inside each chart function
from benchkit.charts.labels import suspect_picks_chart  # Altair is imported inside each chart function
from benchkit.charts.paired import groups_chart  # Altair is imported inside each chart function
from benchkit.charts.paired import neighbours_chart  # Altair is imported inside each chart function
from benchkit.charts.paired import neighbours_frame  # Altair is imported inside each chart function
from benchkit.labels import key_issues

alt = pytest.importorskip("altair")
vlc = pytest.importorskip("vl_convert")


@pytest.fixture(scope="module")
def sim():
    return benchkit.simulate.mcq_probabilities(n_items=400, n_models=10, rng=4)


def _renders(chart):
    svg = vlc.vegalite_to_svg(chart.to_dict())
    assert svg.startswith("<svg")
    assert "<text" in svg


def test_key_issues_chart_counts_every_checked_item(sim):
    res = key_issues(sim.responses, probabilities=False)
    data = key_issues_frame(res, bin_width=0.1)
    assert data["n_items"].sum() == res.items["score"].notna().sum()
    flagged = data[data["issue"] == "wrong_key"]["n_items"].sum()
    assert flagged == (res.items["issue"] == "wrong_key").sum()
    _renders(key_issues_chart(res))
    _renders(suspect_picks_chart(res))
    with pytest.raises(TypeError, match="KeyIssues"):
        key_issues_chart(res.items)


def test_roc_chart_auroc_is_mann_whitney(sim):
    res = key_issues(sim.responses)
    y = (sim.truth.items["flaw"].astype(str) == "miskeyed").reindex(res.items.index).to_numpy()
    scores = {"score": res.items["score"].to_numpy(), "plain": res.items["disagree_share"].to_numpy()}
    data = roc_frame(scores, y)
    for name, s in scores.items():
        # oracle: scipy's Mann-Whitney U over n1 n0
        ref = mannwhitneyu(s[y], s[~y]).statistic / (y.sum() * (~y).sum())
        got = data[data["score"].str.startswith(name + " ")]
        assert abs(got["auroc"].iloc[0] - ref) < 1e-12
        assert abs(np.trapezoid(got["tpr"], got["fpr"]) - ref) < 1e-12
    _renders(roc_chart(scores, y))
    with pytest.raises(ValueError, match="one score per label"):
        roc_frame({"x": np.zeros(3)}, y)


def test_paired_charts(sim):
    rs = sim.responses
    comps = benchkit.compare_all(rs)
    nb = neighbours_frame(comps)
    assert len(nb) == rs.n_models - 1
    assert nb["rank_a"].tolist() == list(range(1, rs.n_models))
    _renders(neighbours_chart(comps))
    rs2 = benchkit.ResponseSet.from_long(
        rs.to_long()[["model", "item", "correct"]],
        items=rs.items.reset_index().assign(half=lambda d: np.where(np.arange(len(d)) < 200, "a", "b")))
    one = benchkit.compare(rs2, "sim-mcq-10", "sim-mcq-1", by="half")
    _renders(groups_chart(one))
    with pytest.raises(ValueError, match="no groups"):
        groups_chart(benchkit.compare(rs2, "sim-mcq-10", "sim-mcq-1"))
