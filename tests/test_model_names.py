"""Model-name parsing: the rules of benchkit.model_names on the names found in the real data.

Oracle: the published parameter counts and owners of these model families (model cards).
"""
import csv
import math
from pathlib import Path

import pytest

from benchkit import BenchkitValueError
from benchkit.model_names import parse_model_name
from benchkit.model_names import parse_model_names


def _cases():
    """The name cases (``model_name_cases.csv`` next to this file: name, family, owner, size in
    parameters, series, variant), as published in the model cards."""
    with open(Path(__file__).with_name("model_name_cases.csv"), newline="", encoding="utf-8") as fh:
        return [(r["name"], r["family"], r["owner"], float(r["size"]), r["series"], r["variant"])
                for r in csv.DictReader(fh)]


CASES = _cases()


@pytest.mark.parametrize(("name", "family", "owner", "size", "series", "variant"), CASES)
def test_parse(name, family, owner, size, series, variant):
    r = parse_model_name(name)
    assert (r.family, r.owner, r.series, r.variant) == (family, owner, series, variant)
    assert r.size == pytest.approx(size)


def test_unknown_name_keeps_prefix_owner_and_nan_size():
    r = parse_model_name("acme/widget-model")
    assert r.family is None
    assert r.owner == "acme"
    assert math.isnan(r.size)


def test_rules_override():
    rules = ((r"^widget", "widget", "acme"),)
    assert parse_model_name("widget-3b", rules=rules).family == "widget"


def test_frame_and_errors():
    frame = parse_model_names(["Yi-34B", "gemini-1.5-pro-002"])
    assert frame.loc["Yi-34B", "size"] == 34e9
    assert math.isnan(frame.loc["gemini-1.5-pro-002", "size"])
    with pytest.raises(BenchkitValueError, match="model name must be a non-empty string"):
        parse_model_name("")
