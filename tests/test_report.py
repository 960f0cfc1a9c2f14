"""benchkit.report and ``benchkit report`` (issue 24 item 2), without a browser.

The browser half (zero requests, zero console errors, explorers ready and answering a click, the
injection run in chromium) is tests/test_browser_report.py.
"""
from __future__ import annotations

import hashlib
import html
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest

import benchkit
from benchkit.cli import main

pytest.importorskip("vl_convert")
pytest.importorskip("anywidget")

#: names a report must show as text: markup, a script end tag, an event handler, terminal escapes
EVIL_MODELS = ["</script><script>window.__pwned=1</script>", "<img src=x onerror=\"window.__pwned=2\">",
               "\x1b[2J\x1b]52;c;cHduZWQ=\x07clip", "plain-model", "\u202eevil-bidi", "m&amp;<b>bold</b>"]
EVIL_ITEM = "</textarea><svg onload=window.__pwned=3>"


def evil_responses(tmp_path: Path) -> tuple[Path, Path]:
    """A small MCQ response set (6 models, 30 items, option probabilities) whose names attack HTML."""
    sim = benchkit.simulate.mcq_probabilities(n_items=30, n_models=6, rng=0).responses
    long = sim.to_long()
    rename = dict(zip(sim.model_ids, EVIL_MODELS))
    long["model"] = long["model"].map(rename)
    first = sim.item_ids[0]
    long["item"] = long["item"].replace({first: EVIL_ITEM})
    items = sim.items.reset_index()
    items["item"] = items["item"].replace({first: EVIL_ITEM})
    items["benchmark"] = "<i>bench</i>"
    long = long.drop(columns=["principal"])
    long.to_parquet(tmp_path / "evil.parquet")
    items.to_parquet(tmp_path / "evil_items.parquet")
    return tmp_path / "evil.parquet", tmp_path / "evil_items.parquet"


def _report(tmp_path: Path, *extra: str, name: str = "r.html") -> tuple[int, str, str]:
    data, items = evil_responses(tmp_path)
    out = io.StringIO()
    code = main(["report", str(data), "--item-table", str(items), "--out", str(tmp_path / name), "-q",
                 "--resamples", "20", "--methods", "labels,landscape,measure", *extra], out=out)
    return code, (tmp_path / name).read_text(encoding="utf-8") if code == 0 else "", out.getvalue()


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    code, live, summary = _report(tmp, "--json")
    assert code == 0, summary
    code, static, _ = _report(tmp, "--static", name="static.html")
    assert code == 0
    code, again, _ = _report(tmp, "--json")  # the same command again: the same bytes
    assert code == 0
    return {"live": live, "static": static, "again": again, "summary": json.loads(summary), "dir": tmp}


def _text_outside_data(page: str) -> str:
    """The page without its gzip+base64 data elements (which hold bytes, not markup)."""
    return re.sub(r'<script type="application/octet-stream" id="[^"]+">[A-Za-z0-9+/=]*</script>', "", page)


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_sections_of_the_report(reports):
    page = reports["live"]
    for anchor in ("provenance", "data", "audit", "method-labels", "method-landscape", "method-measure",
                   "not-run", "models", "references", "reproduce"):
        assert f'<section id="{anchor}">' in page, anchor
    assert set(reports["summary"]["ran"]) == {"labels", "landscape", "measure"}
    assert reports["summary"]["not_run"] == dict.fromkeys(("boundary", "dif", "quality"),
                                                          "not requested (--methods)")
    sections = dict(re.findall(r'<section id="([^"]+)">(.*?)</section>', page, flags=re.S))
    # provenance: the command, the seed, the versions, what the reader read and skipped, sha256
    prov = sections["provenance"]
    assert f"<dt>command</dt><dd>benchkit report {html.escape(str(reports['dir']))}/evil.parquet" in prov
    assert "<dt>seed</dt><dd>0</dd>" in prov
    from importlib import metadata

    for name in ("benchkit", "numpy", "pandas", "numba"):
        version = benchkit.__version__ if name == "benchkit" else metadata.version(name)
        assert f"<dt>{name}</dt><dd>{version}</dd>" in prov, name
    assert "<dt>format</dt><dd>parquet (" in prov
    assert "<dt>read</dt><dd>ResponseSet: 30 items x 6 models" in prov
    assert "<dt>skipped</dt>" in prov
    digest = hashlib.sha256((reports["dir"] / "evil.parquet").read_bytes()).hexdigest()
    assert f"<td>evil.parquet</td><td>{digest}</td>" in prov
    # the data; every method that ran; the not-run list; neighbours; references; reproduction
    assert "<dt>models</dt><dd>6</dd><dt>items</dt><dd>30</dd>" in sections["data"]
    assert "Items per benchmark" in sections["data"]
    for key in ("labels", "landscape", "measure"):
        assert "<h3>Headline numbers</h3>" in sections[f"method-{key}"], key
        assert "<svg" in sections[f"method-{key}"], key
    for key in ("landscape", "measure"):  # the methods with an explorer (answer keys have a figure only)
        assert 'data-bk-explorer="bk-explorer-' in sections[f"method-{key}"], key
    assert sections["not-run"].count("not requested (--methods)") == 3
    assert "Paired comparisons of leaderboard neighbours" in sections["models"]
    assert sections["models"].count("<tr>") - 2 == 5 + 6  # 5 neighbour pairs, 6 leaderboard rows
    assert "McNemar (1947)" in sections["references"]
    assert "Probability Landscapes" in sections["references"]


@pytest.mark.slow  # runs the report's Python (the audit and compare_all on 30 items): ~5 s
def test_the_reports_python_reproduces_its_numbers(reports):
    page = reports["live"]
    section = page[page.index('<section id="reproduce">'):]
    command, python = (html.unescape(b) for b in re.findall(r"<pre>(.*?)</pre>", section, flags=re.S)[:2])
    assert command.startswith("benchkit report ")
    assert "\n" not in command
    assert python.count("\n") >= 5  # line breaks kept, not shown as escapes
    assert "\\x0a" not in python
    space: dict = {}
    exec(compile(python, "<report>", "exec"), space)  # noqa: S102 - the report's own code
    audit, comparisons = space["audit"], space["comparisons"]
    n1 = int((audit.items["n_flags"] >= 1).sum())
    assert f"{n1:,} items flagged by at least one method" in page
    assert f"<dt>flagged</dt><dd>{space['labels'].n_flagged}</dd>" in page
    top = html.escape(benchkit._terminal.escape(comparisons.leaderboard["model"].iloc[0]), quote=True)
    assert f"<td>{top}</td>" in page[page.index('<section id="models">'):]


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_embedded_data_are_gzip_compressed(reports):
    import base64
    import gzip

    blocks = re.findall(r'<script type="application/octet-stream" id="([^"]+)">([A-Za-z0-9+/=]*)</script>',
                        reports["live"])
    assert len(blocks) >= 4  # explorer states and their modules
    packed = sum(len(b) for _, b in blocks)
    raw = 0
    for name, data in blocks:
        blob = base64.b64decode(data)
        assert blob[:2] == b"\x1f\x8b", name  # gzip's magic bytes
        raw += len(gzip.decompress(blob))
    assert packed < raw / 2  # base64 of gzip: well under the raw bytes


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_the_csp_forbids_every_request_and_allows_only_the_reports_own_script(reports):
    page = reports["live"]
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', page).group(1)
    assert "default-src 'none'" in csp
    assert "connect-src 'none'" in csp
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0]
    hashes = re.findall(r"'sha256-([^']+)'", csp)
    modules = re.findall(r'<script type="module">(.*?)</script>', page, flags=re.S)
    import base64
    import hashlib

    assert sorted(hashes) == sorted(base64.b64encode(hashlib.sha256(m.encode()).digest()).decode()
                                    for m in modules)
    assert not re.search(r'(src|href)="(https?:)?//', page)


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_static_report_holds_no_script(reports):
    page = reports["static"]
    assert "<script" not in page.lower()
    assert "script-src 'none'" in page
    assert 'id="method-landscape"' in page
    assert "<svg" in page  # the figures are still there


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_same_input_and_seed_give_the_same_bytes(reports):
    assert reports["live"] == reports["again"]


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_every_id_in_the_page_is_unique(reports):
    # vl-convert numbers gradients per process: two figures with a colour legend both held "gradient_1"
    for page in (reports["live"], reports["static"]):
        ids = re.findall(r'\sid="([^"]+)"', page)
        assert len(ids) > 5
        assert len(ids) == len(set(ids))
        for ref in re.findall(r"url\(#([^)]+)\)", page):
            assert ref in ids


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_names_from_files_are_escaped_everywhere(reports):
    for page in (reports["live"], reports["static"]):
        markup = _text_outside_data(page)
        assert "window.__pwned" in html.unescape(markup)  # the names are there, as text
        assert "<script>window.__pwned" not in markup
        assert "<img src=x" not in markup
        assert "<svg onload" not in markup
        assert "<b>bold</b>" not in markup
        assert "<i>bench</i>" not in markup
        assert "\x1b" not in page
        assert "\u202e" not in page
        assert "\\x1b[2J" in markup  # the terminal escape is shown as a visible escape
        # every <script> element is one of the report's own: data blocks, the names list, the module
        for tag in re.findall(r"<script[^>]*>", page):
            assert tag in ('<script type="module">', '<script type="application/json" id="' +
                           tag.split('id="')[-1] if 'id="' in tag else "") or \
                tag.startswith(('<script type="application/octet-stream" id="bk-',
                                '<script type="application/json" id="bk-explorer-'))


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_audit_summary_lists_items_flagged_by_two_methods_first(reports):
    page = reports["live"]
    from benchkit.cli._inputs import read_inputs

    folder = reports["dir"]
    rs, _ = read_inputs([str(folder / "evil.parquet")], items=str(folder / "evil_items.parquet"))
    res = benchkit.audit(rs, methods=["labels", "landscape", "measure"], n_resamples=20, rng=0,
                         progress=False)
    n1, n2 = int((res.items["n_flags"] >= 1).sum()), int((res.items["n_flags"] >= 2).sum())
    assert n2 > 0
    assert (f"{n1:,} items flagged by at least one method, <span class=\"flagged\">{n2:,} by at least "
            "two") in page
    section = page[page.index('<section id="audit">'):page.index('<section id="method-')]
    rows = re.findall(r"<tr><td>([^<]*)</td>(?:<td[^>]*>[^<]*</td>)*?<td class=\"num\">(\d+)</td>", section)
    flags = [int(n) for _, n in rows]
    assert flags[:n2] == [n for n in flags[:n2] if n >= 2]
    assert 'data-bk-module="bk-module-AuditExplorer"' in section


@pytest.mark.slow  # builds three reports (vl-convert figures, explorer exports): ~10 s
def test_report_numbers_are_the_apis(reports):
    page = reports["live"]
    sim_path = reports["dir"] / "evil.parquet"
    from benchkit.cli._inputs import read_inputs

    rs, _ = read_inputs([str(sim_path)], items=str(reports["dir"] / "evil_items.parquet"))
    res = benchkit.labels.key_issues(rs, min_models=5)
    assert f"<dt>flagged</dt><dd>{res.n_flagged}</dd>" in page
    assert reports["summary"]["ran"]["labels"] == (
        "benchkit.audit(rs, methods=['labels', 'landscape', 'measure'], n_resamples=20, rng=0)"
        ".results['labels']")
    board = benchkit.compare_all(rs, n_resamples=20, rng=0).leaderboard
    top = html.escape(benchkit._terminal.escape(board["model"].iloc[0]), quote=True)
    assert page.index(top) > 0


def test_report_refuses_a_wrong_out_and_unknown_methods(tmp_path, capsys):
    data = benchkit.simulate.load_sample  # noqa: F841 (keeps the import honest)
    path = str(Path(__file__).resolve().parents[1] / "data_samples" / "mcq" / "responses.parquet")
    assert main(["report", path, "--out", str(tmp_path / "r.pdf")]) == 2
    assert "must end in .html or .htm" in capsys.readouterr().err
    assert main(["report", path, "--out", str(tmp_path / "r.html"), "--methods", "labels,nope"]) == 2
    assert "--methods 'labels,nope': choose among" in capsys.readouterr().err


def test_build_report_checks_its_arguments():
    rs = benchkit.simulate.mcq_probabilities(n_items=10, n_models=3, rng=0).responses
    from benchkit.report import build_report

    with pytest.raises(benchkit.BenchkitTypeError, match="unknown method"):
        build_report(rs, {"nope": object()})
    with pytest.raises(benchkit.BenchkitValueError, match="max_items"):
        build_report(rs, {}, max_items=0)
    page = build_report(rs, {}, static=True, title="</title><script>x</script>")
    assert "<script" not in page
    assert "&lt;/title&gt;&lt;script&gt;x&lt;/script&gt;" in page


def test_tables_are_the_results_frames():
    from benchkit.report._page import table

    frame = pd.DataFrame({"a": [1.23456789, float("nan")], "b": ["<x>", None]})
    out = table(frame)
    assert "<td class=\"num\">1.235</td>" in out
    assert "&lt;x&gt;" in out
    assert table(frame, max_rows=1).count("<tr>") == 2  # header + one row


@pytest.mark.slow  # converts notebook 02 with nbconvert twice (~10 s)
def test_notebook_report_is_the_offline_exporters_page(tmp_path):
    from benchkit.notebook import notebook_to_html

    nb = Path(__file__).resolve().parents[1] / "notebooks" / "02_family_dif.ipynb"
    out = io.StringIO()
    assert main(["report", "--notebook", str(nb), "--out", str(tmp_path / "nb.html")], out=out) == 0
    page = (tmp_path / "nb.html").read_text(encoding="utf-8")
    assert page == notebook_to_html(nb)
    assert "<script" not in page.lower()
    assert "default-src 'none'" in page
    assert page.count("<img") >= 5
    assert out.getvalue().startswith(f"Wrote {tmp_path / 'nb.html'}")


def test_notebook_and_paths_together_are_refused(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", "x.csv", "--notebook", "n.ipynb", "--out", str(tmp_path / "r.html")])
    assert exc.value.code == 2
    assert "PATH... or --notebook, not both" in capsys.readouterr().err


def test_an_explorer_over_the_budget_is_left_out_with_a_note(monkeypatch):
    import benchkit.report._build as build

    rs = benchkit.simulate.mcq_probabilities(n_items=20, n_models=4, rng=0).responses
    run = type("Run", (), {"result": benchkit.landscape.map_points(rs), "call": "map_points(rs)",
                           "headline": {}})()
    page = build.build_report(rs, {"landscape": run})
    assert page.count("data-bk-explorer=") == 1
    monkeypatch.setattr(build, "EXPLORER_BUDGET", 1000)
    page = build.build_report(rs, {"landscape": run})
    assert "data-bk-explorer=" not in page
    assert "<script" not in page
    assert "The interactive explorer is left out" in page


def test_a_set_with_variants_is_described_by_its_first_variant():
    from benchkit.report import build_report

    sim = benchkit.simulate.mcq_probabilities(n_items=12, n_models=3, rng=0).responses
    long = sim.to_long()
    both = pd.concat([long.assign(variant="base"), long.assign(variant="noise")], ignore_index=True)
    rs = benchkit.ResponseSet.from_long(both, items=sim.items.reset_index())
    page = build_report(rs, {}, static=True)
    assert "missing model x item cells (variant base)" in page
    assert "<dd>base, noise</dd>" in page


@pytest.mark.slow  # the measure, compare_all of 8 models and the figures: 4-6 s on 2 shared cores
def test_a_report_whose_methods_give_no_item_verdict_says_so(tmp_path):
    # the empirical measure judges benchmarks, not items: the audit joins nothing (was: exit 2,
    # "no method with an item verdict ran in this audit", from the flags figure)
    path = str(Path(__file__).resolve().parents[1] / "data_samples" / "mcq" / "responses.parquet")
    out = io.StringIO()
    assert main(["report", path, "--out", str(tmp_path / "r.html"), "-q", "--static", "--methods", "measure",
                 "--resamples", "20"], out=out) == 0
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    section = page[page.index('<section id="audit">'):page.index('<section id="method-measure">')]
    assert "No method that ran gives a verdict per item" in section
    assert "<svg" not in section
    assert "<svg" in page[page.index('<section id="method-measure">'):]


def test_many_input_hashes_fold_under_one_line():
    # A folder of 57 files (MMLU-Redux) listed its hashes before any finding; past 5 files they fold
    # into <details> (no script needed, so the --static report folds them too), each hash still in
    # the file.
    from benchkit.report._build import _provenance_section

    def inputs(n):
        files = [(f"f{k}.csv", hashlib.sha256(str(k).encode()).hexdigest()) for k in range(n)]
        return [{"path": "d", "format": "csv", "reason": "r", "summary": "s", "skipped": [],
                 "files": files}]

    few = _provenance_section(inputs(5), "c", 0, None, [])
    many = _provenance_section(inputs(7), "c", 0, None, [])
    assert "<details>" not in few
    assert "<details><summary>Input files (sha256): 7 files</summary>" in many
    assert all(hashlib.sha256(str(k).encode()).hexdigest() in many for k in range(7))
