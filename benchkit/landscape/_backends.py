"""What a model runner talks to: the prompt a backend receives, the backend interface, its errors.

Paper 003, Sec. 4.3: a backend maps rendered prompts (:class:`Prompt`) to the log-probabilities of
the option-letter tokens at the first generated position; :func:`letter_logprobs` reads them from
a server's top-token log-probabilities. :class:`Backend` is the interface, :class:`CallableBackend`
wraps any Python function; the HTTP backend is :class:`~benchkit.landscape._openai_backend.OpenAIBackend`.
A backend raises :class:`TransientError` for failures worth retrying; :class:`RunnerError` is a
failure for good. All public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any
from typing import Callable
from typing import Mapping
from typing import Sequence

from benchkit._validation import BenchkitTypeError
from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice

__all__ = ["TransientError", "RunnerError", "Prompt", "letter_logprobs", "Backend", "CallableBackend"]


class TransientError(RuntimeError):
    """A failure worth retrying (rate limit, server error, timeout, refused connection).

    Raise it from a backend to have :func:`run_prompts` retry the batch with exponential backoff.

    Parameters
    ----------
    message : str
        What failed.
    retry_after : float, optional
        The server's ``Retry-After`` hint in seconds, when it gave one (honoured up to
        ``max_backoff``).

    Attributes
    ----------
    retry_after : float or None
        As given.

    References
    ----------
    RFC 9110, HTTP Semantics, Sec. 10.2.3 (Retry-After) and Sec. 15.6 (5xx server errors).

    Examples
    --------
    >>> from benchkit.landscape.steps import TransientError
    >>> err = TransientError("HTTP 429 from the server", retry_after=2.0)
    >>> str(err), err.retry_after
    ('HTTP 429 from the server', 2.0)
    """

    def __init__(self, message: str, *, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class RunnerError(RuntimeError):
    """A prompt batch failed for good (after the retries, or with a non-retryable error).

    Everything finished before it is already in the results file: run again to resume.

    References
    ----------
    RFC 9110, HTTP Semantics, Sec. 15.5 (4xx client errors, not retried).

    Examples
    --------
    >>> from benchkit.landscape.steps import RunnerError
    >>> issubclass(RunnerError, RuntimeError)
    True
    """


@dataclass(frozen=True)
class Prompt:
    r"""One rendered prompt, as a backend receives it.

    :func:`run_prompts` builds these from a rendered variants table and passes lists of them to
    the backend; a backend reads ``system``, ``prompt`` and ``letters``.

    Parameters
    ----------
    key : str
        ``"<model>\\t<item>\\t<variant>"``, the resume key.
    item : str
        The item id.
    variant : str
        The variant name (``"baseline"``, ``"noise"``, ...).
    system : str
        System instruction (App. F).
    prompt : str
        User prompt (App. F template).
    letters : tuple of str
        Option letters offered (``A, B, C, D`` for a 4-option item).
    answer_index : int or None
        0-based keyed option of this variant (None when unknown).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, App. F (prompt and system
    instruction), Sec. 4.3.

    Examples
    --------
    >>> from benchkit.landscape.steps import Prompt
    >>> p = Prompt("toy\tq1\tbaseline", "q1", "baseline", "Answer with a letter.",
    ...            "Question: ...", ("A", "B"), answer_index=1)
    >>> p.letters, p.digest
    (('A', 'B'), 'cf22cf2064e417e4')
    """

    key: str
    item: str
    variant: str
    system: str
    prompt: str
    letters: tuple[str, ...]
    answer_index: int | None = None

    @property
    def digest(self) -> str:
        """sha256 of system, prompt and letters: detects a changed prompt under the same key."""
        h = hashlib.sha256()
        for part in (self.system, self.prompt, ",".join(self.letters)):
            h.update(part.encode("utf-8"))
            h.update(b"\x00")
        return h.hexdigest()[:16]



# ----------------------------------------------------------------------------- letter tokens
def _logsumexp(values: Sequence[float]) -> float:
    m = max(values)
    if m == -math.inf:
        return -math.inf
    return m + math.log(sum(math.exp(v - m) for v in values))


def letter_logprobs(top: Mapping[str, float] | Sequence[tuple[str, float]],
                    letters: Sequence[str], *, missing: str = "-inf") -> tuple[list[float], int]:
    """Option log-probabilities from the top-token log-probabilities of one position.

    Parameters
    ----------
    top : mapping token -> logprob, or sequence of (token, logprob)
        The ``top_logprobs`` of the first generated token.
    letters : sequence of str
        The option letters, in option order.
    missing : {"-inf", "floor"}
        A letter absent from ``top`` gets ``-inf`` (probability 0 within the returned top-n;
        default) or, with ``"floor"``, the smallest log-probability in ``top`` (an upper bound on
        its true value).

    Returns
    -------
    (list of float, int)
        One log-probability per letter, and how many letters were missing.

    Notes
    -----
    A token counts for letter ``L`` when, stripped of surrounding white space (the SentencePiece
    ``▁`` and GPT-2 ``Ġ`` markers included), it equals ``L`` or ``L`` followed by ``.``, ``)`` or
    ``:``; several such tokens (``"A"``, ``" A"``) are combined by log-sum-exp, i.e. the
    probability that the first token names the letter. Letters are case-sensitive (``"a"`` is not
    ``"A"``).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3 (logits of the
    letter tokens at the final position). OpenAI API reference,
    "Chat completions: logprobs, top_logprobs" (the returned format).

    Examples
    --------
    >>> from benchkit.landscape.steps import letter_logprobs
    >>> top = {" A": -0.2, "B": -1.9, "A.": -3.0, "the": -4.0}
    >>> lp, n_missing = letter_logprobs(top, "ABCD")
    >>> [round(v, 3) for v in lp], n_missing       # " A" and "A." both count for A
    ([-0.141, -1.9, -inf, -inf], 2)
    >>> letter_logprobs(top, "ABCD", missing="floor")[0][2:]
    [-4.0, -4.0]
    """
    check_choice("missing", missing, ("-inf", "floor"))
    pairs = list(top.items()) if isinstance(top, Mapping) else [(t, v) for t, v in top]
    want = {str(lab): i for i, lab in enumerate(letters)}
    found: list[list[float]] = [[] for _ in letters]
    floor = math.inf
    for tok, lp in pairs:
        lp = float(lp)
        floor = min(floor, lp)
        s = str(tok).replace("\u2581", " ").replace("\u0120", " ").strip()
        if s and s[-1] in ".):" and len(s) > 1:
            s = s[:-1].strip()
        if s in want:
            found[want[s]].append(lp)
    out, n_missing = [], 0
    for vals in found:
        if vals:
            out.append(_logsumexp(vals))
        else:
            n_missing += 1
            out.append(floor if (missing == "floor" and math.isfinite(floor)) else -math.inf)
    return out, n_missing



# ----------------------------------------------------------------------------- backends
class Backend:
    """Interface: ``model`` (str) and ``__call__(prompts) -> list of per-option log-probabilities``.

    ``__call__`` takes a list of :class:`Prompt` and returns, in the same order, one sequence of
    ``len(prompt.letters)`` log-probabilities (or a mapping letter -> log-probability) per
    prompt. It raises :class:`TransientError` for failures worth retrying. It may return a dict
    ``{"option_logprobs": [...], "n_missing": int, "raw": ...}`` per prompt to pass extra fields.

    Subclass it (or use :class:`CallableBackend`) to run any model; :class:`OpenAIBackend` talks to
    an OpenAI-compatible server.

    Attributes
    ----------
    model : str
        The model id written with every result (the ``model`` of the resume key).

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3 and App. C
    (one-token deterministic decoding, letter probabilities).

    Examples
    --------
    >>> from benchkit.landscape.steps import Backend
    >>> class Uniform(Backend):
    ...     model = "uniform"
    ...     def __call__(self, prompts):
    ...         return [[0.0] * len(p.letters) for p in prompts]   # equal log-probabilities
    >>> Uniform().model
    'uniform'
    """

    model: str = "model"

    def __call__(self, prompts: list[Prompt]) -> list[Any]:  # pragma: no cover - interface
        raise NotImplementedError


class CallableBackend(Backend):
    """Wrap a user function as a backend.

    Parameters
    ----------
    fn : callable
        ``fn(prompts: list[Prompt]) -> list`` (``batched=True``, default) or
        ``fn(prompt: Prompt) -> logprobs`` (``batched=False``). Each result is a sequence of one
        log-probability per option letter, or a mapping letter -> log-probability (a letter left
        out gets ``-inf``). Raise :class:`TransientError` to have the driver retry.
    model : str
        The model id written with the results.
    batched : bool, default True
        Whether ``fn`` takes the whole batch (a list of :class:`Prompt`) or one prompt at a time.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3 (letter
    probabilities from one decoding step).

    Examples
    --------
    >>> from benchkit.landscape.steps import CallableBackend
    >>> backend = CallableBackend(lambda p: {"A": -0.1, "B": -2.3}, model="toy", batched=False)
    >>> backend
    CallableBackend('<lambda>', model='toy')
    """

    def __init__(self, fn: Callable[..., Any], *, model: str, batched: bool = True):
        if not callable(fn):
            raise BenchkitTypeError(f"fn must be callable; got {type(fn).__name__}")
        if not isinstance(model, str) or not model:
            raise BenchkitValueError(f"model must be a non-empty string; got {model!r}")
        self.fn = fn
        self.model = model
        self.batched = bool(batched)

    def __call__(self, prompts: list[Prompt]) -> list[Any]:
        if self.batched:
            return list(self.fn(prompts))
        return [self.fn(p) for p in prompts]

    def __repr__(self) -> str:
        return f"CallableBackend({getattr(self.fn, '__name__', self.fn)!r}, model={self.model!r})"

