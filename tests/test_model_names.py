"""Model-name parsing: the rules of benchkit.model_names on the names found in the real data.

Oracle: the published parameter counts and owners of these model families (model cards).
"""
import math

import pytest

from benchkit import BenchkitValueError
from benchkit.model_names import parse_model_name, parse_model_names

CASES = [
    # name, family, owner, size, series, variant
    ("Qwen1.5-110B", "qwen", "alibaba", 110e9, "qwen1.5", "base"),
    ("meta_llama-3.1-70b-instruct-turbo", "llama", "meta", 70e9, "llama-3.1", "instruct"),
    ("Meta-Llama-3_1-8B-Instruct", "llama", "meta", 8e9, "llama-3.1", "instruct"),
    ("Llama-2-13b-hf", "llama", "meta", 13e9, "llama-2", "base"),
    ("codellama-34b-python", "codellama", "meta", 34e9, "codellama", "base"),
    ("Mixtral-8x7B-v0.1", "mixtral", "mistral", 56e9, "mixtral", "base"),
    ("Yi-6B", "yi", "01-ai", 6e9, "yi", "base"),
    ("deepseek-ai/deepseek-coder-1.3b-instruct", "deepseek-coder", "deepseek", 1.3e9, "deepseek-coder",
     "instruct"),
    ("phi-1_5", "phi", "microsoft", 1.3e9, "phi-1.5", "base"),
    ("phi-2", "phi", "microsoft", 2.7e9, "phi-2", "base"),
    ("starcoder2-15b", "starcoder", "bigcode", 15e9, "starcoder-2", "base"),
    ("gemma-2-27b-it", "gemma", "google", 27e9, "gemma-2", "instruct"),
    ("Qwen1.5-72B-Chat", "qwen", "alibaba", 72e9, "qwen1.5", "chat"),
    ("qwen1.5-0.5b", "qwen", "alibaba", 0.5e9, "qwen1.5", "base"),
]


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
