"""The HTTP client of the model runners: an OpenAI-compatible endpoint as a :class:`Backend`.

:class:`OpenAIBackend` posts to ``/v1/completions`` (``logprobs=<n>``, legacy format) or
``/v1/chat/completions`` (``logprobs=true, top_logprobs=<n>``) with ``max_tokens=1`` and
``temperature=0`` (paper 003, Sec. 4.3 and App. C), using the standard library only
(:mod:`urllib`). HTTP 408/409/425/429/5xx, timeouts and refused connections raise
:class:`~benchkit.landscape._backends.TransientError` (retried by
:func:`~benchkit.landscape.steps.run_prompts`). Public through :mod:`benchkit.landscape.steps`.
"""
from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any
from typing import Mapping

from benchkit._validation import BenchkitValueError
from benchkit._validation import check_choice
from benchkit._validation import check_float
from benchkit._validation import check_int
from benchkit.landscape._backends import Backend
from benchkit.landscape._backends import Prompt
from benchkit.landscape._backends import RunnerError
from benchkit.landscape._backends import TransientError
from benchkit.landscape._backends import letter_logprobs

__all__ = ["OpenAIBackend"]

_RETRY_STATUS = frozenset({408, 409, 425, 429, 500, 502, 503, 504})



class OpenAIBackend(Backend):
    """An OpenAI-compatible endpoint returning the letter tokens' log-probabilities.

    Parameters
    ----------
    base_url : str
        Up to and including the version, e.g. ``"http://127.0.0.1:8000/v1"`` (vLLM),
        ``"http://localhost:11434/v1"`` (Ollama), ``"http://localhost:8080/v1"`` (llama.cpp).
    model : str
        Model name sent in the request and written with the results.
    api : {"chat", "completions"}
        ``"chat"``: ``POST /chat/completions`` with a system and a user message,
        ``logprobs=true, top_logprobs=top_logprobs``; one request per prompt.
        ``"completions"``: ``POST /completions`` with ``prompt`` = ``completion_template``
        filled with the system and user text, ``logprobs=top_logprobs``; the prompts of a batch
        go in one request as a list (``batch_requests=True``) or one request each.
    top_logprobs : int
        How many top tokens to ask for (OpenAI allows up to 20; the four letters are normally
        among them under the App. F system instruction).
    missing : {"-inf", "floor"}
        Letters absent from the top tokens (see :func:`letter_logprobs`).
    api_key : str, optional
        Sent as ``Authorization: Bearer``; default: the environment variable named by
        ``api_key_env`` (if set), else none (local servers need none).
    api_key_env : str or None, default "OPENAI_API_KEY"
        The environment variable read when ``api_key`` is not given (None: read none).
    timeout : float
        Seconds per request.
    extra_body : mapping, optional
        Merged into every request body (e.g. ``{"seed": 0}``).
    completion_template : str
        For ``api="completions"``: how system and prompt become one text.
    batch_requests : bool
        For ``api="completions"``: one request per batch (``prompt`` as a list; vLLM and the
        OpenAI API accept it) instead of one per prompt.
    headers : mapping of str to str, optional
        Extra HTTP headers sent with every request (e.g. an OpenRouter ``HTTP-Referer``).

    Notes
    -----
    Decoding follows Sec. 4.3 / App. C: ``temperature=0``, ``top_p=1``, ``max_tokens=1``, no
    logit bias. HTTP 408/409/425/429/5xx, timeouts and connection errors raise
    :class:`TransientError` (retried by :func:`run_prompts`); other HTTP errors raise
    :class:`RunnerError` with the server's message.

    References
    ----------
    "Auditing MCQA Benchmarks through Probability Landscapes", arXiv:2608.30372, Sec. 4.3, App. C (temperature
    0, top-p 1, one token, Ollama / llama.cpp). OpenAI API
    reference, "Create chat completion" and "Create completion" (``logprobs``, ``top_logprobs``).

    Examples
    --------
    A local Ollama server (no request is made until the backend is called):

    >>> from benchkit.landscape.steps import OpenAIBackend
    >>> OpenAIBackend("http://localhost:11434/v1", "qwen2.5:7b", api_key_env=None)
    OpenAIBackend('http://localhost:11434/v1', model='qwen2.5:7b', api='chat')
    """

    def __init__(self, base_url: str, model: str, *, api: str = "chat", top_logprobs: int = 20,
                 missing: str = "-inf", api_key: str | None = None,
                 api_key_env: str | None = "OPENAI_API_KEY", timeout: float = 60.0,
                 extra_body: Mapping[str, Any] | None = None,
                 completion_template: str = "{system}\n\n{prompt}", batch_requests: bool = True,
                 headers: Mapping[str, str] | None = None):
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise BenchkitValueError(f"base_url must be an http(s) URL such as "
                                     f"'http://127.0.0.1:8000/v1'; got {base_url!r}")
        if not isinstance(model, str) or not model:
            raise BenchkitValueError(f"model must be a non-empty string; got {model!r}")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api = check_choice("api", api, ("chat", "completions"))
        self.top_logprobs = check_int("top_logprobs", top_logprobs, min=1)
        self.missing = check_choice("missing", missing, ("-inf", "floor"))
        self.timeout = check_float("timeout", timeout, min=0.0, min_inclusive=False)
        if api_key is None and api_key_env:
            api_key = os.environ.get(api_key_env) or None
        self._api_key = api_key
        self.extra_body = dict(extra_body or {})
        self.completion_template = str(completion_template)
        self.batch_requests = bool(batch_requests)
        self.headers = dict(headers or {})

    def __repr__(self) -> str:
        return f"OpenAIBackend({self.base_url!r}, model={self.model!r}, api={self.api!r})"

    # -- HTTP
    def _post(self, path: str, body: dict) -> dict:
        data = json.dumps(body).encode("utf-8")
        headers = {"Content-Type": "application/json", **self.headers}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        req = urllib.request.Request(self.base_url + path, data=data, headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            try:
                detail = exc.read().decode("utf-8", "replace")[:300]
            except Exception:  # pragma: no cover - defensive
                detail = ""
            if exc.code in _RETRY_STATUS:
                ra = exc.headers.get("Retry-After") if exc.headers else None
                try:
                    ra_s = float(ra) if ra is not None else None
                except ValueError:
                    ra_s = None
                raise TransientError(f"HTTP {exc.code} from {self.base_url}{path}: {detail}",
                                     retry_after=ra_s) from None
            raise RunnerError(f"HTTP {exc.code} from {self.base_url}{path}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            raise TransientError(f"request to {self.base_url}{path} failed: {exc}") from None
        try:
            return json.loads(payload.decode("utf-8"))
        except ValueError:
            raise TransientError(f"{self.base_url}{path} returned invalid JSON: "
                                 f"{payload[:200]!r}") from None

    def _body(self) -> dict:
        body = {"model": self.model, "max_tokens": 1, "temperature": 0.0, "top_p": 1.0}
        return body

    def _chat(self, p: Prompt) -> dict:
        body = self._body()
        body.update({"messages": [{"role": "system", "content": p.system},
                                  {"role": "user", "content": p.prompt}],
                     "logprobs": True, "top_logprobs": self.top_logprobs})
        body.update(self.extra_body)
        out = self._post("/chat/completions", body)
        try:
            first = out["choices"][0]["logprobs"]["content"][0]
            top = [(t["token"], t["logprob"]) for t in first["top_logprobs"]]
            text = first.get("token")
        except (KeyError, IndexError, TypeError):
            raise RunnerError("the chat response has no choices[0].logprobs.content[0]."
                              "top_logprobs; does the server support logprobs? "
                              f"Got: {json.dumps(out)[:300]}") from None
        return self._result(top, p, text)

    def _completions(self, prompts: list[Prompt]) -> list[dict]:
        texts = [self.completion_template.format(system=p.system, prompt=p.prompt) for p in prompts]
        groups = [list(range(len(prompts)))] if self.batch_requests else \
            [[i] for i in range(len(prompts))]
        results: list[Any] = [None] * len(prompts)
        for g in groups:
            body = self._body()
            body.update({"prompt": [texts[i] for i in g] if len(g) > 1 or self.batch_requests
                         else texts[g[0]], "logprobs": self.top_logprobs})
            body.update(self.extra_body)
            out = self._post("/completions", body)
            choices = out.get("choices") if isinstance(out, dict) else None
            if not isinstance(choices, list) or len(choices) != len(g):
                raise RunnerError(f"the completions response has {len(choices or [])} choices for "
                                  f"{len(g)} prompts: {json.dumps(out)[:300]}")
            # OpenAI returns choices with an 'index' matching the prompt's position
            order = sorted(range(len(choices)), key=lambda c: choices[c].get("index", c))
            for pos, c in zip(g, order):
                ch = choices[c]
                try:
                    top_d = ch["logprobs"]["top_logprobs"][0]
                    text = (ch["logprobs"].get("tokens") or [ch.get("text")])[0]
                except (KeyError, IndexError, TypeError):
                    raise RunnerError("the completions response has no choices[].logprobs."
                                      "top_logprobs[0]; does the server support logprobs? "
                                      f"Got: {json.dumps(ch)[:300]}") from None
                results[pos] = self._result(list(top_d.items()), prompts[pos], text)
        return results

    def _result(self, top: list, p: Prompt, text: Any) -> dict:
        lps, n_missing = letter_logprobs(top, p.letters, missing=self.missing)
        return {"option_logprobs": lps, "n_missing": n_missing, "token": text}

    def __call__(self, prompts: list[Prompt]) -> list[dict]:
        if self.api == "chat":
            return [self._chat(p) for p in prompts]
        return self._completions(prompts)

