"""issue 53: held-out episodes a kernel cannot know, and a kernel that cannot fail its task.

The attacks as the finding wrote them, each through `run_task` in the real sandbox: a python block that replays the
seed rule's scoring episodes with the game's own source (on 37e7731 it printed the grader's held-out values), and
blocks that forge the kernel's replies on its channel (on 37e7731 the task ended as an error, outside every mean,
and a resumed run asked it again). Plus the draws themselves: reproducible from the published key, apart from every
episode a prompt names, and the fixed episodes kept where the contract has them (one-shot, `wsp verify`)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from tests.conftest import need_sandbox
from wspbench.cli import app
from wspbench.evaluation import ONE_WORKER
from wspbench.harness.clients import OfflineClient
from wspbench.harness.protocols import run_task
from wspbench.harness.record import Reply, RunConfig, TaskRecord
from wspbench.harness.runs import RunDir, build_manifest, run_batch
from wspbench.harness.summary import run_scores
from wspbench.protocols import ONE_SHOT, make
from wspbench.tasks import get_task

UP = "```edits\nb3[2] = 10\n```\n"  # freeway: always up (the logits are b3: every layer's sum is 0)
REPLAY = """
import types
import numpy as np
game = types.ModuleType("freeway")
exec(open("game.py").read(), game.__dict__)  # minatar/environments/freeway.py, as the prompt shows it
logits = np.array([0, 0, 10, 0, 0, 0], dtype=np.float32).astype(np.float64)
p = np.exp(logits - logits.max())
p /= p.sum()
values = []
for e in range(10):  # the seed rule of the one-shot prompt: episode e seeds the game with 1729 + e ...
    env = game.Env(ramping=False)
    env.random = np.random.RandomState(1729 + e)
    env.reset()
    actions, last, total = np.random.RandomState(7919 + e), 0, 0.0
    for step in range(2501):
        a = int(actions.choice(6, p=p))
        if env.random.rand() < 0.1:  # sticky, as minatar's Environment wrapper does it
            a = last
        last = a
        reward, done = env.act(a)
        total += reward
        if done:
            break
    values.append(total)
print(values)
"""


@pytest.fixture
def sandbox():
    need_sandbox()


def agent_config(**more) -> RunConfig:
    settings = {"rounds": 4, "episodes": 10, "train_episodes": 2, "passes": 2, **more}
    return RunConfig("reference-agent", protocol=make("agent", **settings))


def test_a_replay_of_the_seed_rule_in_the_kernel_tells_nothing_of_the_held_out_episodes(sandbox):
    """The replay works (it equals the grader on the seed rule's episodes 0..9), yet the grade is on episodes
    drawn by the run's secret: none of them is an episode the seed rule or a prompt names, and the record's key
    draws them again."""
    task = get_task("original/freeway")
    replies = [Reply(f"````python\n{REPLAY}````\n"), Reply(f"````submit\n{UP}````\n")]
    rec = run_task(task, OfflineClient("reference-agent"), agent_config(), paid=replies, workers=1)
    assert rec.status == "ok", rec.error
    replayed = json.loads(rec.rounds[0].blocks[0].output)
    assert replayed == list(task.grade(UP, list(range(10)), ONE_WORKER).values) and sum(replayed) > 0
    assert not set(rec.test.episodes) & set(range(300_000))  # scoring, training and calibration episodes
    assert task.grade(UP, rec.test.episodes, ONE_WORKER).values == rec.test.values
    prompt = "\n".join(m["content"] for m in rec.messages if "content" in m)
    assert all(str(e) not in prompt for e in rec.test.episodes) and rec.held_out_key not in prompt
    from wspbench.tasks.held_out import draw

    assert list(rec.test.episodes) == draw(rec.held_out_key, 10, 1_000_000, 2**30)  # the published key draws them
    assert rec.seeds["held_out"] == "drawn by the run's secret" and "scoring_episodes" not in rec.seeds


def test_feedback_draws_its_held_out_episodes_and_one_shot_keeps_the_fixed_ones(tmp_path):
    """The protocol decides: feedback (and agent) grade on drawn episodes, which `wsp grade --held-out-key` plays
    again; one-shot grades the seed's episodes 0..N-1, with no key."""
    from wspbench.tasks.held_out import draw

    task = get_task("synth/ferry")
    feedback = RunConfig("reference", protocol=make("feedback", rounds=1, episodes=5, train_episodes=2))
    drawn = run_task(task, OfflineClient("reference"), feedback, workers=1)
    fixed = run_task(
        task, OfflineClient("reference"), RunConfig("reference", protocol=make("one-shot", episodes=5)), workers=1
    )
    assert drawn.status == fixed.status == "ok" and feedback.held_out == "secret"
    assert list(fixed.test.episodes) == [0, 1, 2, 3, 4] and fixed.held_out_key is None
    assert list(drawn.test.episodes) == draw(drawn.held_out_key, 5, 1_000_000, 2**30)
    answer = tmp_path / "answer.txt"
    answer.write_text(task.offline_answer("reference"))
    again = CliRunner().invoke(
        app, ["grade", task.id, str(answer), "--episodes", "5", "--held-out-key", drawn.held_out_key, "--json"]
    )
    assert again.exit_code == 0, again.output
    shown = json.loads(again.output)
    assert shown["episodes"] == list(drawn.test.episodes) and shown["values"] == list(drawn.test.values)
    bad = CliRunner().invoke(app, ["grade", task.id, str(answer), "--held-out-key", "x"])
    assert bad.exit_code == 2 and "64 hexadecimal digits" in bad.output


def test_a_run_keeps_its_secret_out_of_the_records_and_resumes_with_it(tmp_path):
    """The run directory holds the secret (readable by its owner only); records publish their task's key, never
    the secret; the same directory draws the same episodes when a task runs again."""
    from wspbench.tasks.held_out import task_key

    task = get_task("synth/ferry")
    config = RunConfig("reference", protocol=make("feedback", rounds=1, episodes=4, train_episodes=2))
    run_dir = RunDir(tmp_path / "run")
    run_dir.open(build_manifest(config, [task]))
    run_batch(run_dir, [task], OfflineClient("reference"), config, workers=1)
    secret = (tmp_path / "run" / "held-out.secret").read_text().strip()
    assert (tmp_path / "run" / "held-out.secret").stat().st_mode & 0o777 == 0o600
    first = TaskRecord.from_json(json.loads((tmp_path / "run" / "tasks" / "synth-ferry.json").read_text()))
    assert first.held_out_key == task_key(secret, task.id)
    for path in (tmp_path / "run").rglob("*.json"):
        assert secret not in path.read_text()
    (tmp_path / "run" / "tasks" / "synth-ferry.json").unlink()
    again = RunDir(tmp_path / "run")
    again.open(build_manifest(config, [task]))
    run_batch(again, [task], OfflineClient("reference"), config, workers=1)
    second = TaskRecord.from_json(json.loads((tmp_path / "run" / "tasks" / "synth-ferry.json").read_text()))
    assert second.test.episodes == first.test.episodes


def test_drawn_episodes_of_every_family_that_plays_them():
    """Each game family draws from its own range: MinAtar from SECRET_EPISODES, repair from its game's, SUPERBEAM
    from SECRET_LEVELS (superbeam/extended going round its difficulties as its fixed levels do, superbeam/hard keeping
    only the levels its fixed ones would keep: tests/tasks/test_superbeam.py); identify has no
    episodes to hide. A draw of n is the first n of a longer one."""
    from wspbench.tasks.held_out import new_secret, task_key

    key = task_key(new_secret(), "x")
    for task_id, count in (
        ("original/breakout", 7),
        ("repair/freeway/swap_actions", 60),
        ("superbeam", 20),
        ("superbeam/hard", 6),
    ):
        task = get_task(task_id)
        first, size = task.secret_episodes
        episodes = task.held_out_episodes(count, key)
        assert len(set(episodes)) == count and all(first <= e < first + size for e in episodes)
        assert episodes[:5] == task.held_out_episodes(5 if task_id != "repair/freeway/swap_actions" else 50, key)[:5]
    extended = get_task("superbeam/extended")
    levels = extended.held_out_episodes(8, key)
    assert [extended.level_difficulty(level) for level in levels] == [0.3, 0.5, 0.7, 0.9] * 2
    identify = next(t for t in __import__("wspbench").all_tasks() if t.family == "identify-choice")
    assert identify.held_out_episodes(None, key) == identify.scoring_episodes()


FORGE = """
import json, os, struct, sys
def forge(message):
    data = json.dumps(message).encode()
    os.write(201, struct.pack(">I", len(data)) + data)
frame = sys._getframe()
while frame is not None and "request" not in frame.f_locals:
    frame = frame.f_back
asked = frame.f_locals["request"].get("id")
"""


@pytest.mark.parametrize(
    "forged",
    [
        "forge({'status': 'ok', 'output': 'forged', 'bytes': 6})",
        "forge({'id': asked, 'status': 'ok', 'output': 'forged', 'bytes': 6})",
        "forge({'id': asked, 'status': 'ok', 'output': 'forged', 'bytes': 6}); forge({'data': 5})",
    ],
    ids=["the finding as written", "its own request's id", "a read's answer as well"],
)
def test_a_block_that_forges_the_channel_cannot_fail_its_task(sandbox, tmp_path, forged):
    """The forged reply answers at most its own block; the play that reads `file answer.txt` next and the
    handoff's notebook read meet a lost kernel (the play is unusable, the handoff has no notebook); the task ends
    graded on its submission and counts in the means; a resumed run asks nothing again."""
    task = get_task("synth/ferry")
    answer = task.offline_answer("reference")
    write = f"open('answer.txt', 'w').write({answer!r})\nopen('notebook.md', 'w').write('notes')"
    replies = [
        f"````python\n{write}\n````\n````python\n{FORGE}{forged}\n````\n```play\nfile answer.txt\n```\n",
        f"````python\n{FORGE}{forged}\n````\n",
        f"````submit\n{answer}````\n",
    ]
    config = agent_config(handoff=2)
    run_dir = RunDir(tmp_path / "run")
    run_dir.open(build_manifest(config, [task]))
    client = ScriptedClient(replies)
    run_batch(run_dir, [task], client, config, workers=1)
    rec = RunDir(tmp_path / "run").record(task.id)
    assert rec.status == "ok" and rec.error is None and rec.test is not None and rec.test.normalized > 0
    play = rec.rounds[0].blocks[2]
    assert play.kind == "play" and play.status == "unusable" and play.passes == 0, play
    handoff = next(m["content"] for m in rec.messages if m.get("handoff"))
    assert "You have no notebook.md" in handoff or "Your notebook.md" in handoff
    manifest, records = RunDir(tmp_path / "run").read()
    assert run_scores(manifest, records)["writing"]["tasks"] == 1
    asked = client.asked
    run_batch(RunDir(tmp_path / "run"), [task], client, config, workers=1)  # resumed: the task is done
    assert client.asked == asked == 3


class ScriptedClient(OfflineClient):
    """The offline client's record-keeping with replies written in the test, counted as they are asked."""

    def __init__(self, replies: list[str]):
        super().__init__("reference-agent")
        self.replies, self.asked = list(replies), 0

    def complete(self, messages, task, status=None, sample=0):
        self.asked += 1
        return Reply(self.replies[self.asked - 1])


def test_prompts_state_how_episodes_are_seeded_without_the_held_out_ones():
    """Feedback and agent prompts give the seed rule and the range the draws come from, never a held-out episode;
    one-shot's prompt is the seed's, episodes 0..N-1."""
    task = get_task("original/freeway")
    one_shot = task.messages(ONE_SHOT)[1]["content"]
    assert "Episode e (e = 0..999) seeds the game with 1729 + e" in one_shot
    for name in ("feedback", "agent"):
        text = task.messages(make(name, rounds=4, train_episodes=100))[1]["content"]
        assert (
            "drawn at random from e = 1,000,000..1,074,741,823" in text and "Episode e seeds the game with 1729" in text
        )
        assert "e = 0..999" not in text
