"""Write EvalScope review files with evalscope itself (offline): ``python make_evalscope.py OUT_DIR``.

evalscope 1.14.1 pins versions that clash with lm-eval's (datasets, huggingface_hub, fsspec), so
it runs from its own environment (``python3.11 -m venv /work/venvs/evalscope &&
/work/venvs/evalscope/bin/pip install evalscope==1.14.1``) and its output is committed.

Runs evalscope's ``general_mcq`` benchmark on a local JSONL subset ``example`` (6 questions) with
its ``mock_llm`` model and ``custom_outputs`` (known answers: right, wrong, no answer), twice:
model ids ``model-a`` (1 generation) and ``model-b`` (``repeats=2``), into OUT_DIR
(``reviews/<model>/general_mcq_example.jsonl``, ``reports/<model>/general_mcq.json``, ...).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.update(HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", MODELSCOPE_OFFLINE="1")

import evalscope
from evalscope import TaskConfig
from evalscope import run_task
from evalscope.api.model import ModelOutput

_KEYS = "ABCDAB"
_ANSWERS = {"model-a": ["ANSWER: A", "ANSWER: C", "I do not know", "ANSWER: D", "ANSWER: B", "ANSWER: B"],
            "model-b": ["ANSWER: A", "ANSWER: B", "ANSWER: C", "no idea", "ANSWER: A", "ANSWER: D"] * 2}


def main(out_dir: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "example_val.jsonl").write_text("".join(
            json.dumps({"id": str(i), "question": f"Pick {c}?", "A": "a", "B": "b", "C": "c", "D": "d",
                        "answer": c}) + "\n" for i, c in enumerate(_KEYS)))
        for model, answers in _ANSWERS.items():
            outs = [ModelOutput.from_content(model="mockllm", content=a) for a in answers]
            cfg = TaskConfig(model=f"mockllm/{model}", model_id=model, eval_type="mock_llm",
                             model_args={"custom_outputs": outs}, datasets=["general_mcq"],
                             dataset_args={"general_mcq": {"local_path": tmp, "subset_list": ["example"]}},
                             repeats=len(answers) // len(_KEYS), work_dir=out_dir, eval_batch_size=1,
                             no_timestamp=True)
            run_task(cfg)
    print(f"evalscope {evalscope.__version__}")


if __name__ == "__main__":
    main(sys.argv[1])
