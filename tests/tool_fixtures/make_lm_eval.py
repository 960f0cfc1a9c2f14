"""Write lm-evaluation-harness ``--log_samples`` output with lm-eval itself (offline).

``python make_lm_eval.py OUT_DIR`` runs the ``lm-eval`` command line (0.4.x) with ``--model dummy``
(random log-likelihoods, the text "lol" for every generation) on two local JSON tasks passed with
``--include_path``, HF_DATASETS_OFFLINE=1:

* ``bk_mc``  -- multiple choice, 8 documents x 4 options, metrics ``acc`` and ``acc_norm``;
* ``bk_gen`` -- generate_until, 6 documents, metric ``exact_match`` under two filters
  (``strict``: regex + take_first; ``loose``: lowercase + take_first).

It runs twice (``--seed 1`` and ``--seed 2``; ``--model_args pretrained=benchkit/dummy-a`` /
``benchkit/dummy-b``, which the dummy model ignores but lm-eval records as the model name), into
``OUT_DIR/run_a`` and ``OUT_DIR/run_b``, and prints lm-eval's version. lm-eval's own aggregates are
in each run's ``results_*.json``.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

MC_YAML = """task: bk_mc
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "Question: {{{{question}}}}\\nAnswer:"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: answer
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
"""

GEN_YAML = """task: bk_gen
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "Say: {{{{word}}}}"
doc_to_target: "{{{{target}}}}"
generation_kwargs:
  until: ["\\n"]
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
filter_list:
  - name: strict
    filter:
      - function: regex
        regex_pattern: "(LOL)"
      - function: take_first
  - name: loose
    filter:
      - function: uppercase
      - function: take_first
"""


def main(out_dir: str) -> None:
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        tasks = Path(tmp)
        mc = [{"question": f"Which is option {k % 4}?", "choices": ["alpha", "be", "gamma ray", "d"],
               "answer": k % 4} for k in range(8)]
        gen = [{"word": w, "target": t} for w, t in
               [("a", "LOL"), ("b", "lol"), ("c", "nope"), ("d", "LOL"), ("e", "x"), ("f", "LOL")]]
        for name, rows, yaml in (("bk_mc", mc, MC_YAML), ("bk_gen", gen, GEN_YAML)):
            data = tasks / f"{name}.jsonl"
            data.write_text("".join(json.dumps(r) + "\n" for r in rows))
            (tasks / f"{name}.yaml").write_text(yaml.format(data=data))
        env = {**os.environ, "HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1",
               "HF_DATASETS_CACHE": str(tasks / "hf_cache"), "HF_HOME": str(tasks / "hf_home"),
               "TOKENIZERS_PARALLELISM": "false"}
        exe = Path(sys.executable).with_name("lm-eval")
        for seed, run in ((1, "a"), (2, "b")):
            cmd = [str(exe), "run", "--model", "dummy", "--model_args", f"pretrained=benchkit/dummy-{run}",
                   "--tasks", "bk_mc,bk_gen", "--include_path", str(tasks),
                   "--output_path", str(out / f"run_{run}"), "--log_samples", "--seed", str(seed)]
            done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
                raise SystemExit(done.returncode)
    import lm_eval

    print(f"lm_eval {lm_eval.__version__}")


if __name__ == "__main__":
    main(sys.argv[1])
