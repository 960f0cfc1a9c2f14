"""Dataset fetching: mirror, cache, pinned sha256, and download from a URL (a loopback server).

Oracle: hashlib.sha256 of bytes written by the test.
"""
from __future__ import annotations

import hashlib
import http.server
import threading
from functools import partial

import pytest

from benchkit import BenchkitValueError
from benchkit.datasets import _fetch
from benchkit.datasets._fetch import DatasetIntegrityError, Source, SourceFile, fetch_file

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
    with pytest.raises(BenchkitValueError, match="could not download .* Set BENCHKIT_DATA_MIRROR"):
        fetch_file(_source(url="http://127.0.0.1:9/x.csv"), "data/x.csv")
    with pytest.raises(BenchkitValueError, match="path='nope' is not a pinned file of source 'toy'"):
        fetch_file(_source(), "nope")


def test_default_url_is_pinned_commit():
    assert _source().url("data/x.csv") == (
        "https://raw.githubusercontent.com/owner/toy/" + "0" * 40 + "/data/x.csv")
