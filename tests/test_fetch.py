"""Dataset fetching: mirror, cache, pinned sha256, and download from a URL (a loopback server).

Oracle: hashlib.sha256 of bytes written by the test.
"""
from __future__ import annotations

import hashlib
import http.server
import threading
from functools import partial
from pathlib import Path

import pytest

from benchkit import BenchkitValueError
from benchkit.datasets import _fetch
from benchkit.datasets._fetch import DatasetIntegrityError
from benchkit.datasets._fetch import Source
from benchkit.datasets._fetch import SourceFile
from benchkit.datasets._fetch import fetch_file

PAYLOAD = b"model,item,correct\na,q,1\n"
SHA = hashlib.sha256(PAYLOAD).hexdigest()


def _source(url=None):
    return Source(name="toy", repo="owner/toy", commit="0" * 40, license="MIT",
                  files=(SourceFile("data/x.csv", SHA, len(PAYLOAD), url=url),))


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "www"
    root.mkdir()
    (root / "x.csv").write_bytes(PAYLOAD)
    (root / "bad.csv").write_bytes(b"tampered")
    handler = partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a, **k: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_mirror_is_used_and_verified(tmp_path, monkeypatch):
    mirror = tmp_path / "mirror"
    (mirror / "toy" / "data").mkdir(parents=True)
    (mirror / "toy" / "data" / "x.csv").write_bytes(PAYLOAD)
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(mirror))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    assert fetch_file(_source(), "data/x.csv") == mirror / "toy" / "data" / "x.csv"
    (mirror / "toy" / "data" / "x.csv").write_bytes(b"changed!")
    with pytest.raises(DatasetIntegrityError, match=f"pinned sha256 is {SHA}"):
        fetch_file(_source(), "data/x.csv")


def test_download_into_cache(tmp_path, monkeypatch, served):
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))  # a mirror without this source
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    path = fetch_file(_source(url=f"{served}/x.csv"), "data/x.csv")
    assert path == tmp_path / "cache" / "toy" / "data" / "x.csv"
    assert path.read_bytes() == PAYLOAD
    # second call: from the cache, no server needed
    assert fetch_file(_source(url="http://127.0.0.1:9/unreachable"), "data/x.csv") == path


def test_download_with_wrong_hash_is_rejected_and_not_cached(tmp_path, monkeypatch, served):
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(DatasetIntegrityError, match="downloaded file"):
        fetch_file(_source(url=f"{served}/bad.csv"), "data/x.csv")
    assert not (tmp_path / "cache" / "toy" / "data" / "x.csv").exists()


def test_errors(tmp_path, monkeypatch):
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path / "absent"))
    with pytest.raises(BenchkitValueError, match="BENCHKIT_DATA_MIRROR=.* is not a directory"):
        _fetch.mirror_root()
    monkeypatch.setenv("BENCHKIT_DATA_MIRROR", str(tmp_path))
    monkeypatch.setenv("BENCHKIT_CACHE", str(tmp_path / "cache"))
    with pytest.raises(BenchkitValueError, match="is neither in the mirror .* download=False"):
        fetch_file(_source(), "data/x.csv", download=False)
    # the mirror is set: the error says which file it lacks (issue 12), not "Set BENCHKIT_DATA_MIRROR"
    with pytest.raises(BenchkitValueError,
                       match="could not download .* toy/data/x.csv is missing from the mirror"):
        fetch_file(_source(url="http://127.0.0.1:9/x.csv"), "data/x.csv")
    with pytest.raises(BenchkitValueError, match="path='nope' is not a pinned file of source 'toy'"):
        fetch_file(_source(), "nope")


def test_default_url_is_pinned_commit():
    assert _source().url("data/x.csv") == (
        "https://raw.githubusercontent.com/owner/toy/" + "0" * 40 + "/data/x.csv")


# ---------------------------------------------------------------------------------------------
# manifests: the pinned hashes are package data (benchkit/datasets/manifests/<source>.json)
# ---------------------------------------------------------------------------------------------
# Known counts of pinned files per source, from the loaders' documentation and the mirror layout
# (an independent record: a manifest that loses or gains entries fails here).
_PINNED_COUNTS = {"mmlu-redux": 123, "mmlu": 118, "mmlu-pro": 18, "eval-arena": 8, "cruxeval": 5,
                  "zeroeval": 14, "llm-uncertainty-bench": 1, "conformal-llm": 1}


def test_every_source_reads_its_manifest_from_package_data():
    import json
    from importlib import resources

    from benchkit import datasets

    folder = resources.files("benchkit.datasets").joinpath("manifests")
    on_disk = sorted(p.name for p in folder.iterdir() if p.name.endswith(".json"))
    assert on_disk == sorted(f"{n}.json" for n in datasets.names())
    # inside the package folder, so hatch's wheel target (packages = ["benchkit"]) ships them
    import benchkit

    pkg = Path(benchkit.__file__).resolve().parent
    assert all((pkg / "datasets" / "manifests" / n).is_file() for n in on_disk)
    for name in datasets.names():
        src = datasets.source(name)
        doc = json.loads(folder.joinpath(f"{name}.json").read_text(encoding="utf-8"))
        assert (doc["source"], doc["repo"], doc["commit"]) == (src.name, src.repo, src.commit)
        assert [(f["path"], f["sha256"], f["size"]) for f in doc["files"]] == \
            [(f.path, f.sha256, f.size) for f in src.files]
        assert len(src.files) == _PINNED_COUNTS[name]
        assert all(len(f.sha256) == 64 and int(f.sha256, 16) >= 0 and f.size > 0 for f in src.files)
        assert len({f.path for f in src.files}) == len(src.files)


def test_manifest_hashes_match_the_mirror_files():
    # oracle: hashlib over the mirror copies (independent of the loader's memoized sha256_of)
    from benchkit import datasets

    root = _fetch.mirror_root()
    if root is None:
        pytest.skip("no data mirror (BENCHKIT_DATA_MIRROR) on this machine")
    src = datasets.source("cruxeval")
    for f in src.files:
        data = (root / src.name / f.path).read_bytes()
        assert hashlib.sha256(data).hexdigest() == f.sha256
        assert len(data) == f.size


def test_manifest_of_another_commit_is_an_error():
    with pytest.raises(BenchkitValueError, match=r"manifest cruxeval.json has commit='190faf16"):
        _fetch.load_manifest("cruxeval", repo="facebookresearch/cruxeval", commit="0" * 40)
    with pytest.raises(BenchkitValueError, match=r"no manifest for source 'nope'"):
        _fetch.load_manifest("nope", repo="a/b", commit="0" * 40)


def test_load_source_reads_license_description_and_upstream_prefix():
    # oracle: the manifest files themselves (package data), read here with json
    import json
    from importlib import resources

    def doc(name):
        ref = resources.files("benchkit.datasets").joinpath("manifests", f"{name}.json")
        return json.loads(ref.read_text(encoding="utf-8"))

    d = doc("mmlu")
    src = _fetch.load_source("mmlu", repo=d["repo"], commit=d["commit"])
    assert (src.license, src.description) == (d["license"], d["description"])
    first = d["files"][0]["path"]
    # the mirror drops upstream's leading "code/" folder: the URL puts it back
    assert src.url(first) == (f"https://raw.githubusercontent.com/{d['repo']}/{d['commit']}/code/"
                              f"{first}")
    c = doc("cruxeval")
    crux = _fetch.load_source("cruxeval", repo=c["repo"], commit=c["commit"])
    assert crux.url(c["files"][0]["path"]) == (
        f"https://raw.githubusercontent.com/{c['repo']}/{c['commit']}/{c['files'][0]['path']}")
    with pytest.raises(BenchkitValueError, match=r"manifest cruxeval.json has repo="):
        _fetch.load_source("cruxeval", repo="a/b", commit=c["commit"])
