"""Convert the committed lm-eval output to Every Eval Ever files with every-eval-ever's own converter.

``every-eval-ever`` 0.3.0 (PyPI) needs Python >= 3.12 (benchkit supports 3.11), so it lives in its
own environment and its output is committed::

    python3.12 -m venv /work/venvs/every_eval_ever
    /work/venvs/every_eval_ever/bin/pip install every-eval-ever==0.3.0
    python make_every_eval_ever.py /work/venvs/every_eval_ever/bin/every_eval_ever OUT_DIR

runs ``every_eval_ever convert lm_eval --include_samples`` on ``tool_fixtures/lm_eval/run_*/*/
results_*.json`` (written by lm-eval 0.4.13) into OUT_DIR/<task>/<developer>/<model>/.
(Its Inspect converter fails to import in 0.3.0: ``cannot import name 'list_eval_logs'``.)
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def main(exe: str, out_dir: str) -> None:
    here = Path(__file__).resolve().parent
    for results in sorted(here.glob("lm_eval/run_*/*/results_*.json")):
        subprocess.run([exe, "convert", "lm_eval", "--log_path", str(results), "--output_dir", out_dir,
                        "--include_samples", "--source_organization_name", "benchkit-tests",
                        "--evaluator_relationship", "third_party"], check=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
