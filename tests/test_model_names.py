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


def _owner_cases():
    """Real model ids (eval-arena, MMLU-Pro, ZeroEval, HELM's MMLU runs, Hugging Face repository
    ids) with their owner by the documented rule (``model_owner_cases.csv``: name, owner (empty:
    not knowable from the name), source, note). Checked against the model cards: the uploader or
    publisher; the notes mark where a name-only rule cannot know better."""
    with open(Path(__file__).with_name("model_owner_cases.csv"), newline="", encoding="utf-8") as fh:
        return [(r["name"], r["owner"] or None) for r in csv.DictReader(fh)]


@pytest.mark.parametrize(("name", "owner"), _owner_cases())
def test_owner_rule_on_real_ids(name, owner):
    from benchkit.datasets.eval_arena import NAME_RULES  # FAMILY_RULES + eval-arena's abbreviations

    assert parse_model_name(name, rules=NAME_RULES).owner == owner


def model_owner(name):
    return parse_model_name(name).owner


def test_one_owner_rule_for_every_spelling():
    # the three inconsistencies of the old parsing: "org--name" was its own owner, a publisher
    # account was kept as written ("qwen" vs "alibaba"), a third party became the publisher
    assert model_owner("microsoft--Phi-3-mini-4k-instruct") == "microsoft"
    assert model_owner("Qwen--Qwen1.5-72B-Chat") == model_owner("Qwen/Qwen1.5-72B-Chat") == \
        model_owner("Qwen1.5-72B-Chat") == "alibaba"
    assert model_owner("speechless-codellama-34b") is None
    assert model_owner("meta-llama/Meta-Llama-3-8B") == model_owner("Meta-Llama-3-8B") == "meta"
    assert model_owner("TheBloke/Llama-2-7B-GPTQ") == "thebloke"
    assert model_owner("phind") is None  # not Microsoft's phi
    from benchkit.dif.steps import model_owners

    ids = ["Qwen--Qwen1.5-72B-Chat", "speechless-codellama-34b", "Qwen/Qwen1.5-7B", "owner7/x"]
    assert list(model_owners(ids)) == ["alibaba", "speechless-codellama-34b", "alibaba", "owner7"]
