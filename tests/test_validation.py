"""benchkit._validation helpers not covered by the per-function bad-input tests."""
import pytest

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choices

ALLOWED = ("a", "b", "c")


def test_check_choices_one_or_several_in_allowed_order():
    # hand-worked: the result follows ALLOWED's order, each value once
    assert check_choices("x", "b", ALLOWED) == ["b"]
    assert check_choices("x", ["c", "a", "c"], ALLOWED) == ["a", "c"]
    assert check_choices("x", (), ALLOWED) == []


def test_check_choices_names_the_bad_value():
    with pytest.raises(BenchkitValueError, match=r"x='z' is not allowed; choose one of"):
        check_choices("x", ["a", "z"], ALLOWED)
