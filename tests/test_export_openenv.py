"""The OpenEnv server (optional, needs `openenv-core`): reset gives the harness's prompt, step grades the
reply with the same functions as `wsp grade`. Runs in this interpreter when openenv-core is installed,
else with the Python named by WSP_OPENENV_PYTHON (e.g. /tmp/openenv-venv/bin/python, a venv with
`pip install openenv-core minatar==1.0.15 threadpoolctl`), else it is skipped. (Importing openenv-core
takes ~10 s because it loads gradio, so this is opt-in to keep the suite fast.)"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from wspbench.export.catalog import task_info
from wspbench.grading import grade_answer

SRC = Path(__file__).resolve().parents[1] / "src"
CHECK = """
import json
from fastapi.testclient import TestClient
from wspbench.export.openenv_server import make_app
from wspbench.export.catalog import task_info
client = TestClient(make_app(episodes=2))
out = {"reset": client.post("/reset", json={"task": "original/breakout"}).json()}
answer = task_info("original/breakout", 2).reference_answer()
out["step"] = client.post("/step", json={"action": {"task": "original/breakout", "answer": answer}}).json()
out["bad"] = client.post("/step", json={"action": {"task": "superbeam", "answer": "no weights"}}).json()
print(json.dumps(out))
"""


def python_with_openenv() -> str:
    if importlib.util.find_spec("openenv") is not None:
        return sys.executable
    candidate = os.environ.get("WSP_OPENENV_PYTHON", "")
    if not candidate or not Path(candidate).is_file():
        pytest.skip("openenv-core is not installed (pip install openenv-core, or set WSP_OPENENV_PYTHON to a "
                    "Python that has it)")
    return candidate


def test_reset_prompts_and_step_grades():
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    done = subprocess.run([python_with_openenv(), "-c", CHECK], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    info = task_info("original/breakout", 2)
    assert out["reset"]["observation"]["prompt"] == info.prompt and out["reset"]["done"] is False
    expected = grade_answer(info.minatar_task, info.reference_answer(), 2, workers=1)["normalized_score"]
    assert out["step"]["done"] is True and out["step"]["reward"] == expected
    assert out["bad"]["reward"] == 0.0 and "no JSON object" in out["bad"]["observation"]["result"]["error"]
