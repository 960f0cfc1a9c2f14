"""AuditExplorer (issue 21 item 4): the widget's Python side and its static export.

Oracles: the audit's own item table (benchkit.AuditResult.items), the view models of
benchkit.auditing.explore, and the ResponseSet's long table counted by hand for "which models
chose what".
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import benchkit
from benchkit.auditing.explore import item_view
from benchkit.auditing.explore import items_view
from benchkit.widgets import AuditExplorer
from benchkit.widgets._base import unpack_arrays
from jupyter_harness import assert_exported

TEXT = '</script><img src=x onerror="alert(1)"> x < 3 & y'


@pytest.fixture(scope="module")
def audited():
    sim = benchkit.simulate.audit_suite(n_items=20, n_models=40, ladder=(1.0, 4.0, 16.0), T=2, rng=2)
    rs = sim.responses
    items = rs.items.copy()
    items.loc[items.index[0], "text"] = TEXT  # text from a user file: shown as text, never as markup
    rs = benchkit.ResponseSet.from_long(rs.to_long().drop(columns="principal"), models=rs.models,
                                        items=items, sample_budget="per_model")
    res = benchkit.audit(rs, methods=["labels", "landscape", "quality"], n_resamples=0, rng=0, progress=False)
    return rs, res


def test_initial_state_is_the_item_table(audited):
    rs, res = audited
    w = AuditExplorer(res, rs)
    assert w.result is res
    assert w.methods == list(res.methods)
    assert w.items == [str(i) for i in res.items.index]
    T = unpack_arrays(w.table)
    for j, m in enumerate(res.methods):
        np.testing.assert_array_equal(T["flags"][:, j].astype(bool), res.items[f"{m}_flag"].to_numpy())
        np.testing.assert_array_equal(T["scores"][:, j], res.items[f"{m}_score"].to_numpy(np.float32))
    np.testing.assert_array_equal(T["n_flags"], res.items["n_flags"].to_numpy())
    assert [a["method"] for a in w.applicability] == list(res.applicability.index)
    assert {a["method"]: a["reason"] for a in w.applicability} == res.applicability["reason"].to_dict()
    pd.testing.assert_frame_equal(w.shown, items_view(res))
    assert w.detail == {}
    assert w.selected_view is None


def test_filters_set_from_the_front_end_give_the_view_model(audited):
    rs, res = audited
    w = AuditExplorer(res, rs)
    w.method = "quality"
    w.min_flags = 2
    shown = w.shown
    expected = res.items[res.items["quality_flag"] & (res.items["n_flags"] >= 2)]
    assert set(shown.index) == set(expected.index)
    assert (np.diff(shown["n_flags"].to_numpy()) <= 0).all()
    pd.testing.assert_frame_equal(shown, items_view(res, method="quality", min_flags=2))


def test_selecting_an_item_fills_its_detail(audited):
    rs, res = audited
    w = AuditExplorer(res, rs)
    item = str(res.flagged_frame().index[0])
    rev = w.revision
    w.selected = item
    assert w.revision == rev + 1  # one recomputation published
    d = w.detail
    assert d["item"] == item
    assert d["key"] == rs.items.at[item, "answer_key"]
    assert d["text"] == rs.items.at[item, "text"]
    # which models chose what: the principal answers counted by hand
    long = rs.to_long()
    long = long[(long["item"] == item) & long["principal"]]
    counts = long["answer"].value_counts()
    for row in d["options"]:
        assert row["n_models"] == counts.get(row["option"], 0)
        assert row["is_key"] == (row["option"] == d["key"])
        assert sorted(filter(None, row["models"].split(", "))) == sorted(
            long.loc[long["answer"] == row["option"], "model"].astype(str))
    verdicts = {v["method"]: v for v in d["verdicts"]}
    for m in res.methods:
        assert verdicts[m]["flag"] == bool(res.items.at[item, f"{m}_flag"])
        assert verdicts[m]["reason"] == res.items.at[item, f"{m}_reason"]
    view = w.selected_view
    assert view.item == item
    pd.testing.assert_frame_equal(view.verdicts, item_view(res, rs, item).verdicts)


def test_errors_name_the_argument(audited):
    rs, res = audited
    w = AuditExplorer(res, rs)
    with pytest.raises(ValueError, match=r"method='dif' is not allowed; choose '' \(any\) or one of"):
        w.method = "dif"
    with pytest.raises(ValueError, match="min_flags=9 is out of range"):
        w.min_flags = 9
    with pytest.raises(ValueError, match="selected='nope' is not an item of this audit"):
        w.selected = "nope"
    with pytest.raises(TypeError, match="result must be a benchkit.AuditResult"):
        AuditExplorer(res.items, rs)
    other = benchkit.ResponseSet.from_wide(pd.DataFrame({"m": [1.0, 0.0]}, index=["a", "b"]))
    with pytest.raises(ValueError, match="rs is not the ResponseSet that was audited"):
        AuditExplorer(res, other)
    with pytest.raises(ValueError, match="item='nope' is not an audited item"):
        item_view(res, rs, "nope")
    with pytest.raises(ValueError, match="method='nope' is not allowed"):
        items_view(res, method="nope")


def test_to_html_embeds_the_details_as_data(audited, tmp_path):
    rs, res = audited
    w = AuditExplorer(res, rs, static_details=5)
    first = str(rs.item_ids[0])
    w.selected = first
    page, state, esm = assert_exported(w, tmp_path / "audit.html", module="auditing.js")
    assert "export default" in esm
    top = list(items_view(res).index[:5].astype(str))
    assert set(state["details"]) == set(top) | {first}
    assert state["details"][first]["text"] == TEXT
    assert TEXT not in page  # the text travels compressed, never as markup
    assert state["selected"] == first


def test_static_image_is_the_whole_view(audited):
    import base64
    import json

    rs, res = audited
    w = AuditExplorer(res, rs)
    w.method, w.min_flags = "quality", 1
    item = str(w.shown.index[1])
    w.selected = item
    spec = json.dumps(w.static_chart().to_dict())
    for i in w.shown.index[:w.static_rows]:  # the listed rows, as filtered
        assert f'"{i}"' in spec
    assert f"first {min(w.static_rows, len(w.shown))} of {len(w.shown)} listed" in spec
    for row in w.detail["options"]:  # the selected item's options and who chose them
        assert json.dumps(row["models"]) in spec
    assert json.dumps(w.detail["text"]) in spec
    data, meta = w._repr_mimebundle_()  # one display: the live view and this chart's PNG
    assert "application/vnd.jupyter.widget-view+json" in data
    assert base64.b64decode(data["image/png"]).startswith(b"\x89PNG")
    assert "AuditExplorer" in meta["image/png"]["alt"]
