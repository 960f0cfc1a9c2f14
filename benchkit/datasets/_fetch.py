"""Locating, downloading and verifying the files of public datasets.

A :class:`Source` pins one public repository at one commit and lists its files with their sha256.
:func:`fetch_file` returns a local path to one of those files, looking in this order:

1. the local mirror: ``$BENCHKIT_DATA_MIRROR/<source.name>/<path>``; when the variable is unset,
   ``../shared/data`` relative to the current directory or to the repository holding this package,
   when such a folder exists; set to the empty string, it means "no mirror" (nothing is
   discovered);
2. the cache: ``$BENCHKIT_CACHE/<source.name>/<path>`` (default ``~/.cache/benchkit``);
3. the public URL of the file at the pinned commit, downloaded into the cache.

Downloads go to a partial file ``.<name>~<host>~<pid>.part`` next to their target and are renamed
into place once verified. A partial file left by a killed download (its process gone, or older
than a day) is removed by the next fetch into that folder. Cached files get the permissions the
umask allows (``0o666 & ~umask``, as any file the user creates: a shared cache stays readable to
its group), not the 0600 of a temporary file. An unwritable or unreadable cache is an error naming
the folder and the variables that move it.

Every file is checked against its pinned sha256 before use (a mismatch is an error naming the file,
the expected and the actual hash). The network is touched only in step 3.

The pinned hashes are package data: ``benchkit/datasets/manifests/<source>.json`` holds the source's
name, repository and commit, its license and description, and one ``{"path", "sha256", "size"}``
entry per file (:func:`load_manifest`); each loader module declares its :class:`Source` with
``SOURCE = load_source(name, repo=..., commit=...)`` (its pins, checked against the manifest).
An optional ``"upstream_prefix"`` is the folder the mirror drops from the upstream paths: the
raw-GitHub URL of a file is then ``<prefix><path>`` at the pinned commit.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import time
import urllib.request
from dataclasses import dataclass
from dataclasses import field
from importlib import resources
from pathlib import Path

from benchkit._validation import BenchkitValueError

__all__ = ["Source", "SourceFile", "fetch_file", "load_manifest", "load_source", "mirror_root", "cache_root",
           "DatasetIntegrityError"]

_GITHUB_RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
_HASH_MEMO: dict[tuple[str, int, int], str] = {}


class DatasetIntegrityError(BenchkitValueError):
    """A dataset file does not have its pinned sha256."""


@dataclass(frozen=True)
class SourceFile:
    """One file of a source: its path inside the source, its sha256 and size in bytes.

    ``url`` overrides the default raw-GitHub address (for files served elsewhere).
    """

    path: str
    sha256: str
    size: int
    url: str | None = None


@dataclass(frozen=True)
class Source:
    """A public repository pinned at a commit, and the files benchkit reads from it."""

    name: str
    repo: str  # "owner/name" on GitHub
    commit: str
    license: str
    files: tuple[SourceFile, ...] = field(default=())
    description: str = ""

    @property
    def repo_url(self) -> str:
        return f"https://github.com/{self.repo}"

    def file(self, path: str) -> SourceFile:
        for f in self.files:
            if f.path == path:
                return f
        known = ", ".join(f.path for f in self.files[:8])
        raise BenchkitValueError(
            f"path={path!r} is not a pinned file of source {self.name!r}; known files include {known}"
        )

    def url(self, path: str) -> str:
        f = self.file(path)
        return f.url or _GITHUB_RAW.format(repo=self.repo, commit=self.commit, path=f.path)


def _manifest(name: str, repo: str, commit: str) -> dict:
    """The manifest document of source ``name`` (package data), checked against the loader's pins."""
    ref = resources.files("benchkit.datasets").joinpath("manifests", f"{name}.json")
    if not ref.is_file():
        raise BenchkitValueError(f"no manifest for source {name!r} (expected package data {ref})")
    doc = json.loads(ref.read_text(encoding="utf-8"))
    pins = {"source": name, "repo": repo, "commit": commit}
    for key, want in pins.items():
        if doc.get(key) != want:
            raise BenchkitValueError(
                f"manifest {name}.json has {key}={doc.get(key)!r} but the loader pins {want!r}"
            )
    return doc


def _files(doc: dict, repo: str, commit: str) -> tuple[SourceFile, ...]:
    prefix = doc.get("upstream_prefix")
    return tuple(
        SourceFile(str(f["path"]), str(f["sha256"]), int(f["size"]),
                   url=None if prefix is None else _GITHUB_RAW.format(
                       repo=repo, commit=commit, path=f"{prefix}{f['path']}"))
        for f in doc["files"]
    )


def load_manifest(name: str, *, repo: str, commit: str) -> tuple[SourceFile, ...]:
    """The pinned files of source ``name``, read from ``manifests/<name>.json`` (package data).

    ``repo`` and ``commit`` are the loader's pins; the manifest must have been computed for them
    (a manifest of another commit is an error, never silently used).
    """
    return _files(_manifest(name, repo, commit), repo, commit)


def load_source(name: str, *, repo: str, commit: str) -> Source:
    """The :class:`Source` ``name`` pinned at ``repo``@``commit``, from its manifest.

    License, description and files come from ``manifests/<name>.json`` (package data), whose pins
    must equal the loader's (as :func:`load_manifest`).
    """
    doc = _manifest(name, repo, commit)
    return Source(name=name, repo=repo, commit=commit, license=str(doc["license"]),
                  files=_files(doc, repo, commit), description=str(doc["description"]))


def mirror_root() -> Path | None:
    """The local mirror folder, or None when there is none.

    ``BENCHKIT_DATA_MIRROR`` wins when set (it must then exist); set to the empty string it means
    no mirror. Unset, ``../shared/data`` is tried relative to the current directory and to the
    checkout that holds this package.

    Returns
    -------
    pathlib.Path or None
        The folder holding one sub-folder per source (``<mirror>/<source>/<path>``).

    References
    ----------
    benchkit's own lookup order (module docstring of ``benchkit.datasets._fetch``).

    Examples
    --------
    >>> from benchkit.datasets import mirror_root
    >>> root = mirror_root()
    >>> root is None or root.is_dir()
    True
    """
    env = os.environ.get("BENCHKIT_DATA_MIRROR")
    if env is not None and not env.strip():
        return None
    if env:
        root = Path(env).expanduser()
        if not root.is_dir():
            raise BenchkitValueError(
                f"BENCHKIT_DATA_MIRROR={env!r} is not a directory; point it at a copy of the data "
                "folder (one sub-folder per source) or unset it"
            )
        return root
    candidates = [Path.cwd() / ".." / "shared" / "data",
                  Path(__file__).resolve().parents[3] / "shared" / "data"]
    for cand in candidates:
        if cand.is_dir():
            return cand.resolve()
    return None


def cache_root() -> Path:
    """The download cache folder (``$BENCHKIT_CACHE`` or ``~/.cache/benchkit``).

    Returns
    -------
    pathlib.Path
        Where downloaded files are kept, as ``<cache>/<source>/<path>`` (it may not exist yet).

    References
    ----------
    benchkit's own lookup order (module docstring of ``benchkit.datasets._fetch``).

    Examples
    --------
    >>> import os
    >>> from benchkit.datasets import cache_root
    >>> os.environ.get("BENCHKIT_CACHE") is not None or cache_root().name == "benchkit"
    True
    """
    return Path(os.environ.get("BENCHKIT_CACHE", Path.home() / ".cache" / "benchkit")).expanduser()


def sha256_of(path: Path) -> str:
    """sha256 of a file, memoized on (path, size, mtime) for the process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _HASH_MEMO:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        _HASH_MEMO[key] = h.hexdigest()
    return _HASH_MEMO[key]


def _verify(path: Path, f: SourceFile, where: str) -> Path:
    actual = sha256_of(path)
    if actual != f.sha256:
        raise DatasetIntegrityError(
            f"{where} file {str(path)!r} has sha256 {actual}, but the pinned sha256 is {f.sha256}; "
            "the copy is not the pinned version (delete it from the cache, or fix the mirror)"
        )
    return path


_STALE_SECONDS = 24 * 3600


def _umask() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no other portable way to read it
    os.umask(mask)
    return mask


def _cache_error(folder: Path, exc: OSError, doing: str) -> BenchkitValueError:
    return BenchkitValueError(
        f"the dataset cache {str(folder)!r} cannot be used: {doing} failed ({exc.strerror or exc}); set "
        "BENCHKIT_CACHE to a folder you can write, or BENCHKIT_DATA_MIRROR to a local copy of the data"
    )


def _remove_stale_partials(folder: Path) -> list[Path]:
    """Delete partial downloads in ``folder`` whose process is gone (this host) or older than a day."""
    removed = []
    host = socket.gethostname()
    try:
        entries = list(folder.glob(".*~*~*.part"))
    except OSError:
        return removed
    for part in entries:
        try:
            _, part_host, pid_text = part.name[1:-len(".part")].rsplit("~", 2)
            pid = int(pid_text)
            dead = False
            if part_host == host:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    dead = True
                except PermissionError:  # alive, another user's
                    dead = False
            if dead or time.time() - part.stat().st_mtime > _STALE_SECONDS:
                part.unlink()
                removed.append(part)
        except (ValueError, OSError):
            continue
    return removed


def fetch_file(source: Source, path: str, *, download: bool = True) -> Path:
    """Return a verified local path to ``path`` of ``source`` (mirror, then cache, then URL).

    Parameters
    ----------
    source : Source
        The pinned source (:func:`benchkit.datasets.source`).
    path : str
        One of its pinned files (``source.files``).
    download : bool, default True
        Download from the pinned URL when the file is in neither the mirror nor the cache; False
        makes that an error instead (no network).

    Returns
    -------
    pathlib.Path
        A local file whose sha256 equals the pinned one (a mismatch is a
        ``DatasetIntegrityError`` naming both hashes).

    References
    ----------
    The source's repository at its pinned commit (``source.url(path)``, raw GitHub unless the
    manifest says otherwise).

    Examples
    --------
    Not run as a doctest (doctests read no data files): it needs the source's files from the
    local mirror, the cache or a download. The output shown was produced on the pinned files.

    >>> from benchkit import datasets
    >>> src = datasets.source("cruxeval")
    >>> datasets.fetch_file(src, "data/cruxeval.jsonl", download=False).name  # doctest: +SKIP
    'cruxeval.jsonl'
    """
    f = source.file(path)
    root = mirror_root()
    if root is not None:
        local = root / source.name / f.path
        if local.is_file():
            return _verify(local, f, "mirror")
    cached = cache_root() / source.name / f.path
    if cached.is_file():
        try:
            return _verify(cached, f, "cached")
        except PermissionError as exc:
            raise _cache_error(cached.parent, exc, f"reading {cached.name}") from None
    if not download:
        raise BenchkitValueError(
            f"{source.name}/{f.path} is neither in the mirror ({root}) nor in the cache "
            f"({cache_root()}), and download=False"
        )
    url = source.url(path)
    try:
        cached.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cache_error(cached.parent, exc, "creating the folder") from None
    _remove_stale_partials(cached.parent)
    tmp_path = cached.parent / f".{cached.name}~{socket.gethostname()}~{os.getpid()}.part"
    try:
        tmp = open(tmp_path, "wb")  # noqa: SIM115 (closed below)
    except OSError as exc:
        raise _cache_error(cached.parent, exc, "writing a file") from None
    with tmp:
        try:
            with urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310 - pinned https URL
                shutil.copyfileobj(resp, tmp)
        except Exception as exc:
            tmp.close()
            tmp_path.unlink(missing_ok=True)
            if root is None:
                hint = "Set BENCHKIT_DATA_MIRROR to a local copy to work offline"
            else:
                hint = (f"{source.name}/{f.path} is missing from the mirror {str(root)!r} (expected at "
                        f"{str(root / source.name / f.path)!r}) and from the cache; copy it there")
            raise BenchkitValueError(
                f"could not download {url} for dataset {source.name!r}: {exc}. {hint}"
            ) from exc
    try:
        _verify(tmp_path, f, "downloaded")
    except DatasetIntegrityError:
        tmp_path.unlink(missing_ok=True)
        raise
    os.chmod(tmp_path, 0o666 & ~_umask())
    tmp_path.replace(cached)
    return cached
