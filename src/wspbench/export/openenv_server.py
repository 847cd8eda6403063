"""An OpenEnv (`openenv-core`) server for the weight-programming tasks: SUPERBEAM and the grid games.

Why this shape: OpenEnv serves environments to RL trainers of language models, and here the language
model's action is a whole reply (its reasoning and the weights). So an episode is one task of the registry
(src/wspbench/tasks/): `reset(task=...)` returns its one-shot prompt; `step(WspAction(answer=...))` grades
the reply on the held-out episodes with `Task.grade`, as `wsp grade` and the Harbor verifier do, and ends
the episode with reward = normalised score and the `Score.to_json()` as its result. Every observation
carries the suite (name, version, digest) in `suite` (OpenEnv leaves `metadata` off the wire). Over
plain HTTP each request gets a fresh environment, so the action may name its task (`WspAction.task`);
WebSocket sessions keep the task from `reset`.

Replies are untrusted, so: a request body over MAX_BODY_BYTES is refused with 413 before it is read (and a
WebSocket message over it closes the socket); validation errors never echo the request back; an unknown
task id is a 400; grading runs in worker processes (wspbench/export/grade_pool.py) with a time limit, so a
slow grade cannot hold up other requests or `/health`; up to `--max-sessions` WebSocket sessions at once.

    pip install openenv-core
    python -m wspbench.export.openenv_server --port 8000 --episodes 100
    curl -X POST localhost:8000/reset -H 'content-type: application/json' -d '{"task": "original/breakout"}'
    curl -X POST localhost:8000/step -H 'content-type: application/json' \\
         -d '{"action": {"task": "original/breakout", "answer": "...```edits\\nb3[3] = 1\\n```"}}'
"""

from __future__ import annotations

import argparse
import functools
import os
from typing import Any

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from openenv.core.env_server import (
    Action,
    Environment,
    Observation,
    State,
    create_fastapi_app,
)
from pydantic import Field

from wspbench.export.grade_pool import GradePool, GraderBusy
from wspbench.tasks import Task, get_task, suite
from wspbench.tasks.spec import Protocol

DEFAULT_TASK = "original/breakout"
EPISODES = 100
MAX_BODY_BYTES = 8 * 1024 * 1024  # a 1,000,000-character reply, JSON-escaped, fits
MAX_SESSIONS = 8
GRADE_TIMEOUT_S = 300.0


class TaskError(ValueError):
    """A request that names no task: a 400, not a server error."""


class WspAction(Action):
    """A model's reply: the text that ends with the task's answer block (```edits, ```json). Length is
    checked when grading (over 1,000,000 characters scores 0 with an error), so it is never echoed back."""

    answer: str = Field(..., description="The reply text to grade")
    task: str | None = Field(default=None, max_length=200, description="Task id (needed over stateless HTTP)")


class WspObservation(Observation):
    task: str = Field(..., description="Task id, as `wsp games` lists them")
    system_prompt: str = ""
    prompt: str = ""
    result: dict[str, Any] = Field(default_factory=dict, description="The graded answer (Score.to_json())")
    suite: dict[str, Any] = Field(default_factory=dict, description="The suite: name, version, digest, tasks")


def requested_task(task_id) -> Task:
    """The task named by a request, or TaskError with a short message (an unknown id: a few close ids)."""
    if not isinstance(task_id, str) or not task_id or len(task_id) > 200:
        raise TaskError("task must be a task id such as original/breakout")
    try:
        return get_task(task_id)
    except ValueError as error:
        raise TaskError(str(error)[:500]) from None


@functools.lru_cache(maxsize=1)
def suite_facts() -> dict:
    return suite().to_json()


@functools.lru_cache(maxsize=128)
def prompt(task_id: str) -> tuple[str, str]:
    """The task's one-shot (system, user) prompt, built once."""
    system, user = get_task(task_id).messages(Protocol())
    return system["content"], user["content"]


class WspEnvironment(Environment):
    """One weight-programming task per episode; the only step grades the reply."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(self, grader: GradePool, episodes: int = EPISODES, default_task: str = DEFAULT_TASK):
        super().__init__()
        self.grader, self.episodes = grader, episodes
        self.task: Task = requested_task(default_task)
        self._state = State(step_count=0)

    def reset(
        self, seed: int | None = None, episode_id: str | None = None, task: str | None = None, **kwargs: Any
    ) -> WspObservation:
        if task is not None:
            self.task = requested_task(task)
        self._state = State(
            episode_id=episode_id if isinstance(episode_id, str) else None, step_count=0, task=self.task.public().id
        )
        system, user = prompt(self.task.id)
        return WspObservation(
            task=self.task.public().id, system_prompt=system, prompt=user, done=False, reward=None, suite=suite_facts()
        )

    def step(self, action: WspAction, timeout_s: float | None = None, **kwargs: Any) -> WspObservation:
        if action.task:
            self.task = requested_task(action.task)
        self._state.step_count += 1
        result = self.grader.grade(self.task, self.episodes, action.answer)
        return WspObservation(
            task=self.task.public().id,
            done=True,
            reward=float(result.get("normalized", 0.0)),
            result=result,
            suite=suite_facts(),
        )

    @property
    def state(self) -> State:
        return self._state


class BodyLimit:
    """ASGI middleware: refuse an HTTP body over `limit` bytes with 413, by its Content-Length before
    reading it, or while reading a body sent without one; the app gets the body once it is complete."""

    def __init__(self, app, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit():
            return await _send_json(send, 400, "Content-Length is not a number")
        if int(length) > self.limit:
            return await _send_json(send, 413, f"the request body is over the limit of {self.limit:,} bytes")
        body, more = bytearray(), True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body += message.get("body", b"")
            if len(body) > self.limit:
                return await _send_json(send, 413, f"the request body is over the limit of {self.limit:,} bytes")
            more = message.get("more_body", False)
        replayed = False

        async def replay():
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}

        return await self.app(scope, replay, send)


async def _send_json(send, status: int, detail: str) -> None:
    response = JSONResponse({"detail": detail}, status_code=status, headers={"Connection": "close"})
    await send({"type": "http.response.start", "status": response.status_code, "headers": response.raw_headers})
    await send({"type": "http.response.body", "body": response.body})


def _short_errors(errors) -> list[dict]:
    """Validation errors without the request's own text (a reply can be megabytes)."""
    return [
        {"loc": list(e.get("loc", ()))[:10], "msg": str(e.get("msg", ""))[:300], "type": e.get("type")}
        for e in list(errors)[:20]
        if isinstance(e, dict)
    ]


def make_app(
    episodes: int = EPISODES,
    default_task: str = DEFAULT_TASK,
    max_sessions: int = MAX_SESSIONS,
    graders: int | None = None,
    grade_timeout_s: float = GRADE_TIMEOUT_S,
    max_body_bytes: int = MAX_BODY_BYTES,
):
    """The app: OpenEnv's HTTP and WebSocket routes behind the body limit; `graders` worker processes
    (default: one per core) grade within `grade_timeout_s` seconds each."""
    requested_task(default_task)  # a bad default fails at start, not on every request
    pool = GradePool(graders or os.cpu_count() or 1, grade_timeout_s)
    app = create_fastapi_app(
        lambda: WspEnvironment(pool, episodes, default_task),
        WspAction,
        WspObservation,
        max_concurrent_envs=max_sessions,
    )

    @app.exception_handler(TaskError)
    async def unknown_task(request, error: TaskError):
        return JSONResponse({"detail": str(error)}, status_code=400)

    @app.exception_handler(GraderBusy)
    async def busy(request, error: GraderBusy):
        return JSONResponse({"detail": str(error)}, status_code=503, headers={"Retry-After": "10"})

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request, error: RequestValidationError):
        return JSONResponse({"detail": _short_errors(error.errors())}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(request, error: HTTPException):
        detail = _short_errors(error.detail) if isinstance(error.detail, list) else str(error.detail)[:1000]
        return JSONResponse({"detail": detail}, status_code=error.status_code, headers=error.headers)

    app.router.on_shutdown.append(pool.close)
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    return app


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="OpenEnv server for wspbench's weight-programming tasks")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--episodes", type=int, default=EPISODES, help="Held-out episodes per grade")
    parser.add_argument("--task", default=DEFAULT_TASK, help="Task of a reset that names none")
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, help="WebSocket sessions at once")
    parser.add_argument("--graders", type=int, default=None, help="Grading processes (default: one per core)")
    parser.add_argument("--grade-timeout", type=float, default=GRADE_TIMEOUT_S, help="Seconds one grade may take")
    parser.add_argument("--max-body-bytes", type=int, default=MAX_BODY_BYTES, help="Largest request or message")
    args = parser.parse_args(argv)
    if (
        args.episodes < 1
        or args.max_sessions < 1
        or (args.graders is not None and args.graders < 1)
        or not args.grade_timeout > 0
        or args.max_body_bytes < 1
    ):
        parser.error("--episodes, --max-sessions, --graders, --grade-timeout and --max-body-bytes must be positive")
    try:
        app = make_app(
            args.episodes, args.task, args.max_sessions, args.graders, args.grade_timeout, args.max_body_bytes
        )
    except TaskError as error:
        parser.error(f"--task: {error}")
    import uvicorn

    uvicorn.run(app, host=args.host, port=args.port, ws_max_size=args.max_body_bytes, log_level="warning")


if __name__ == "__main__":
    main()
