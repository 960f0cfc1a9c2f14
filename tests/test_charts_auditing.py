"""benchkit.charts.auditing: the chart data are the audit's numbers, and each chart renders."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchkit
from benchkit.charts.auditing import agreement_chart  # Altair is imported inside each chart function
from benchkit.charts.auditing import agreement_frame  # Altair is imported inside each chart function
from benchkit.charts.auditing import flags_chart  # Altair is imported inside each chart function
from benchkit.charts.auditing import flags_frame  # Altair is imported inside each chart function
from benchkit.charts.auditing import validation_chart  # Altair is imported inside each chart function

alt = pytest.importorskip("altair")
vlc = pytest.importorskip("vl_convert")


@pytest.fixture(scope="module")
def audited():
    sim = benchkit.simulate.audit_suite(n_items=20, n_models=40, ladder=(1.0, 4.0, 16.0), T=2, rng=2)
    res = benchkit.audit(sim.responses, methods=["labels", "landscape", "quality"], n_resamples=0,
                         progress=False, rng=0)
    return sim, res


def _renders(chart):
    svg = vlc.vegalite_to_svg(chart.to_dict())
    assert svg.startswith("<svg")
    assert "<text" in svg


def test_agreement_chart_shows_the_agreement_table(audited):
    _, res = audited
    for stat in ("kappa", "jaccard", "tau_b"):
        data = agreement_frame(res, statistic=stat)
        assert len(data) == len(res.methods) ** 2
        for _, r in res.agreement.iterrows():
            cells = data[(data.method_a == r.method_a) & (data.method_b == r.method_b)]
            np.testing.assert_array_equal(cells["value"].iloc[0], r[stat])  # NaN == NaN here
            assert cells["n_both"].iloc[0] == r["n_both"]
        diag = data[data.method_a == data.method_b].set_index("method_a")
        for m in res.methods:
            assert diag.at[m, "n_both"] == res.items[f"{m}_flag"].sum()
    _renders(agreement_chart(res))
    _renders(agreement_chart(res, statistic="jaccard"))


def test_flags_chart_counts_each_methods_flags(audited):
    _, res = audited
    data = flags_frame(res)
    for m in res.methods:
        assert data[data.method == m]["n_items"].sum() == res.items[f"{m}_flag"].sum()
    two = data[data.n_flags == "2"]["n_items"].sum()
    assert two == 2 * (res.items["n_flags"] == 2).sum()  # each such item counts for both methods
    _renders(flags_chart(res))


def test_validation_chart(audited):
    sim, res = audited
    v = res.validate(sim.truth.flawed_items)
    for metric in ("auroc", "average_precision", "recall"):
        _renders(validation_chart(v, metric=metric))


def test_chart_errors(audited):
    _, res = audited
    with pytest.raises(TypeError, match="expected a benchkit.AuditResult"):
        agreement_chart(res.items)
    with pytest.raises(ValueError, match="statistic='f1' is not allowed"):
        agreement_frame(res, statistic="f1")
    with pytest.raises(TypeError, match="AuditValidation"):
        validation_chart(res)
    with pytest.raises(ValueError, match="metric='f1' is not allowed"):
        validation_chart(res.validate(res.items.index[:5]), metric="f1")
    wide = pd.DataFrame({"a": [1.0, 0.0, 1.0], "b": [0.0, 0.0, 1.0]}, index=["x", "y", "z"])
    one = benchkit.audit(benchkit.ResponseSet.from_wide(wide), methods=["measure"], progress=False)
    with pytest.raises(ValueError, match="agreement needs two methods"):
        agreement_chart(one)
