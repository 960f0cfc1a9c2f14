"""Tests of the benchmark runner (benchmarks/_runner.py) on trivial, fully controlled cases."""
from __future__ import annotations

import functools
import io
import math
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo root holds `benchmarks/`

from benchmarks import _runner  # noqa: E402
from benchmarks._runner import Case  # noqa: E402
from benchmarks._runner import format_seconds  # noqa: E402
from benchmarks._runner import run  # noqa: E402


class FakeClock:
    """A perf_counter replacement: each function advances it by a known duration."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now

    def advance(self, seconds):
        self.now += seconds


@pytest.fixture
def clock(monkeypatch):
    c = FakeClock()
    monkeypatch.setattr(_runner.time, "perf_counter", c)
    return c


def test_medians_ratio_and_warmup_are_separate(clock):
    # kit: first call 10 s (compile), then 1, 3, 2 s -> median 2; alternative: warm-up 1, then 6, 5, 7 -> 6
    kit_durations = iter([10.0, 1.0, 3.0, 2.0])
    alt_durations = iter([1.0, 6.0, 5.0, 7.0])
    calls = []
    case = Case(
        name="trivial",
        kit=lambda: clock.advance(next(kit_durations)),
        alternative=lambda: clock.advance(next(alt_durations)),
        alternative_name="plain",
        setup=lambda: calls.append("setup"),
        repeat=3,
        note="n=3",
    )
    out = io.StringIO()
    result = run([case], out=out)
    (r,) = result.results
    assert calls == ["setup"]
    assert r.warmup == 10.0
    assert r.kit_times == (1.0, 3.0, 2.0)
    assert r.kit_median == 2.0
    assert r.alternative_warmup == 1.0
    assert r.alternative_median == 6.0
    assert r.ratio == 3.0  # alternative / kit = 6 / 2
    assert not r.failed
    assert result.failed == ()
    table = out.getvalue()
    assert "trivial" in table
    assert "3.00x" in table
    assert "10 s" in table
    assert "n=3" in table
    frame = result.to_frame()
    assert frame.loc[0, "ratio"] == 3.0
    assert frame.loc[0, "warmup_s"] == 10.0
    assert frame.loc[0, "repeat"] == 3


def test_real_clock_orders_a_slow_alternative():
    fast = Case("sleep", kit=lambda: time.sleep(0.001), alternative=lambda: time.sleep(0.02),
                alternative_name="slower", repeat=3)
    (r,) = run([fast], out=None).results
    assert r.kit_median >= 0.001
    assert r.alternative_median >= 0.02
    assert r.ratio > 1.0


def test_no_alternative_gives_nan_ratio(clock):
    case = Case("alone", kit=lambda: clock.advance(1.0), alternative=None, alternative_name="", repeat=2)
    out = io.StringIO()
    (r,) = run([case], out=out).results
    assert r.kit_median == 1.0
    assert math.isnan(r.alternative_median)
    assert math.isnan(r.ratio)
    assert r.alternative_times == ()


def test_filter_selects_by_case_insensitive_substring():
    ran = []
    cases = [Case(n, kit=lambda n=n: ran.append(n), alternative=None, alternative_name="", repeat=1)
             for n in ("from_long small", "from_long large", "pava")]
    result = run(cases, filter="FROM_LONG", out=None)
    assert [r.name for r in result.results] == ["from_long small", "from_long large"]
    assert "pava" not in ran
    assert run(cases, filter="nothing", out=None).results == ()


def test_failing_case_is_reported_and_others_still_run():
    def boom():
        raise RuntimeError("kernel exploded")

    cases = [
        Case("bad alternative", kit=lambda: None, alternative=boom, alternative_name="alt", repeat=2),
        Case("good", kit=lambda: None, alternative=None, alternative_name="", repeat=2),
    ]
    out = io.StringIO()
    result = run(cases, out=out)
    bad, good = result.results
    assert bad.failed
    assert "RuntimeError: kernel exploded" in bad.error
    assert "alternative 'alt'" in bad.error
    assert math.isnan(bad.kit_median)
    assert not good.failed
    assert len(good.kit_times) == 2
    assert result.failed == (bad,)
    text = out.getvalue()
    assert "FAILED" in text
    assert "1 of 2 case(s) failed" in text


def test_bad_cases_are_rejected():
    with pytest.raises(TypeError, match=r"cases\[0\] must be a benchmarks._runner.Case"):
        run([lambda: None], out=None)
    with pytest.raises(ValueError, match="repeat"):
        run([Case("x", kit=lambda: None, alternative=None, alternative_name="", repeat=0)], out=None)


def test_format_seconds():
    assert format_seconds(2.5) == "2.5 s"
    assert format_seconds(0.00123) == "1.23 ms"
    assert format_seconds(4.2e-6) == "4.2 us"
    assert format_seconds(math.nan) == "-"


def test_main_discovers_bench_modules(tmp_path, monkeypatch, capsys):
    # A throwaway benchmarks package with one bench module, run through benchmarks.__main__.main.
    import benchmarks.__main__ as entry

    pkg = tmp_path / "benchmarks_fake"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bench_toy.py").write_text(
        "from benchmarks._runner import Case\n"
        "def cases():\n"
        "    return [Case('toy sum', kit=lambda: sum(range(10)), alternative=lambda: sum(list(range(10))),"
        " alternative_name='list sum', repeat=2),\n"
        "            Case('toy other', kit=lambda: None, alternative=None, alternative_name='', repeat=1)]\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    main = functools.partial(entry.main, directory=pkg, package="benchmarks_fake")
    assert main(["toy"]) == 0
    out = capsys.readouterr().out
    assert "toy sum" in out
    assert "toy other" in out
    assert "list sum" in out
    assert main(["other"]) == 0
    out = capsys.readouterr().out
    assert "toy other" in out
    assert "toy sum" not in out
    csv = tmp_path / "res" / "r.csv"
    assert main(["sum", "--csv", str(csv)]) == 0
    assert "toy sum" in csv.read_text()
    assert main(["zzz"]) == 1
