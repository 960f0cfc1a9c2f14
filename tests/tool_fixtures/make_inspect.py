"""Write Inspect AI logs with inspect_ai itself (offline): ``python make_inspect.py OUT_DIR [N]``.

Runs inspect_ai's ``eval`` on ``mockllm/model`` with ``custom_outputs`` (known answers, no network).
inspect counts tokens with tiktoken, whose encoding file is downloaded at first use; the token
count is replaced here by a local estimate (``ModelAPI.count_text_tokens``), the only patch.

Logs written into OUT_DIR (file names fixed, so tests can find them):

* ``mc.eval``   -- 6 multiple-choice samples (``choices``), 3 epochs, two scorers: ``choice``
  (inspect's own) and ``graded`` (C / I / P / N values); the current ``.eval`` format (zstd members).
* ``mc.json``   -- the same task written with ``log_format="json"``.
* ``errors.eval`` -- 5 samples, 2 epochs, a solver that raises on samples 2 and 4
  (``fail_on_error=False``: the run succeeds, those samples carry ``error`` and no scores).
* ``big.eval``  -- only when N is given: N samples, 1 epoch, one ``match`` scorer (benchmarks).

* ``oracle.json`` -- inspect_ai's own reading of the three small logs (``read_eval_log``): each
  sample's score values (and ``value_to_float``), errors, and the ``results`` metrics.

Tests read the logs with benchkit (in a process that never imported inspect_ai, whose import
monkey-patches :mod:`zipfile` with zstd support) and compare with ``oracle.json``.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("INSPECT_DISPLAY", "none")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import inspect_ai
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelAPI
from inspect_ai.model import ModelOutput
from inspect_ai.model import get_model
from inspect_ai.scorer import CORRECT
from inspect_ai.scorer import INCORRECT
from inspect_ai.scorer import NOANSWER
from inspect_ai.scorer import PARTIAL
from inspect_ai.scorer import Score
from inspect_ai.scorer import Target
from inspect_ai.scorer import accuracy
from inspect_ai.scorer import choice
from inspect_ai.scorer import match
from inspect_ai.scorer import scorer
from inspect_ai.scorer import stderr
from inspect_ai.solver import Generate
from inspect_ai.solver import TaskState
from inspect_ai.solver import generate
from inspect_ai.solver import multiple_choice
from inspect_ai.solver import solver


async def _local_token_count(self, text: str) -> int:  # replaces the tiktoken download
    return max(1, len(text) // 4)


ModelAPI.count_text_tokens = _local_token_count

_LETTERS = "ABCD"
# answer given by the mock model for (sample index, epoch): deterministic, mixed right/wrong/none
_MC_TARGETS = ["A", "B", "C", "D", "B", "C"]


def _mc_answer(i: int, epoch: int) -> str:
    k = (i * 7 + epoch * 3) % 6
    if k == 5:
        return "I cannot tell."  # no answer -> choice() scores I, graded scores N
    shift = (0, 0, 1, 3, 2)[k]  # right, right, the next letter (graded: P), wrong, wrong
    return _LETTERS[(_LETTERS.index(_MC_TARGETS[i]) + shift) % 4]


@scorer(metrics=[accuracy(), stderr()])
def graded():
    """C when the letter is right, P when it is the next letter, N without a letter, else I."""

    async def score(state: TaskState, target: Target) -> Score:
        text = state.output.completion
        letter = next((c for c in _LETTERS if f"ANSWER: {c}" in text), None)
        if letter is None:
            return Score(value=NOANSWER, answer=None, explanation=text)
        right = target.text
        if letter == right:
            value = CORRECT
        elif _LETTERS.index(letter) == (_LETTERS.index(right) + 1) % 4:
            value = PARTIAL
        else:
            value = INCORRECT
        return Score(value=value, answer=letter, explanation=text)

    return score


def _mc_task() -> Task:
    samples = [Sample(id=f"q{i}" if i % 2 == 0 else i,
                      input=f"Question {i}: pick the letter {_MC_TARGETS[i]}.",
                      choices=[f"option {c}" for c in _LETTERS], target=_MC_TARGETS[i])
               for i in range(len(_MC_TARGETS))]
    return Task(name="mc", dataset=samples, solver=multiple_choice(), scorer=[choice(), graded()], epochs=3)


def _mc_outputs():
    # one output per (sample, epoch), in the order inspect asks (max_samples=1 keeps it serial:
    # epoch-major or sample-major does not matter, the callable answers from the prompt and a count)
    seen: dict[int, int] = {}

    def respond(input, tools, tool_choice, config):
        prompt = " ".join(str(m.text) for m in input)
        i = int(prompt.split("Question ", 1)[1].split(":", 1)[0])
        seen[i] = seen.get(i, 0) + 1
        answer = _mc_answer(i, seen[i])
        content = answer if " " in answer else f"ANSWER: {answer}"
        return ModelOutput.from_content(model="mockllm/model", content=content)

    return respond


@solver
def _fail_on(ids):
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if state.sample_id in ids:
            raise RuntimeError(f"tool crashed on sample {state.sample_id}")
        return await generate(state)

    return solve


def _errors_task() -> Task:
    samples = [Sample(id=i, input=f"Say {i}", target=str(i)) for i in range(1, 6)]
    return Task(name="errors", dataset=samples, solver=_fail_on({2, 4}), scorer=match(), epochs=2)


def _big_task(n: int) -> Task:
    samples = [Sample(id=i, input=f"Say {i % 10}", target=str(i % 10)) for i in range(n)]
    return Task(name="big", dataset=samples, solver=generate(), scorer=match())


def _run(task: Task, out: Path, name: str, model, log_format: str = "eval", **kw) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        logs = inspect_eval(task, model=model, log_dir=tmp, log_format=log_format, display="none",
                            **{"max_samples": 1, **kw})
        src = Path(logs[0].location)
        dst = out / name
        shutil.copyfile(src, dst)
    return dst


def main(out_dir: str, n_big: int | None = None) -> None:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for fmt, name in (("eval", "mc.eval"), ("json", "mc.json")):
        model = get_model("mockllm/model", custom_outputs=_mc_outputs())
        _run(_mc_task(), out, name, model, log_format=fmt)
    echo = get_model("mockllm/model", custom_outputs=lambda input, tools, tool_choice, config:
                     ModelOutput.from_content(model="mockllm/model",
                                              content=str(input[-1].text).split()[-1]))
    _run(_errors_task(), out, "errors.eval", echo, fail_on_error=False)
    if n_big:
        def answer(input, tools, tool_choice, config):
            digit = str(input[-1].text).split()[-1]
            return ModelOutput.from_content(model="mockllm/model", content=digit if digit != "7" else "8")

        _run(_big_task(n_big), out, "big.eval", get_model("mockllm/model", custom_outputs=answer),
             max_samples=64)
    _write_oracle(out)
    print(f"inspect_ai {inspect_ai.__version__}")


def _write_oracle(out: Path) -> None:
    """inspect_ai's own reading of each log: per-sample values (value_to_float) and results."""
    import json

    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    oracle = {"inspect_ai": inspect_ai.__version__, "logs": {}}
    for name in ("mc.eval", "mc.json", "errors.eval"):
        log = read_eval_log(str(out / name))
        oracle["logs"][name] = {
            "task": log.eval.task, "model": log.eval.model, "status": log.status,
            "completed_samples": log.results.completed_samples,
            "total_samples": log.results.total_samples,
            "results": {s.name: {k: m.value for k, m in s.metrics.items()} for s in log.results.scores},
            "samples": [{"id": s.id, "epoch": s.epoch, "error": s.error.message if s.error else None,
                         "choices": s.choices, "target": s.target,
                         "scores": {k: {"value": v.value, "float": to_float(v.value), "answer": v.answer}
                                    for k, v in (s.scores or {}).items()}}
                        for s in log.samples],
        }
    (out / "oracle.json").write_text(json.dumps(oracle, indent=1))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else None)
