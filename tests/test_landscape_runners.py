"""Tests of the landscape runners (run_prompts, backends) against fake OpenAI-compatible servers on 127.0.0.1.

No model is run: the fake server answers every request with log-probabilities computed
deterministically from the prompt text (``_fake_logprobs``), so the oracle for what the runner must
return is that same function applied to the prompt the test rendered independently.
"""
from __future__ import annotations

import hashlib
import json
import math
import socket
import threading
from http.server import BaseHTTPRequestHandler
from http.server import ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp
from scipy.special import softmax

import benchkit.landscape as perturb
from benchkit.landscape.steps import CallableBackend
from benchkit.landscape.steps import OpenAIBackend
from benchkit.landscape.steps import Prompt
from benchkit.landscape.steps import RunnerError
from benchkit.landscape.steps import TransientError
from benchkit.landscape.steps import letter_logprobs
from benchkit.landscape.steps import read_results
from benchkit.landscape.steps import run_prompts
from benchkit.landscape.steps import to_long


# ----------------------------------------------------------------------------- fixtures
def _items(n=7):
    rows = []
    for i in range(n):
        rows.append({"item": f"q{i}", "benchmark": "toy", "source": "s" + str(i % 2),
                     "text": f"What is {i} plus {i}?",
                     "options": [str(2 * i), str(2 * i + 1), str(2 * i + 2), str(2 * i + 3)],
                     "answer_key": "ABCD"[i % 4]})
    return pd.DataFrame(rows)


@pytest.fixture
def prompts():
    ps = perturb.steps.perturb(_items(), variants=["baseline", "score_bias", "bias_A"])
    return perturb.steps.render(ps)  # 21 rows


def _fake_logprobs(text: str, letters="ABCD") -> list[float]:
    """Deterministic log-softmax over the letters from the sha256 of the text."""
    h = hashlib.sha256(text.encode("utf-8")).digest()
    z = np.array([h[j] / 32.0 for j in range(len(letters))])
    return (z - logsumexp(z)).tolist()


class _Server:
    """A ThreadingHTTPServer on 127.0.0.1 that records requests; ``fail`` decides failures."""

    def __init__(self, fail=None, omit_letter=None):
        self.requests: list[dict] = []
        self.fail = fail or (lambda n, body: None)
        self.omit_letter = omit_letter
        outer = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body,
                                       "auth": self.headers.get("Authorization")})
                verdict = outer.fail(len(outer.requests), body)
                if verdict is not None:
                    code, headers = verdict
                    self.send_response(code)
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(b'{"error": "fake failure"}')
                    return
                if self.path.endswith("/chat/completions"):
                    text = body["messages"][0]["content"] + "\x00" + body["messages"][1]["content"]
                    lps = _fake_logprobs(text)
                    top = [{"token": (" " if j == 1 else "") + "ABCD"[j], "logprob": lps[j],
                            "bytes": []} for j in range(4) if "ABCD"[j] != outer.omit_letter]
                    top.append({"token": "The", "logprob": -9.0, "bytes": []})
                    out = {"object": "chat.completion", "model": body["model"],
                           "choices": [{"index": 0, "message": {"role": "assistant",
                                                                "content": top[0]["token"]},
                                        "logprobs": {"content": [{"token": top[0]["token"],
                                                                  "logprob": top[0]["logprob"],
                                                                  "top_logprobs": top}]}}]}
                else:
                    plist = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
                    choices = []
                    for idx, text in enumerate(plist):
                        lps = _fake_logprobs(text)
                        top = {("\u2581" if j == 2 else "") + "ABCD"[j]: lps[j] for j in range(4)}
                        top["\n"] = -12.0
                        choices.append({"index": idx, "text": "A",
                                        "logprobs": {"tokens": ["A"], "token_logprobs": [lps[0]],
                                                     "top_logprobs": [top]}})
                    choices.reverse()  # order must come from 'index', not list position
                    out = {"object": "text_completion", "choices": choices}
                data = json.dumps(out).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(5)


def _expected_chat(prompts):
    return [_fake_logprobs(s + "\x00" + p) for s, p in zip(prompts["system"], prompts["prompt"])]


# ----------------------------------------------------------------------------- letter tokens
def test_letter_logprobs_hand_case():
    top = {"A": -0.1, " A": -2.0, "B": -3.0, "C.": -4.0, "foo": -5.0, "a": -0.5}
    got, miss = letter_logprobs(top, "ABCD")
    # hand-worked: A combines "A" and " A" by log-sum-exp; lower-case "a" is not "A"
    assert got[0] == pytest.approx(math.log(math.exp(-0.1) + math.exp(-2.0)), abs=1e-12)
    assert got[1:3] == [-3.0, -4.0]
    assert got[3] == -math.inf
    assert miss == 1
    got_f, _ = letter_logprobs(list(top.items()), "ABCD", missing="floor")
    assert got_f[3] == -5.0
    with pytest.raises(ValueError, match="missing"):
        letter_logprobs(top, "ABCD", missing="zero")


# ----------------------------------------------------------------------------- callable
def test_callable_backend_in_memory_and_conversion(prompts):
    calls = []

    def fn(batch):
        calls.append(len(batch))
        return [_fake_logprobs(p.prompt) for p in batch]

    res = run_prompts(prompts, CallableBackend(fn, model="toy-model"), batch_size=5, progress=False)
    assert calls == [5, 5, 5, 5, 1]
    assert res.n_new == 21
    assert res.n_resumed == 0
    assert list(res.records["item"]) == list(prompts["item"])
    np.testing.assert_allclose(np.array(res.records["option_logprobs"].tolist()),
                               np.array([_fake_logprobs(p) for p in prompts["prompt"]]), rtol=0,
                               atol=0)
    long = res.to_long()
    pred = np.argmax(np.array([_fake_logprobs(p) for p in prompts["prompt"]]), axis=1)
    np.testing.assert_array_equal(long["correct"].to_numpy(),
                                  (pred == prompts["answer_index"].to_numpy()).astype(float))
    assert list(long["answer"]) == ["ABCD"[j] for j in pred]
    rs = res.to_response_set(name="toy")
    assert set(rs.variants) == {"baseline", "score_bias", "bias_A"}
    assert rs.n_items == 7
    assert list(rs.items["benchmark"].unique()) == ["toy"]
    one = rs.select(variant="bias_A")
    P = one.option_probs()[:, 0, :]
    sel = prompts["variant"] == "bias_A"
    # oracle: scipy softmax of the logprobs the function returned
    expect = softmax(np.array([_fake_logprobs(p) for p in prompts.loc[sel, "prompt"]]), axis=1)
    np.testing.assert_allclose(P, expect, atol=1e-12)


def test_callable_mapping_and_unbatched(prompts):
    def fn(p):
        return {"A": -0.5, "C": -1.0}  # B and D left out -> -inf

    res = run_prompts(prompts.head(3), CallableBackend(fn, model="m", batched=False),
                      progress=False)
    assert res.records["option_logprobs"].iloc[0] == [-0.5, -math.inf, -1.0, -math.inf]
    assert list(res.records["n_missing"]) == [2, 2, 2]
    long = to_long(res.records)
    assert list(long["answer"]) == ["A", "A", "A"]


def test_variants_table_is_rendered_when_no_prompt_column():
    ps = perturb.steps.perturb(_items(2), variants=["baseline"])
    seen = []
    run_prompts(ps, CallableBackend(lambda b: seen.extend(b) or [[0.0, -1, -2, -3]] * len(b),
                                    model="m"), progress=False)
    assert seen[0].prompt == perturb.steps.render_prompt(ps.frame["text"][0], ps.frame["options"][0])
    assert seen[0].system == perturb.SYSTEM_PROMPT
    assert seen[0].letters == tuple("ABCD")


# ----------------------------------------------------------------------------- HTTP
def test_openai_chat_endpoint(prompts):
    with _Server() as srv:
        be = OpenAIBackend(srv.url, "fake-llm", api="chat", api_key="k", top_logprobs=5)
        res = run_prompts(prompts, be, batch_size=4, progress=False)
    np.testing.assert_allclose(np.array(res.records["option_logprobs"].tolist()),
                               np.array(_expected_chat(prompts)), atol=1e-15)
    assert len(srv.requests) == 21
    assert all(r["path"] == "/v1/chat/completions"
                                           for r in srv.requests)
    body = srv.requests[0]["body"]
    assert body["max_tokens"] == 1
    assert body["temperature"] == 0
    assert body["top_p"] == 1
    assert body["logprobs"] is True
    assert body["top_logprobs"] == 5
    assert body["model"] == "fake-llm"
    assert body["messages"][0] == {"role": "system", "content": prompts["system"][0]}
    assert body["messages"][1]["content"] == prompts["prompt"][0]
    assert srv.requests[0]["auth"] == "Bearer k"


def test_openai_completions_batched(prompts):
    with _Server() as srv:
        be = OpenAIBackend(srv.url, "fake-llm", api="completions", api_key_env=None)
        res = run_prompts(prompts, be, batch_size=8, progress=False)
    assert [len(r["body"]["prompt"]) for r in srv.requests] == [8, 8, 5]
    assert srv.requests[0]["auth"] is None
    assert srv.requests[0]["body"]["logprobs"] == 20
    texts = [f"{s}\n\n{p}" for s, p in zip(prompts["system"], prompts["prompt"])]
    np.testing.assert_allclose(np.array(res.records["option_logprobs"].tolist()),
                               np.array([_fake_logprobs(t) for t in texts]), atol=1e-15)


def test_missing_letter_from_server(prompts):
    with _Server(omit_letter="D") as srv:
        res = run_prompts(prompts.head(2), OpenAIBackend(srv.url, "m"), progress=False)
    assert list(res.records["n_missing"]) == [1, 1]
    assert all(v[3] == -math.inf for v in res.records["option_logprobs"])


def test_transient_failures_are_retried_with_backoff(prompts):
    # requests 1 and 2 fail (503, then 429 with Retry-After), then everything succeeds
    def fail(n, body):
        return {1: (503, {}), 2: (429, {"Retry-After": "0.7"})}.get(n)

    waits = []
    with _Server(fail=fail) as srv:
        res = run_prompts(prompts, OpenAIBackend(srv.url, "m"), batch_size=7, backoff=0.25,
                          max_retries=3, sleep=waits.append, progress=False)
    assert res.n_new == 21
    assert waits == [0.25, 0.7]  # 0.25 * 2**0, then max(0.25 * 2**1, Retry-After 0.7)
    np.testing.assert_allclose(np.array(res.records["option_logprobs"].tolist()),
                               np.array(_expected_chat(prompts)), atol=1e-15)


def test_permanent_failure_raises_after_retries_and_keeps_finished(tmp_path, prompts):
    def fail(n, body):  # the first 2 requests succeed, then the server is down for good
        return (500, {}) if n > 2 else None

    path = tmp_path / "run.jsonl"
    waits = []
    with _Server(fail=fail) as srv:
        with pytest.raises(RunnerError, match=r"failed after 2 retries.*2 prompts are finished"):
            run_prompts(prompts, OpenAIBackend(srv.url, "m"), batch_size=2, max_retries=2,
                        backoff=0.01, path=path, sleep=waits.append, progress=False)
    assert waits == [0.01, 0.02]
    assert len(read_results(path)) == 2


def test_client_error_is_not_retried(prompts):
    with _Server(fail=lambda n, b: (400, {})) as srv:
        with pytest.raises(RunnerError, match="HTTP 400"):
            run_prompts(prompts, OpenAIBackend(srv.url, "m"), max_retries=5,
                        sleep=lambda s: pytest.fail("must not retry"), progress=False)
        assert len(srv.requests) == 1


def test_on_error_skip_counts_failed(prompts):
    with _Server(fail=lambda n, b: (503, {}) if n == 1 else None) as srv:
        res = run_prompts(prompts, OpenAIBackend(srv.url, "m"), batch_size=1, max_retries=0,
                          on_error="skip", progress=False)
    assert res.n_failed == 1
    assert res.failed == (f"m\t{prompts['item'][0]}\tbaseline",)
    assert res.n_new == 20
    assert len(res.records) == 20


def test_connection_refused_is_transient():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    be = OpenAIBackend(f"http://127.0.0.1:{port}/v1", "m", timeout=2)
    p = Prompt("m\tq\tv", "q", "v", "sys", "Question: x", tuple("AB"))
    with pytest.raises(TransientError, match="failed"):
        be([p])


# ----------------------------------------------------------------------------- resume
def test_interrupted_run_resumes_without_redoing(tmp_path, prompts):
    path = tmp_path / "results.jsonl"
    computed = []

    def fn(batch):
        if len(computed) >= 6:
            raise KeyboardInterrupt  # the user stops the run during the third batch
        computed.extend(p.key for p in batch)
        return [_fake_logprobs(p.prompt) for p in batch]

    with pytest.raises(KeyboardInterrupt):
        run_prompts(prompts, CallableBackend(fn, model="m"), path=path, batch_size=3,
                    progress=False)
    assert len(read_results(path)) == 6
    # simulate a write cut off mid-line
    with open(path, "ab") as fh:
        fh.write(b'{"key": "m\\tq9\\tbaseline", "opt')

    second = []

    def fn2(batch):
        second.extend(p.key for p in batch)
        return [_fake_logprobs(p.prompt) for p in batch]

    ticks = []

    class Bar:
        def __init__(self, total, initial, desc):
            ticks.append(("init", total, initial, desc))

        def update(self, n):
            ticks.append(n)

        def close(self):
            ticks.append("close")

    res = run_prompts(prompts, CallableBackend(fn2, model="m"), path=path, batch_size=3,
                      progress=Bar)
    assert res.n_resumed == 6
    assert res.n_new == 15
    assert res.n_truncated == 1
    assert not set(second) & set(computed)
    assert len(second) == 15
    assert ticks[0] == ("init", 21, 6, "m")
    assert sum(t for t in ticks if isinstance(t, int)) == 15
    # identical to an uninterrupted in-memory run
    full = run_prompts(prompts, CallableBackend(fn2, model="m"), progress=False)
    pd.testing.assert_frame_equal(res.records, full.records)
    assert len(path.read_text().splitlines()) == 21
    # a third run has nothing to do
    again = run_prompts(prompts, CallableBackend(lambda b: pytest.fail("nothing to do"),
                                                 model="m"), path=path, progress=False)
    assert again.n_new == 0
    assert again.n_resumed == 21
    # another model in the same file is a different key
    other = run_prompts(prompts.head(2), CallableBackend(fn2, model="m2"), path=path,
                        progress=False)
    assert other.n_new == 2
    assert len(read_results(path)) == 23


def test_changed_prompt_under_same_key_is_an_error(tmp_path, prompts):
    path = tmp_path / "r.jsonl"
    be = CallableBackend(lambda b: [[0.0, -1, -2, -3]] * len(b), model="m")
    run_prompts(prompts.head(2), be, path=path, progress=False)
    changed = prompts.head(2).copy()
    changed.loc[0, "prompt"] = changed.loc[0, "prompt"] + " (edited)"
    with pytest.raises(ValueError, match="computed from a different prompt"):
        run_prompts(changed, be, path=path, progress=False)


# ----------------------------------------------------------------------------- errors
def test_input_errors(prompts):
    be = CallableBackend(lambda b: [[0.0, -1.0]] * len(b), model="m")
    with pytest.raises(ValueError, match="batch_size"):
        run_prompts(prompts, be, batch_size=0)
    with pytest.raises(ValueError, match="on_error"):
        run_prompts(prompts, be, on_error="ignore")
    with pytest.raises(ValueError, match="has 2 values for 4 options"):
        run_prompts(prompts, be, progress=False)
    with pytest.raises(TypeError, match="fn must be callable"):
        CallableBackend(3, model="m")
    with pytest.raises(ValueError, match="base_url"):
        OpenAIBackend("localhost:8000", "m")
    with pytest.raises(ValueError, match="api"):
        OpenAIBackend("http://x/v1", "m", api="embeddings")
    dup = pd.concat([prompts.head(1), prompts.head(1)], ignore_index=True)
    with pytest.raises(ValueError, match="two rows for item"):
        run_prompts(dup, be, progress=False)
    with pytest.raises(TypeError, match="prompts must be a DataFrame"):
        run_prompts([1, 2], be)
    bad = CallableBackend(lambda b: [[float("nan")] * 4] * len(b), model="m")
    with pytest.raises(ValueError, match="NaN"):
        run_prompts(prompts, bad, progress=False)
    recs = run_prompts(prompts.head(1), CallableBackend(lambda b: [{"A": -1.0}] * len(b),
                                                        model="m"), progress=False).records
    recs.loc[0, "option_logprobs"] = [-math.inf] * 4
    with pytest.raises(ValueError, match="no finite option"):
        to_long(recs)


# ----------------------------------------------------------------------------- responses.py
def test_points_from_responses_matches_softmax(prompts):
    from benchkit.landscape import map_points

    res = run_prompts(prompts, CallableBackend(lambda b: [_fake_logprobs(p.prompt) for p in b],
                                               model="m"), progress=False)
    rs = res.to_response_set()
    pts = map_points(rs)
    f = pts.to_frame().set_index(["item", "variant"])
    # oracle: scipy softmax of the logprobs, P_top1 = max, H_norm by hand from the other three
    for _, row in prompts.iterrows():
        p = softmax(np.array(_fake_logprobs(row["prompt"])))
        top = p.max()
        rest = np.delete(p, p.argmax()) / (1 - top)
        h = -(rest * np.log(rest)).sum() / np.log(3)
        got = f.loc[(row["item"], row["variant"])]
        assert got["p_top1"] == pytest.approx(top, abs=1e-12)
        assert got["h_norm"] == pytest.approx(h, abs=1e-12)
        assert bool(got["correct"]) == (p.argmax() == row["answer_index"])
        assert got["benchmark"] == "toy"
    assert len(map_points(rs, variant="bias_A")) == 7
    with pytest.raises(ValueError, match="answer_key"):
        map_points(rs, correct="items")
    with pytest.raises(TypeError, match="ResponseSet"):
        map_points(res.records)
