"""Shared pytest set-up: browser-test skipping and JupyterLab/chromium fixtures.

Browser tests carry ``@pytest.mark.browser``; they are skipped, with the reason printed, only when
Debian's ``/usr/bin/chromium`` is absent (``./dev test`` installs it). The harness itself lives in
``tests/jupyter_harness.py`` (importable from tests as ``jupyter_harness``).
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import settings

# Property-based tests (tests/test_properties.py): a fixed example budget, no per-example deadline
# (a shared 2-core machine), and derandomized so CI runs the same examples every time; the whole
# file stays well under a minute. HYPOTHESIS_PROFILE=dev explores more (and randomly).
settings.register_profile("ci", max_examples=100, deadline=None, derandomize=True, print_blob=True)
settings.register_profile("dev", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

sys.path.insert(0, str(Path(__file__).resolve().parent))
pytest.register_assert_rewrite("jupyter_harness")  # its assert_* helpers report like test asserts

from jupyter_harness import REPO_ROOT  # noqa: E402
from jupyter_harness import chromium  # noqa: E402
from jupyter_harness import chromium_missing_reason  # noqa: E402
from jupyter_harness import jupyterlab_page  # noqa: E402
from jupyter_harness import jupyterlab_server  # noqa: E402
from jupyter_harness import notebook_run  # noqa: E402
from jupyter_harness import write_notebook  # noqa: E402

# tests/tool_fixtures holds the scripts that regenerate the tool-written fixtures (make_<tool>.py,
# run by hand with the tool installed): they are not tests and are not imported by --doctest-modules.
collect_ignore_glob = ["tool_fixtures/*"]

# The fast lane (``./dev test --fast``) deselects ``slow``: every test that takes more than SLOW_SECONDS
# on 2 cores carries ``@pytest.mark.slow`` (browser tests and notebooks are slow by definition), and
# the end of every run lists the unmarked tests that took longer, so a new slow test is noticed.
SLOW_SECONDS = 5.0
_unmarked_durations: dict[str, float] = {}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "browser" in item.keywords or item.path.suffix == ".ipynb":
            item.add_marker(pytest.mark.slow)
    reason = chromium_missing_reason()
    if reason is None:
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


def pytest_runtest_logreport(report):
    if "slow" not in report.keywords and report.when in ("setup", "call", "teardown"):
        _unmarked_durations[report.nodeid] = _unmarked_durations.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter):
    over = sorted(((t, n) for n, t in _unmarked_durations.items() if t > SLOW_SECONDS), reverse=True)
    if over:
        terminalreporter.section(f"tests over {SLOW_SECONDS:g} s without @pytest.mark.slow")
        for t, n in over:
            terminalreporter.write_line(f"{t:6.1f} s  {n}")


@pytest.fixture(scope="session")
def lab_server():
    """One JupyterLab server for the session, serving the repository root."""
    with jupyterlab_server(REPO_ROOT) as server:
        yield server


@pytest.fixture(scope="session")
def lab_browser():
    """One headless chromium for the session."""
    with chromium() as browser:
        yield browser


@pytest.fixture
def open_notebook(lab_server, lab_browser):
    """``with open_notebook("notebooks/x.ipynb") as page:`` on the session's server and browser."""

    def _open(path, **options):
        return jupyterlab_page(path, server=lab_server, browser=lab_browser, **options)

    return _open


@pytest.fixture
def temp_notebook(lab_browser, tmp_path):
    """``with temp_notebook("x.ipynb", cells, title=None, env=None) as page:`` a notebook run in a lab.

    The code ``cells`` are written as a python3 notebook in ``tmp_path`` (``write_notebook``), served
    by a JupyterLab of its own rooted there (started with ``env``), opened in the session's browser
    and run with ``notebook_run`` (all cells ran, no error output, no JavaScript error at the end).
    Nothing in the repository is touched.
    """

    @contextlib.contextmanager
    def _run(name, cells, *, title=None, env=None):
        path = write_notebook(tmp_path / name, cells, title=title)
        with jupyterlab_server(tmp_path, env=env) as server, \
                notebook_run(jupyterlab_page(path, server=server, browser=lab_browser)) as page:
            yield page

    return _run


# ------------------------------------------------------------------------ the shared ladder sample
# The trajectory view model and its widget (tests/test_boundary_explore.py,
# tests/test_widget_trajectory.py) read the same bundled sample and its profiles. A module that
# needs a different ``ladder``/``prof``/``frame`` defines its own fixture, which wins (pytest's rule).
@pytest.fixture(scope="module")
def ladder():
    """The bundled ``ladder`` sample: 300 items x 6 models, T = 10, answer states."""
    from benchkit.simulate import load_sample

    return load_sample("ladder")


@pytest.fixture(scope="module")
def prof(ladder):
    """``benchkit.boundary.steps.profiles`` of the ladder sample's correct counts."""
    from benchkit.boundary.steps import profiles

    return profiles(ladder.counts().K, ladder.T, items=ladder.item_ids)


@pytest.fixture(scope="module")
def frame(prof, ladder):
    """``prof.to_frame()`` indexed by the item ids as strings (as the explorers show them)."""
    df = prof.to_frame()
    df.index = pd.Index([str(i) for i in ladder.item_ids], name="item")
    return df


# ------------------------------------------------------------------------ the shared DIF audit
# tests/test_dif_audit.py and tests/test_widget_dif.py audit the same simulated population with
# the same reduced replicate counts (computed once per session).
@pytest.fixture(scope="session")
def dif_small_options():
    """Reduced replicate counts for a quick :func:`benchkit.dif.audit_rankings` (no progress bar)."""
    return {"n_controls": 40, "n_bootstrap": 50, "n_owner_bootstrap": 50, "n_permutations": 20,
            "sensitivity_fractions": (0.3,), "progress": False}


@pytest.fixture(scope="session")
def dif_sim_rs():
    """``(simulation, ResponseSet)``: 400 items x 700 models with family DIF on 6 sources."""
    from benchkit import ResponseSet
    from benchkit.dif.steps import simulate_family_dif

    s = simulate_family_dif(n_items=400, n_models=700, n_owners=110, n_sources=6, dif_source_sd=1.0,
                            dif_fraction=0.2, rng=21)
    wide = pd.DataFrame(s.Y, index=[f"q{i}" for i in range(400)], columns=list(s.model_ids))
    return s, ResponseSet.from_wide(wide, items=pd.DataFrame({"item": wide.index, "source": s.source}))


@pytest.fixture(scope="session")
def dif_result(dif_sim_rs, dif_small_options):
    """``benchkit.dif.audit_rankings`` of :func:`dif_sim_rs` (min_family_size=10, K=(4, 4), rng=3)."""
    from benchkit.dif import audit_rankings

    return audit_rankings(dif_sim_rs[1], min_family_size=10, K=(4, 4), rng=3, **dif_small_options)


@pytest.fixture(scope="session")
def dif_selected(dif_sim_rs, dif_result):
    """:func:`dif_result` with a real App. C.3 dimension selection in each owner half (K grid up to
    8 on the simulated population), for the views and charts of the loss curves."""
    import dataclasses

    from benchkit.irt import select_dimension

    _s, rs = dif_sim_rs
    Y = rs.binary().astype(np.uint8)
    pop = dif_result.population
    own = pop.table["owner"].to_numpy(object)
    sels = tuple(select_dimension(Y[:, pop.half_models(h)], owners=own[pop.half_models(h)],
                                  sources=dif_result.source, grid=(1, 2, 4, 8), rng=h)
                 for h in (0, 1))
    return dataclasses.replace(dif_result, selection=sels, K=tuple(s.K_star for s in sels))


@pytest.fixture(scope="session")
def dif_cross_fit():
    """``fit(n_sources)``: ``(simulation, population, cross_fit)`` of 600 items x 900 models
    (120 owners, min_family_size=10, K=(4, 4)), cached per ``n_sources``."""
    import functools

    from benchkit.dif._crossfit import cross_fit
    from benchkit.dif.steps import build_population
    from benchkit.dif.steps import simulate_family_dif

    @functools.cache
    def fit(n_sources: int):
        s = simulate_family_dif(n_items=600, n_models=900, n_owners=120, n_sources=n_sources, rng=8)
        pop = build_population(s.model_ids, s.Y.mean(0), min_family_size=10)
        return s, pop, cross_fit(s.Y, pop, s.source, K=(4, 4), rng=0)

    return fit
