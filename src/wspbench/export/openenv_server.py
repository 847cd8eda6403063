"""An OpenEnv (`openenv-core`) server for the weight-programming tasks: SUPERBEAM and the grid games.

Why this shape: OpenEnv serves environments to RL trainers of language models, and here the language
model's action is a whole reply (its reasoning and the weights). So an episode is one task:
`reset(task=...)` returns the harness's one-shot prompt; `step(WspAction(answer=...))` grades the reply
on the held-out episodes with the same functions as `wsp grade` / the Harbor verifier and ends the
episode with reward = normalised score. Over plain HTTP each request gets a fresh environment, so the
action may name its task (`WspAction.task`); WebSocket sessions keep the task from `reset`.

    pip install openenv-core
    python -m wspbench.export.openenv_server --port 8000 --episodes 100
    curl -X POST localhost:8000/reset -H 'content-type: application/json' -d '{"task": "original/breakout"}'
    curl -X POST localhost:8000/step -H 'content-type: application/json' \\
         -d '{"action": {"task": "original/breakout", "answer": "...```edits\\nb3[3] = 1\\n```"}}'
"""

from __future__ import annotations

import argparse
from typing import Any, Optional

from openenv.core.env_server import Action, Environment, Observation, State, create_fastapi_app
from pydantic import Field

from wspbench.export.catalog import TaskInfo, task_info

DEFAULT_TASK = "original/breakout"
EPISODES = 100


class WspAction(Action):
    """A model's reply: the text that holds the ```edits (MinAtar) or ```json (SUPERBEAM) block."""

    answer: str = Field(..., max_length=1_000_000, description="The reply text to grade")
    task: Optional[str] = Field(default=None, description="Task id (needed over stateless HTTP)")


class WspObservation(Observation):
    task: str = Field(..., description="Task id: original/<game>, synth/<game> or superbeam")
    system_prompt: str = ""
    prompt: str = ""
    result: dict[str, Any] = Field(default_factory=dict, description="The grader's result once graded")


class WspEnvironment(Environment):
    """One weight-programming task per episode; the only step grades the reply."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, episodes: int = EPISODES, default_task: str = DEFAULT_TASK):
        super().__init__()
        self.episodes = episodes
        self.info: TaskInfo = task_info(default_task, episodes)
        self._state = State(step_count=0)

    def reset(self, seed: Optional[int] = None, episode_id: Optional[str] = None, task: Optional[str] = None,
              **kwargs: Any) -> WspObservation:
        if task:
            self.info = task_info(task, self.episodes)
        self._state = State(episode_id=episode_id, step_count=0, task=self.info.task_id)
        return WspObservation(task=self.info.task_id, system_prompt=self.info.system_prompt,
                              prompt=self.info.prompt, done=False, reward=None)

    def step(self, action: WspAction, timeout_s: Optional[float] = None, **kwargs: Any) -> WspObservation:
        if action.task:
            self.info = task_info(action.task, self.episodes)
        self._state.step_count += 1
        result = grade(self.info, action.answer)
        return WspObservation(task=self.info.task_id, done=True, reward=float(result["normalized_score"]),
                              result=result)

    @property
    def state(self) -> State:
        return self._state


def grade(info: TaskInfo, answer: str) -> dict:
    """The held-out result: `grade_answer` (MinAtar) or `superbeam.task.grade` on the task's levels."""
    if info.family == "superbeam":
        from superbeam.task import grade as grade_superbeam
        result = grade_superbeam(answer, info.levels)
        summary = {key: result[key] for key in ("won", "levels", "mean_progress", "error")}
        return {"normalized_score": float(result["score"]), "parse_success": 0.0 if result["error"] else 1.0, **summary}
    from wspbench.grading import grade_answer
    return grade_answer(info.minatar_task, answer, info.episodes)


def make_app(episodes: int = EPISODES, default_task: str = DEFAULT_TASK):
    """The FastAPI app (OpenEnv's HTTP and WebSocket routes)."""
    return create_fastapi_app(lambda: WspEnvironment(episodes, default_task), WspAction, WspObservation)


def main() -> None:
    parser = argparse.ArgumentParser(description="OpenEnv server for wspbench's weight-programming tasks")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--episodes", type=int, default=EPISODES, help="MinAtar scoring episodes per grade")
    parser.add_argument("--task", default=DEFAULT_TASK, help="Task of a reset that names none")
    args = parser.parse_args()
    import uvicorn
    uvicorn.run(make_app(args.episodes, args.task), host=args.host, port=args.port)


if __name__ == "__main__":
    main()
