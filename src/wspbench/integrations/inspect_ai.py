"""The Inspect task `wspbench/weight_programming` (`pip install 'wspbench[inspect]'`, docs/inspect.md).

Inspect loads this module through the `inspect_ai` entry point in pyproject.toml. It consumes the registry
(`wspbench/tasks/`): one sample per selected task, whose input is `task.messages(protocol)` (the prompt of
`wsp run`, same version and hash); a plain generate for one-shot, and for feedback and agent the conversation
that `wsp run` drives (`wspbench/tasks/conversation.py`): the same training episodes, feedback messages, best
reply and early stop, and for agent the same sandboxed kernel, blocks, passes and handoffs
(`wspbench/harness/agent.py`); the score is `task.grade` on the held-out episodes, as `wsp grade` gives it.
"""

from __future__ import annotations

import threading

import anyio
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageSystem, ChatMessageUser, ContentReasoning, ModelOutput
from inspect_ai.scorer import Metric, SampleScore, Score, Target, Value, metric, scorer
from inspect_ai.solver import Generate, TaskState, generate, solver

from wspbench.evaluation import ENGINES
from wspbench.harness.agent import act, hand_off, open_kernel
from wspbench.harness.record import block_json
from wspbench.harness.settings import task_budget
from wspbench.harness.summary import by_skill, headline
from wspbench.statistics import Sample as Episodes
from wspbench.tasks import Protocol, get_task, held_out, select, suite
from wspbench.tasks import Task as WspTask
from wspbench.tasks.conversation import Candidate, Conversation
from wspbench.tasks.spec import PROTOCOLS, prompt_hash
from wspbench.tasks.spec import Score as WspScore

ANSWER = "wspbench:answer"  # the store key of the reply to score (set by the feedback solver)
ROUNDS = "wspbench:rounds"  # the store key of the feedback rounds: parse error, training score, feedback
# The bounds of `wsp run`'s options (wspbench/cli/app.py): a `-T` value outside them stops the eval before any sample.
MAX_ROUNDS, MAX_EPISODES, MAX_WORKERS, MAX_PASSES = 1000, 100_000, 1024, 1000
# A grade already uses every core, so one sample grades at a time (as in wsp run); replies are parsed under
# the same lock, off the event loop: parsing on the loop while a worker thread parsed failed on Python 3.11
# ("SystemError: AST constructor recursion depth mismatch").
GRADING = threading.Lock()


@task
def weight_programming(
    task: str | list[str] = "all",
    protocol: str = "one-shot",
    rounds: int = 4,
    episodes: int | None = None,
    train_episodes: int = 100,
    engine: str = "auto",
    workers: int | None = None,
    passes: int = 10,
    handoff: int = 0,
    task_timeout: float | None = None,
) -> Task:
    """Write a network's weights by hand to play a game: one sample per task of the selector `task` (ids,
    globs, comma lists: `wsp games`; `-T task=a,b` arrives as a list). The other parameters are those of
    `wsp run` (`rounds`: feedback rounds or agent turns); `episodes`: held-out scoring episodes (default: the
    task's own, as many as wsp run's 1000 give it); `task_timeout`: each conversation's wall-clock budget in seconds,
    as `wsp run --task-timeout` (default: 3600 for the agent protocol, none for the others)."""
    selector = ",".join(map(str, task)) if isinstance(task, list) else str(task)
    facts = suite().to_json()
    try:
        check_params(protocol, rounds, episodes, train_episodes, engine, workers, passes, handoff)
        check_mockllm_offline()
        if protocol == "agent":  # no silent fallback to the host
            from wspbench.sandbox import SandboxUnavailable, check

            try:
                check()
            except SandboxUnavailable as error:
                raise ValueError(f"the agent protocol needs a sandbox: {error}") from None
        spec = protocol_spec(protocol, rounds, episodes, train_episodes, passes, handoff)
        if task_timeout is not None and (isinstance(task_timeout, bool) or not isinstance(task_timeout, (int, float))):
            raise ValueError(f"-T task_timeout={task_timeout!r:.40}: a number of seconds")
        budget = task_budget(spec.name, task_timeout)
        chosen = [one for one in select(selector) if spec.name in one.protocols]  # identify: one-shot only
        if not chosen:
            raise ValueError(f"no task of {selector!r} has the {spec.name} protocol")
        samples = [sample(one, spec, facts) for one in chosen]
    except ValueError as error:  # an unknown task or protocol, a bad count: a usage error
        raise usage_error(f"wspbench/weight_programming: {error}") from None
    if spec.name == "one-shot":
        steps = generate()
    elif spec.name == "feedback":
        steps = feedback_rounds(spec.rounds, train_episodes, engine, workers, budget)
    else:
        steps = agent_turns(spec, engine, workers, budget)
    metadata = {"suite": facts, "protocol": spec.name, "rounds": spec.rounds}
    if spec.name == "agent":
        metadata |= {"passes": spec.passes, "handoff": spec.handoff}
    return Task(
        dataset=MemoryDataset(samples, name="wspbench"),
        solver=steps,
        scorer=registry_score(episodes, engine, workers, spec.secret_held_out),
        metadata=metadata,
    )


def check_params(protocol, rounds, episodes, train_episodes, engine, workers, passes=0, handoff=0) -> None:
    """ValueError naming the first `-T` value that `wsp run` would refuse. `inspect eval` reads `-T` values as
    YAML, so a count may arrive as a float, a bool or a list: each is refused, never rounded or taken as 1."""
    if protocol not in PROTOCOLS:
        raise ValueError(f"-T protocol={protocol!r:.40}: choose one of {', '.join(PROTOCOLS)}")
    counts = {"rounds": (rounds, MAX_ROUNDS), "train_episodes": (train_episodes, MAX_EPISODES)}
    counts |= {"episodes": (episodes, MAX_EPISODES), "workers": (workers, MAX_WORKERS)}
    for name, (value, most) in counts.items():
        if value is None and name in ("episodes", "workers"):  # None: the task's own episodes, every core
            continue
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
            raise ValueError(f"-T {name}={value!r:.40}: {name} must be a whole number from 1 to {most:,}")
    for name, value, most in (("passes", passes, MAX_PASSES), ("handoff", handoff, MAX_ROUNDS)):
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= most:
            raise ValueError(f"-T {name}={value!r:.40}: {name} must be a whole number from 0 to {most:,}")
    if engine not in ENGINES:
        raise ValueError(f"-T engine={engine!r:.40}: choose one of {', '.join(ENGINES)}")


def check_mockllm_offline() -> None:
    """ValueError before any sample when the eval's model is `mockllm/model` with its default replies and tiktoken
    cannot load its encoding: those replies carry no token usage, so Inspect counts their tokens with tiktoken,
    which downloads o200k_base on first use, and offline every sample would end in a long traceback."""
    from inspect_ai.model import get_model

    from wspbench.harness.tokens import token_counter

    try:
        model = get_model()  # inside `inspect eval`: the eval's model; outside an eval there may be none
    except Exception:  # noqa: BLE001 - no model to check
        return
    outputs = getattr(model.api, "outputs", None)  # replies given from Python may carry their own usage
    if not str(model).startswith("mockllm/") or not getattr(outputs, "__qualname__", "").startswith("MockLLM."):
        return
    note = token_counter("gpt-4o")[2]
    if note is not None:
        raise ValueError(
            "mockllm/model counts its replies' tokens with tiktoken, which could not load o200k_base (offline?): "
            "set TIKTOKEN_CACHE_DIR to a folder holding a copy, or see docs/inspect.md (Offline)"
        )


def usage_error(message: str) -> Exception:
    """An error the `inspect` CLI prints as one message, without a traceback (its PrerequisiteError)."""
    try:
        from inspect_ai._util.error import PrerequisiteError
    except ImportError:  # a later Inspect without it: a plain ValueError still says what is wrong
        return ValueError(message)
    return PrerequisiteError(message)


def protocol_spec(
    name: str, rounds: int, episodes: int | None, train_episodes: int, passes: int = 0, handoff: int = 0
) -> Protocol:
    """The protocol as `wsp run` states it (`RunConfig.protocol_spec`): one-shot has one round, no training;
    only agent has passes and handoffs."""
    if name == "agent":
        return Protocol(name, rounds, episodes, train_episodes, passes, handoff)
    if name == "feedback":
        return Protocol(name, rounds, episodes, train_episodes)
    return Protocol(name, 1, episodes, 0)  # ValueError for an unknown name


def sample(chosen: WspTask, spec: Protocol, facts: dict) -> Sample:
    """One task's prompt, with the facts a `wsp run` record keeps about it (ValueError for bad episodes)."""
    messages = chosen.messages(spec)
    return Sample(
        id=chosen.public().slug,  # ids become file names inside Inspect's log; a reading task's id is opaque
        input=chat_messages(messages),
        metadata={
            "task": chosen.public().id,
            "prompt_version": chosen.prompt_version,
            "prompt_sha256": prompt_hash(messages),
            "suite": facts,
            "seeds": chosen.seeds(spec),
        },
    )


@solver
def feedback_rounds(
    rounds: int, train_episodes: int, engine: str = "auto", workers: int | None = None, budget_s: float = 0.0
):
    """The feedback protocol, by the engine `wsp run` drives (`wspbench/tasks/conversation.py`): up to `rounds`
    replies, each usable one scored on the training episodes and answered with `task.feedback`, an unusable one
    with `task.parse_feedback`, a perfect training score stopping early. The reply to grade (the best by
    `task.train_key`, else the last one) is left in the store for the scorer."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        chosen = get_task(state.metadata["task"])
        conversation = Conversation(chosen, Protocol("feedback", rounds, None, train_episodes), budget_s or None)
        history = []
        while True:
            state = await generate(state)
            turn = await off_loop(conversation.reply, *texts(state.output))
            episodes = conversation.to_train(turn)
            if episodes:
                score = await off_loop(chosen.grade_checked, turn.read, episodes, engine, workers)
                conversation.trained(turn, score)
            history.append(
                {
                    "round": turn.number,
                    "parse_error": turn.error,
                    "train": None if turn.train is None else turn.train.to_json(),
                    "feedback": turn.feedback,
                }
            )
            follow_up = conversation.follow_up(turn)
            if follow_up is None:
                break
            state.messages.append(ChatMessageUser(content=follow_up))
        return graded(state, conversation, history)

    return solve


@solver
def agent_turns(spec: Protocol, engine: str = "auto", workers: int | None = None, budget_s: float = 0.0):
    """The agent protocol `spec`, by the engine and the kernel `wsp run` uses (`wspbench/tasks/conversation.py`,
    `wspbench/harness/agent.py`): up to `spec.rounds` turns, each reply's blocks run in the task's sandboxed
    kernel (whose task.md is the sample's prompt), plays scored on the training episodes within `spec.passes`, a
    fresh conversation every `spec.handoff` turns. The submitted (else last) candidate is left in the store for
    the scorer; each turn's blocks in ROUNDS."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        chosen = get_task(state.metadata["task"])
        conversation = Conversation(chosen, spec, budget_s or None)

        def grade(candidate: Candidate, episodes: list[int]) -> WspScore:
            return chosen.grade_checked(candidate.read, episodes, engine, workers)

        history = []
        kernel = await anyio.to_thread.run_sync(open_kernel, conversation)
        try:
            while True:
                state = await generate(state)
                turn = await off_loop(conversation.reply, *texts(state.output))
                await off_loop(act, conversation, turn, kernel, grade)
                history.append({"round": turn.number, "blocks": [block_json(b) for b in turn.blocks]})
                follow_up = conversation.follow_up(turn)
                if follow_up is None:
                    break
                if conversation.handoff_due(turn):
                    fresh = await off_loop(hand_off, conversation, kernel, follow_up)
                    state.messages = chat_messages(fresh)
                else:
                    state.messages.append(ChatMessageUser(content=follow_up))
        finally:
            await anyio.to_thread.run_sync(kernel.close)
        return graded(state, conversation, history)

    return solve


def graded(state: TaskState, conversation: Conversation, history: list[dict]) -> TaskState:
    """The state with what the scorer grades (`Conversation.answer`) and the turns' history in its store, and the
    graded turn in its metadata."""
    answer = conversation.answer()
    state.store.set(ANSWER, answer.text)
    state.store.set(ROUNDS, history)
    state.metadata["best_round"] = answer.number
    state.metadata["time_limit"] = conversation.out_of_time  # its budget ran out: the answer so far is graded
    return state


def chat_messages(messages: list[dict]) -> list:
    """A conversation of system and user messages as Inspect's chat messages."""
    roles = {"system": ChatMessageSystem, "user": ChatMessageUser}
    return [roles[m["role"]](content=m["content"]) for m in messages]


@metric
def family_means() -> Metric:
    """Per task family (original, synth, ..., repair): `FAMILY` the mean score, `FAMILY tasks`, `FAMILY low` and
    `FAMILY high` its 95% interval, the very numbers `wsp runs show` prints for a run of the same replies
    (`harness/summary.py` `headline`); then per skill the samples have, `writing score` and `reading score`
    (family-weighted, each family counting once) with `... low`, `... high` and `... tasks`. No mean over every
    sample, nor over both skills: writing and reading are two skills."""

    def compute(scores: list[SampleScore]) -> Value:
        replies: dict[str, list] = {}
        for one in scores:
            data = one.score.metadata or {}
            try:  # the Score's JSON, as `registry_score` stores it: its episodes give the interval
                episodes = WspScore.from_json(data).sample()
            except ValueError:
                episodes = Episodes((), 1.0)
            task_id = (one.sample_metadata or {}).get("task", str(one.sample_id))
            replies.setdefault(task_id, []).append((float(one.score.as_float()), episodes))
        values: dict[str, float] = {}
        for skill, mine in by_skill(replies).items():
            head = headline(mine)
            for row in head["families"]:
                family = row["family"]
                values |= {family: row["mean_test_score"], f"{family} tasks": row["tasks"]}
                values |= {f"{family} low": row["ci95"][0], f"{family} high": row["ci95"][1]}
            values |= {f"{skill} score": head["mean_test_score"], f"{skill} score tasks": head["tasks"]}
            values |= {f"{skill} score low": head["ci95"][0], f"{skill} score high": head["ci95"][1]}
        return values

    return compute


@scorer(metrics=[family_means()])
def registry_score(
    episodes: int | None = None, engine: str = "auto", workers: int | None = None, secret_held_out: bool = False
):
    """`task.grade` on the held-out episodes: the normalised score, with the Score's JSON (raw score,
    episodes, values, interval, error) as metadata, exactly what `wsp grade --json` prints. `secret_held_out`
    (feedback and agent): the episodes are drawn by a secret made here, when the eval starts, which no sample,
    prompt or kernel sees; each score's metadata publishes its task's key (`held_out_key`, `tasks/held_out.py`)."""
    secret = held_out.new_secret() if secret_held_out else None

    async def score(state: TaskState, target: Target) -> Score:
        chosen = get_task(state.metadata["task"])
        answer = state.store.get(ANSWER)
        if answer is None:  # one-shot: the reply read as the engine reads it (content, else reasoning)
            answer = (await off_loop(Conversation(chosen, Protocol()).reply, *texts(state.output))).text
        key = held_out.task_key(secret, chosen.id) if secret and chosen.secret_episodes else None
        result = await off_loop(chosen.grade, answer, chosen.held_out_episodes(episodes, key), engine, workers)
        low, high = result.interval()
        explanation = result.error or (
            f"raw score {result.raw:g} of {result.score_cap:g} over {len(result.episodes)} episodes; "
            f"95% interval {low:.4f} .. {high:.4f}"
        )
        metadata = result.to_json() | ({"held_out_key": key} if key else {})
        return Score(value=result.normalized, answer=answer, explanation=explanation, metadata=metadata)

    return score


def texts(output: ModelOutput) -> tuple[str, str]:
    """A reply's content and its reasoning text ("" without one), for `Conversation.reply`."""
    parts = output.message.content if output.choices else ""
    if not isinstance(parts, list):
        return output.completion, ""
    return output.completion, "".join(part.reasoning for part in parts if isinstance(part, ContentReasoning))


async def off_loop(function, *args):
    """`function(*args)` in a worker thread under GRADING, so that Inspect's event loop lives meanwhile."""

    def run():
        with GRADING:
            return function(*args)

    return await anyio.to_thread.run_sync(run)
