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
from inspect_ai.solver import Generate, TaskState, solver

from wspbench import protocols
from wspbench.evaluation import Grading
from wspbench.harness.agent import act, hand_off, open_kernel
from wspbench.harness.record import block_json
from wspbench.harness.settings import check as check_setting
from wspbench.harness.summary import by_skill, headline
from wspbench.protocols import OneShot, Protocol
from wspbench.protocols.conversation import Candidate, Conversation
from wspbench.statistics import Sample as Episodes
from wspbench.tasks import Task as WspTask
from wspbench.tasks import get_task, held_out, select, suite
from wspbench.tasks.spec import Score as WspScore
from wspbench.tasks.spec import prompt_hash

ANSWER = "wspbench:answer"  # the store key of the reply to score (set by the conversation solver)
ROUNDS = "wspbench:rounds"  # the store key of the rounds: parse error, training score, feedback, blocks
# A grade already uses every core, so one sample grades at a time (as in wsp run); replies are parsed under
# the same lock, off the event loop: parsing on the loop while a worker thread parsed failed on Python 3.11
# ("SystemError: AST constructor recursion depth mismatch").
GRADING = threading.Lock()


@task
def weight_programming(
    task: str | list[str] = "all",
    protocol: str = OneShot.name,
    rounds: int | None = None,
    episodes: int | None = None,
    train_episodes: int | None = None,
    engine: str = "auto",
    workers: int | None = None,
    passes: int | None = None,
    handoff: int | None = None,
    task_timeout: float | None = None,
) -> Task:
    """Write a network's weights by hand to play a game: one sample per task of the selector `task` (ids,
    globs, comma lists: `wsp games`; `-T task=a,b` arrives as a list). The other parameters are those of
    `wsp run`, each protocol's own defaulting as there (`wspbench/protocols/`; `rounds`: feedback rounds or agent
    turns, `task_timeout`: each conversation's wall-clock budget in seconds); `episodes`: held-out scoring episodes
    (default: the task's own)."""
    selector = ",".join(map(str, task)) if isinstance(task, list) else str(task)
    facts = suite().to_json()
    try:
        given = {"rounds": rounds, "episodes": episodes, "train_episodes": train_episodes, "passes": passes}
        spec = protocol_spec(protocol, **given, handoff=handoff, task_timeout=task_timeout)
        check_grading(engine, workers)
        check_mockllm_offline()
        if spec.kernel:  # no silent fallback to the host
            from wspbench.sandbox import SandboxUnavailable, check

            try:
                check()
            except SandboxUnavailable as error:
                raise ValueError(f"the {spec.name} protocol needs a sandbox: {error}") from None
        chosen = [one for one in select(selector) if spec.name in one.protocols]  # identify: one-shot and agent
        if not chosen:
            raise ValueError(f"no task of {selector!r} has the {spec.name} protocol")
        samples = [sample(one, spec, facts) for one in chosen]
    except ValueError as error:  # an unknown task or protocol, a bad count: a usage error
        raise usage_error(f"wspbench/weight_programming: {error}") from None
    grading = Grading(engine, workers)
    return Task(
        dataset=MemoryDataset(samples, name="wspbench"),
        solver=conversation(spec, grading),
        scorer=registry_score(episodes, engine, workers, spec.secret_held_out),
        metadata={"suite": facts, **spec.to_json()},
    )


def protocol_spec(protocol, **given) -> Protocol:
    """The protocol as `wsp run` makes it (`wspbench.protocols.make`), or ValueError naming the first `-T` value it
    would refuse. `inspect eval` reads `-T` values as YAML, so a count may arrive as a float, a bool or a list: each
    is refused, never rounded or taken as 1."""
    if not isinstance(protocol, str) or protocol not in protocols.names():
        raise ValueError(f"-T protocol={protocol!r:.40}: choose one of {', '.join(protocols.names())}")
    for name, value in given.items():
        if value is not None:
            try:
                protocols.check(protocols.SETTINGS[name], value)
            except ValueError:
                raise ValueError(f"-T {name}={value!r:.40}: {name} must be {protocols.SETTINGS[name].rule}") from None
    return protocols.make(protocol, **given)


def check_grading(engine, workers) -> None:
    """ValueError naming a `-T engine` or `-T workers` that `wsp run` would refuse (`harness/settings.py`)."""
    for name, value in (("engine", engine), ("workers", workers)):
        try:
            check_setting(name, value)
        except ValueError as error:
            raise ValueError(f"-T {name}={value!r:.40}: {error}".replace("must be one of", "choose one of")) from None


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
def conversation(spec: Protocol, grading: Grading):
    """The protocol `spec`, by the engine `wsp run` drives (`wspbench/protocols/conversation.py`) and, for a protocol
    whose replies act through blocks, the same sandboxed kernel (`wspbench/harness/agent.py`, whose task.md is the
    sample's prompt): each reply the conversation scores on training episodes is graded there, each follow-up sent
    (or, at a handoff, a fresh conversation). The answer to grade is left in the store for the scorer, each
    round's parse error, training score, feedback and blocks in ROUNDS."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        chosen = get_task(state.metadata["task"])
        talk = Conversation(chosen, spec)

        def play(candidate: Candidate, episodes: list[int]) -> WspScore:
            return chosen.grade_checked(candidate.read, episodes, grading)

        history = []
        kernel = await anyio.to_thread.run_sync(open_kernel, talk) if spec.kernel else None
        try:
            while True:
                state = await generate(state)
                turn = await off_loop(talk.reply, *texts(state.output))
                if kernel is not None:
                    await off_loop(act, talk, turn, kernel, play)
                episodes = talk.to_train(turn)
                if episodes:
                    talk.trained(turn, await off_loop(chosen.grade_checked, turn.read, episodes, grading))
                history.append(
                    {
                        "round": turn.number,
                        "parse_error": turn.error,
                        "train": None if turn.train is None else turn.train.to_json(),
                        "feedback": turn.feedback,
                        "blocks": [block_json(b) for b in turn.blocks],
                    }
                )
                follow_up = talk.follow_up(turn)
                if follow_up is None:
                    break
                if talk.handoff_due(turn):
                    state.messages = chat_messages(await off_loop(hand_off, talk, kernel, follow_up))
                else:
                    state.messages.append(ChatMessageUser(content=follow_up))
        finally:
            if kernel is not None:
                await anyio.to_thread.run_sync(kernel.close)
        return graded(state, talk, history)

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
        if answer is None:  # a reply the solver did not read (another solver's): read as the engine reads it
            answer = (await off_loop(Conversation(chosen, protocols.ONE_SHOT).reply, *texts(state.output))).text
        key = held_out.task_key(secret, chosen.id) if secret and chosen.secret_episodes else None
        drawn = chosen.held_out_episodes(episodes, key)
        result = await off_loop(chosen.grade, answer, drawn, Grading(engine, workers))
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
