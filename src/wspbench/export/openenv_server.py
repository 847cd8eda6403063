"""An OpenEnv (`openenv-core`) server for the weight-programming tasks: SUPERBEAM and the grid games.

Why this shape: OpenEnv serves environments to RL trainers of language models, and here the language
model's action is a whole reply (its reasoning and the weights). So an episode is one task of the registry
(src/wspbench/tasks/): `reset(task=...)` returns its one-shot prompt; `step(WspAction(answer=...))` grades
the reply on the held-out episodes with `Task.grade`, as `wsp grade` and the Harbor verifier do, and ends
the episode with reward = normalised score and the `Score.to_json()` as its result. Every observation
carries the suite (name, version, digest) in `suite` (OpenEnv leaves `metadata` off the wire). Over
plain HTTP each request gets a fresh environment, so the action may name its task (`WspAction.task`);
WebSocket sessions keep the task from `reset`.

A protocol of several replies (`wspbench/protocols/`: feedback, agent) runs over a WebSocket session:
`reset(task=..., protocol="agent", turns=..., passes=..., train_episodes=...)` (each left out: the protocol's own
default, as `wsp run`) opens the conversation (and, for agent, the task's sandboxed kernel) and returns its prompt;
each step is one turn (`WspAction.answer`: the reply), whose blocks run as `wsp run` runs them
(`wspbench/harness/agent.py`) or which is scored on the training episodes (feedback; every grade in the worker
processes), and whose observation is the next message (`prompt`), the turn's blocks and the passes left; the step
that ends the conversation grades its answer on held-out episodes drawn by a secret of the session's own
(docs/validity.md), whose key the result publishes (`held_out_key`). The trainer owns the conversation, so there
are no handoffs.

Replies are untrusted, so: a request body over MAX_BODY_BYTES is refused with 413 before it is read (and a
WebSocket message over it closes the socket); validation errors never echo the request back; an unknown
task id is a 400; grading runs in worker processes (wspbench/export/grade_pool.py) with a time limit, so a
slow grade cannot hold up other requests or `/health`; up to `--max-sessions` WebSocket sessions at once, each
closed after `--session-timeout` seconds idle (a client that disconnects frees its slot at once); a session's
conversation stops at `--task-timeout` (default: its protocol's, 3600 s for agent, as `wsp run`) and grades its
answer so far.

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
from openenv.core.env_server.types import ConcurrencyConfig
from pydantic import Field

from wspbench import protocols
from wspbench.export.grade_pool import GradePool, GraderBusy
from wspbench.harness.agent import act, open_kernel
from wspbench.harness.record import block_json
from wspbench.protocols import OneShot, Protocol
from wspbench.protocols.conversation import Candidate, Conversation
from wspbench.tasks import Task, get_task, held_out, suite
from wspbench.tasks.spec import Score

DEFAULT_TASK = "original/breakout"
EPISODES = 100
MAX_BODY_BYTES = 8 * 1024 * 1024  # a 1,000,000-character reply, JSON-escaped, fits
MAX_SESSIONS = 8
SESSION_TIMEOUT_S = 300.0  # a WebSocket session idle this long is closed and its slot freed (a disconnect: at once)
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
    protocol: str = Field(
        default=OneShot.name, description="wsp run's protocol; one of several replies takes a turn per step"
    )
    turn: int = Field(default=0, description="Agent: the turns taken")
    passes_left: int = Field(default=0, description="Agent: plays left")
    blocks: list[dict[str, Any]] = Field(default_factory=list, description="Agent: the last turn's blocks, run")


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
    system, user = get_task(task_id).messages(protocols.ONE_SHOT)
    return system["content"], user["content"]


class WspEnvironment(Environment):
    """One weight-programming task per episode: under one-shot the only step grades the reply; under a protocol of
    several replies (feedback, agent: `wspbench/protocols/`) each step is one turn of its conversation."""

    SUPPORTS_CONCURRENT_SESSIONS = True

    def __init__(
        self, grader: GradePool, episodes: int = EPISODES, default_task: str = DEFAULT_TASK, task_timeout_s: float = 0.0
    ):
        super().__init__()
        self.grader, self.episodes, self.task_timeout_s = grader, episodes, task_timeout_s
        self.task: Task = requested_task(default_task)
        self._state = State(step_count=0)
        self.conversation: Conversation | None = None  # a session's conversation, and its kernel (agent)
        self.kernel = None
        self.key: str | None = None  # draws the held-out episodes of a conversation (a secret of the session's own)

    def reset(
        self,
        seed: int | None = None,
        episode_id: str | None = None,
        task: str | None = None,
        protocol: str = OneShot.name,
        **kwargs: Any,
    ) -> WspObservation:
        self.close()
        if task is not None:
            self.task = requested_task(task)
        self._state = State(
            episode_id=episode_id if isinstance(episode_id, str) else None, step_count=0, task=self.task.public().id
        )
        spec = session_protocol(protocol, self.episodes, self.task_timeout_s, kwargs)
        if spec.name not in self.task.protocols:
            raise TaskError(f"{self.task.public().id} has no {spec.name} protocol")
        if "rounds" in spec.settings:
            return self.start_conversation(spec)
        system, user = prompt(self.task.id)
        return WspObservation(
            task=self.task.public().id, system_prompt=system, prompt=user, done=False, reward=None, suite=suite_facts()
        )

    def step(self, action: WspAction, timeout_s: float | None = None, **kwargs: Any) -> WspObservation:
        if self.conversation is not None:
            return self.turn(action.answer)
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

    def start_conversation(self, spec: Protocol) -> WspObservation:
        """A conversation's first observation: its prompt, once the task's kernel (agent) is up."""
        from wspbench.sandbox import SandboxUnavailable

        self.conversation = Conversation(self.task, spec)
        self.key = held_out.task_key(held_out.new_secret(), self.task.id) if self.task.secret_episodes else None
        if spec.kernel:
            try:
                self.kernel = open_kernel(self.conversation)
            except SandboxUnavailable as error:
                self.conversation = None
                raise HTTPException(503, f"the {spec.name} protocol needs a sandbox: {error}") from None
        system, user = (message["content"] for message in self.conversation.messages())
        return WspObservation(
            task=self.task.public().id,
            system_prompt=system,
            prompt=user,
            done=False,
            reward=None,
            suite=suite_facts(),
            protocol=spec.name,
            passes_left=self.conversation.passes_left,
        )

    def turn(self, reply: str) -> WspObservation:
        """One turn: its blocks run (agent) or its training score (feedback), then the next message, or (the
        conversation over) the held-out grade."""
        conversation = self.conversation
        self._state.step_count += 1
        turn = conversation.reply(reply)  # bounded by the body limit; each candidate by the task's own bound
        if self.kernel is not None:
            act(conversation, turn, self.kernel, self.play)
        if conversation.to_train(turn):
            conversation.trained(turn, self.play(Candidate(turn.number, turn.text, turn.read), []))
        follow_up = conversation.follow_up(turn)
        facts = {"task": self.task.public().id, "suite": suite_facts(), "protocol": conversation.protocol.name}
        facts |= {"turn": turn.number, "passes_left": conversation.passes_left}
        facts["blocks"] = [block_json(b) for b in turn.blocks]
        if follow_up is not None:
            return WspObservation(prompt=follow_up, done=False, reward=None, **facts)
        key = self.key
        self.close()
        result = self.grader.grade(self.task, self.episodes, conversation.answer().text, key=key)
        result["time_limit"] = conversation.out_of_time  # the budget ran out: the answer so far was graded
        result["held_out_key"] = key  # published with the grade: the episodes can be drawn again
        return WspObservation(done=True, reward=float(result.get("normalized", 0.0)), result=result, **facts)

    def play(self, candidate: Candidate, episodes: list[int]) -> Score:
        """A candidate graded on the conversation's training episodes, in a worker process like every grade of this
        server."""
        train = self.conversation.protocol.train_episodes
        return Score.from_json(self.grader.grade(self.task, train, candidate.text, training=True))

    def close(self) -> None:
        """Stop the session's kernel (OpenEnv calls this when a session ends)."""
        if self.kernel is not None:
            self.kernel.close()
        self.kernel, self.conversation, self.key = None, None, None

    @property
    def state(self) -> State:
        return self._state


def session_protocol(name, episodes: int, task_timeout_s: float, given: dict) -> Protocol:
    """The protocol a `reset` asks for (`wspbench.protocols.make`: each protocol's own defaults and bounds), or
    TaskError (a 400) naming what is wrong. `turns` is the name this server has always taken for `rounds`; there are
    no handoffs (the trainer owns the conversation), and `--task-timeout` bounds a conversation (0: the protocol's
    own budget)."""
    settings = {key: given[key] for key in ("rounds", "passes", "train_episodes") if key in given}
    if "turns" in given:
        settings["rounds"] = given["turns"]
    try:
        return protocols.make(name, episodes=episodes, task_timeout=task_timeout_s or None, **settings)
    except ValueError as error:
        raise TaskError(str(error)[:500]) from None


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
    session_timeout_s: float = SESSION_TIMEOUT_S,
    task_timeout_s: float = 0.0,
):
    """The app: OpenEnv's HTTP and WebSocket routes behind the body limit; `graders` worker processes
    (default: one per core) grade within `grade_timeout_s` seconds each. A WebSocket session idle for
    `session_timeout_s` is closed (openenv's reaper; a disconnect closes it at once), and an agent session's
    conversation has a wall-clock budget of `task_timeout_s` (0: its protocol's default, as `wsp run`)."""
    requested_task(default_task)  # a bad default fails at start, not on every request
    pool = GradePool(graders or os.cpu_count() or 1, grade_timeout_s)
    app = create_fastapi_app(
        lambda: WspEnvironment(pool, episodes, default_task, task_timeout_s),
        WspAction,
        WspObservation,
        concurrency_config=ConcurrencyConfig(max_concurrent_envs=max_sessions, session_timeout=session_timeout_s),
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
    parser.add_argument("--port", type=int, default=8000, help="0: any free port (the first line says which)")
    parser.add_argument("--episodes", type=int, default=EPISODES, help="Held-out episodes per grade")
    parser.add_argument("--task", default=DEFAULT_TASK, help="Task of a reset that names none")
    parser.add_argument("--max-sessions", type=int, default=MAX_SESSIONS, help="WebSocket sessions at once")
    parser.add_argument("--graders", type=int, default=None, help="Grading processes (default: one per core)")
    parser.add_argument("--grade-timeout", type=float, default=GRADE_TIMEOUT_S, help="Seconds one grade may take")
    parser.add_argument("--max-body-bytes", type=int, default=MAX_BODY_BYTES, help="Largest request or message")
    parser.add_argument(
        "--session-timeout", type=float, default=SESSION_TIMEOUT_S, help="Seconds a WebSocket session may stay idle"
    )
    parser.add_argument(
        "--task-timeout", type=float, default=0.0, help="An agent session's wall-clock budget (0: the default, 3600)"
    )
    args = parser.parse_args(argv)
    if (
        args.episodes < 1
        or args.max_sessions < 1
        or (args.graders is not None and args.graders < 1)
        or not args.grade_timeout > 0
        or args.max_body_bytes < 1
        or not args.session_timeout > 0
        or not args.task_timeout >= 0
    ):
        parser.error(
            "--episodes, --max-sessions, --graders, --grade-timeout, --max-body-bytes and --session-timeout must be "
            "positive, --task-timeout not negative"
        )
    try:
        app = make_app(
            args.episodes,
            args.task,
            args.max_sessions,
            args.graders,
            args.grade_timeout,
            args.max_body_bytes,
            args.session_timeout,
            args.task_timeout,
        )
    except TaskError as error:
        parser.error(f"--task: {error}")
    import socket

    import uvicorn

    # bound here and handed to uvicorn, so that --port 0 takes any free port without a race, and the line below says it
    listener = socket.create_server((args.host, args.port))
    print(f"listening on http://{args.host}:{listener.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, ws_max_size=args.max_body_bytes, log_level="warning")
    uvicorn.Server(config).run(sockets=[listener])


if __name__ == "__main__":
    main()
