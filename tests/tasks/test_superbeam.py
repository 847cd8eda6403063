"""The SUPERBEAM task (wspbench/tasks/superbeam.py): answer parsing (untrusted text), scoring, the episode
loop, feedback and the `wsp superbeam` commands."""

import json
import re

import numpy as np
import pytest
from typer.testing import CliRunner

from wspbench.answers.json_network import MAX_ANSWER_CHARS, parse_answer, weights_json
from wspbench.cli import app
from wspbench.evaluation import Grading
from wspbench.networks import SUPERBEAM_NETWORK
from wspbench.tasks import AnswerError, Score, get_task
from wspbench.tasks.spec import Step, prompt_hash
from wspbench.tasks.superbeam import (
    DIFFICULTY,
    FRAME_SKIP,
    MAX_FRAMES,
    POOL_LEVELS,
    TEST_LEVELS,
    TRAIN_LEVELS,
    reference_weights,
    task_prompt,
)

TASK = get_task("superbeam")

# The reference network on the held-out levels, measured with superbeam/task.py before the task moved into
# wspbench: (level, won, progress, frames). 17 of 20 won.
REFERENCE_ON_TEST_LEVELS = [
    (1000000, True, 1.0, 354),
    (1000001, True, 1.0, 378),
    (1000002, True, 1.0, 358),
    (1000003, True, 1.0, 354),
    (1000004, True, 1.0, 370),
    (1000005, True, 1.0, 370),
    (1000006, True, 1.0, 354),
    (1000007, True, 1.0, 358),
    (1000008, True, 1.0, 354),
    (1000009, False, 0.893, 333),
    (1000010, True, 1.0, 354),
    (1000011, True, 1.0, 358),
    (1000012, False, 0.125, 43),
    (1000013, True, 1.0, 382),
    (1000014, False, 0.267, 93),
    (1000015, True, 1.0, 370),
    (1000016, True, 1.0, 378),
    (1000017, True, 1.0, 366),
    (1000018, True, 1.0, 366),
    (1000019, True, 1.0, 378),
]
PROMPT_HASH = "5df80e4d30e3c3d4781f5ec75f564e3f5b47358ef845b623c1af4b87e32e2914"  # superbeam-v1


def zeros():
    return {k: v.tolist() for k, v in SUPERBEAM_NETWORK.zeros().items()}


def answer(obj, fence=True):
    body = json.dumps(obj)
    return f"My reasoning...\n```json\n{body}\n```\nDone." if fence else f"Here: {body} thanks"


def test_constants_and_facts():
    assert TRAIN_LEVELS == list(range(10)) and TEST_LEVELS == list(range(1000000, 1000020))
    assert DIFFICULTY == 0.5 and FRAME_SKIP == 4 and MAX_FRAMES == 600
    assert TASK.id == TASK.slug == "superbeam" and TASK.prompt_version == "superbeam-v1"
    assert TASK.scoring_episodes() == TEST_LEVELS and TASK.default_episodes == 20
    assert TASK.training_episodes(3) == TRAIN_LEVELS
    assert TASK.game.max_steps == 150 and TASK.game.input_names[2] == "gap_dist"
    assert TASK.game.action_names[4] == "right+jump" and TASK.network.action_rule == "argmax"


def test_the_prompt_is_unchanged():
    """The prompt text of superbeam-v1, byte for byte: a change must bump PROMPT_VERSION and this hash."""
    assert prompt_hash(TASK.messages()) == PROMPT_HASH
    text = task_prompt()
    for word in ("gap_dist", "walker_dist", "W1: 16 x 8", "right+jump", "```json"):
        assert word in text


def test_reference_network_on_the_test_levels_scores_as_before():
    score = TASK.grade(TASK.offline_answer("reference"))
    assert score.error is None and score.episodes == tuple(TEST_LEVELS)
    got = [(r["seed"], r["won"], r["progress"], r["frames"]) for r in score.metadata["detail"]]
    assert got == REFERENCE_ON_TEST_LEVELS
    assert score.metadata["won"] == 17 and score.metadata["levels"] == 20 and score.metadata["mean_progress"] == 0.914
    assert score.normalized == score.raw == 0.85
    assert score.values == tuple(1.0 if won else 0.0 for _, won, _, _ in REFERENCE_ON_TEST_LEVELS)
    # a decision every FRAME_SKIP frames; the last one may end the level early
    assert score.lengths == tuple(-(-frames // FRAME_SKIP) for *_, frames in REFERENCE_ON_TEST_LEVELS)
    assert Score.from_json(json.loads(json.dumps(score.to_json()))) == score


def test_watch_is_the_scored_episode_step_by_step():
    weights = reference_weights()
    steps: list[Step] = []
    value, length, summary = TASK.watch(weights, 1000012, steps.append)
    assert (value, length) == (0.0, 11) and summary["cause"] == "hit a walker" and summary["frames"] == 43
    assert len(steps) == length + 1 and steps[-1].logits is None and steps[-1].action is None
    assert all(s.screen.shape == (32, 64) and set(np.unique(s.screen)) <= {0, 1} for s in steps)
    assert all(int(np.argmax(s.logits)) == s.action and s.value == 0.0 for s in steps[:-1])
    won = []
    assert TASK.watch(weights, 1000000, won.append)[:2] == (1.0, 89) and won[-1].value == 1.0
    assert TASK.watch(weights, 1000012) == (value, length, summary)  # no observer: the same episode


def test_many_levels_play_in_the_workers_exactly_as_here():
    levels = list(range(POOL_LEVELS + 2))
    weights, counted = reference_weights(), []
    values, lengths, details = TASK.play(weights, levels, Grading(workers=2, progress=counted.append))
    assert [(v, n, d) for v, n, d in zip(values, lengths, details["detail"], strict=True)] == [
        TASK.watch(weights, level) for level in levels
    ]
    assert sum(counted) == len(levels)
    alone = TASK.play(weights, levels, Grading(workers=1))  # one worker: in this process, as MinAtar's engine plays
    assert (alone[0], alone[1]) == (values, lengths)


def test_watch_plays_the_classic_level():
    screens = []
    value, length, summary = TASK.watch(reference_weights(), "classic", lambda step: screens.append(step.screen))
    assert value == 1.0 and summary["won"] and len(screens) == length + 1 > 50


def test_other_difficulties_are_explicit():
    easy = TASK.at_difficulty(0.2)
    assert TASK.at_difficulty(DIFFICULTY) is TASK and easy.difficulty == 0.2 and TASK.difficulty == DIFFICULTY
    assert easy.score(reference_weights(), [0]).metadata["difficulty"] == 0.2
    assert TASK.seeds()["difficulty"] == DIFFICULTY


def test_parses_fenced_bare_and_last_block():
    w = zeros()
    w["b2"] = [0, 0, 1, 0, 0, 0]
    first = zeros()
    text = answer(first) + "\nRevised:\n" + answer(w)
    got = parse_answer(text)
    assert got["b2"].tolist() == [0, 0, 1, 0, 0, 0] and got["W1"].shape == (16, 8)
    assert got["W1"].dtype == np.float64
    assert parse_answer(answer(w, fence=False))["b2"][2] == 1
    assert parse_answer(weights_json(reference_weights()))["W2"][4][0] == 10
    assert TASK.parse(TASK.offline_answer("zero"))["W1"].sum() == 0 and TASK.offline_answer("other") is None


@pytest.mark.parametrize(
    "text,message",
    [
        ("I think the weights should be small.", "no JSON object"),
        ('```json\n{"W1": [1, 2,\n```', "does not parse"),
        (answer([1, 2, 3]), "no JSON object"),
        (answer({"W1": [[0] * 8] * 16, "b1": [0] * 16, "W2": [[0] * 16] * 6}), "lacks b2"),
        (answer({**zeros(), "W1": [[0] * 8] * 15}), "W1 must be 16 lists of 8 numbers"),
        (answer({**zeros(), "W1": [[0] * 7] * 16}), "W1 must be 16 lists of 8 numbers"),
        (answer({**zeros(), "b1": [[0]] * 16}), "b1 holds [0], not a number"),
        (answer({**zeros(), "b2": [0, 0, "1", 0, 0, 0]}), "not a number"),
        (answer({**zeros(), "b2": [0, 0, True, 0, 0, 0]}), "not a number"),
        ('```json\n{"W1": [], "b1": [NaN]}\n```', "NaN"),
        ("```json\n" + json.dumps(zeros()).replace("0.0", "1e999", 1) + "\n```", "non-finite"),
        ("x" * (MAX_ANSWER_CHARS + 1), "limit"),
    ],
)
def test_malformed_answers_give_clear_errors_and_score_0(text, message):
    with pytest.raises(AnswerError, match=re.escape(message)):
        parse_answer(text)
    score = TASK.grade(text, [0])
    assert score.normalized == 0 and score.values == () and message.split()[0] in score.error
    assert "could not use" in TASK.feedback(score)


def test_deeply_nested_json_is_an_error_not_a_crash():
    text = '```json\n{"W1": ' + "[" * 100_000 + "]" * 100_000 + "}\n```"
    with pytest.raises(AnswerError):
        parse_answer(text)


def test_reference_network_on_training_levels_and_its_feedback():
    score = TASK.grade(TASK.offline_answer("reference"), TRAIN_LEVELS)
    assert score.error is None and score.metadata["won"] == 9
    assert TASK.train_key(score) == (9, score.metadata["mean_progress"])
    text = TASK.feedback(score)
    assert text.startswith("Your network on 10 training levels: won 9, mean progress 96%.\n  level 0: won\n")
    assert '  level 4: hit a walker at 64% of the level; inputs at that moment: {"standing": 0.0,' in text
    for r in score.metadata["detail"]:
        assert set(r) >= {"seed", "won", "progress", "coins", "cause", "where"}
        assert (r["cause"] is None) == r["won"]


def test_zero_and_always_right_networks_do_poorly():
    zero = TASK.grade(answer(zeros()), TRAIN_LEVELS[:3])
    assert zero.metadata["won"] == 0 and zero.metadata["mean_progress"] == 0
    assert "ran out of time" in zero.metadata["detail"][0]["cause"] and zero.lengths == (150, 150, 150)
    right = zeros()
    right["b2"] = [0, 0, 1, 0, 0, 0]
    score = TASK.grade(answer(right), TRAIN_LEVELS[:3])
    assert score.metadata["won"] == 0 and all(
        r["cause"] == "fell into a gap" or "time" in r["cause"] for r in score.metadata["detail"]
    )


def test_cli_grade_and_play(tmp_path):
    runner = CliRunner()
    good = tmp_path / "answer.txt"
    good.write_text(answer(json.loads(weights_json(reference_weights()))))
    r = runner.invoke(app, ["superbeam", "grade", str(good), "--levels", "0..1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["episodes"] == [0, 1]
    r = runner.invoke(app, ["superbeam", "grade", str(good), "--levels", "2,3"])
    assert r.exit_code == 0 and "won" in r.output
    bad = tmp_path / "bad.txt"
    bad.write_text("no weights here")
    r = runner.invoke(app, ["superbeam", "grade", str(bad)])
    assert r.exit_code == 1 and "score 0" in r.output
    r = runner.invoke(app, ["superbeam", "grade", str(bad), "--json"])
    assert r.exit_code == 1 and json.loads(r.output)["error"].startswith("no JSON object")
    for levels in ("classic", "5..2", "x", ","):
        assert runner.invoke(app, ["superbeam", "grade", str(good), "--levels", levels]).exit_code == 2
    gif = tmp_path / "run.gif"
    r = runner.invoke(app, ["superbeam", "play", "--level", "classic", "--gif", str(gif), "--no-show"])
    assert r.exit_code == 0 and "won" in r.output and gif.stat().st_size > 1000
    r = runner.invoke(app, ["superbeam", "play", "--weights", str(bad), "--no-show"])
    assert r.exit_code == 1


def test_cli_grade_defaults_to_the_test_levels_like_wsp_grade(tmp_path):
    """`wsp superbeam grade NET` and `wsp grade superbeam NET` print the same Score (but for the time taken)."""
    path = tmp_path / "net.json"
    path.write_text(weights_json(reference_weights()))
    runner = CliRunner()
    own = runner.invoke(app, ["superbeam", "grade", str(path), "--json"])
    common = runner.invoke(app, ["grade", "superbeam", str(path), "--json"])
    assert own.exit_code == common.exit_code == 0, own.output + common.output
    own, common = json.loads(own.output), json.loads(common.output)
    own.pop("seconds"), common.pop("seconds")
    assert own == common and own["episodes"] == TEST_LEVELS and own["normalized"] == 0.85


@pytest.mark.parametrize(
    "text, message",
    [
        ('```json\n{"W1": [], "notes": ' + "[" * 50_000 + "]" * 50_000 + "}\n```", "nested too deeply"),
        ('Here: {"W1": [], "notes": ' + "[" * 50_000 + "]" * 50_000 + "} done", "nested too deeply"),
        ("[" * 199_000, "no JSON object"),
        ('```json\n{"W1": ' + "[" * 199_000 + "\n```", "nested too deeply"),
        ('```json\n{"W1": ' + "1" * 5000 + "}\n```", "more than 4,300 digits"),
        ('Here: {"W1": ' + "1" * 5000 + "} done", "more than 4,300 digits"),
        ('```json\n{"W1": 1e' + "9" * 5000 + "}\n```", "lacks b1"),
        ("```json\n" + json.dumps(zeros()).replace("0.0", "1" + "0" * 400, 1) + "\n```", "non-finite"),
        ("```json\n" + json.dumps(zeros()).replace("0.0", "Infinity", 1) + "\n```", "Infinity"),
        ("```json\n" + json.dumps(zeros()).replace("0.0", "-Infinity", 1) + "\n```", "-Infinity"),
        ('```json\n{"W1": 1, "b2": 2, "W1": 3}\n```', 'the key "W1" twice'),
        ('```json\n{"W1": 1, "x": {"a": 1, "a": 2}}\n```', 'the key "a" twice'),
        ("```json\n" + json.dumps({**zeros(), "b1": ["x" * 100_000] + [0] * 15}) + "\n```", "not a number"),
    ],
)
def test_hostile_json_gives_a_short_clear_error(text, message):
    with pytest.raises(AnswerError, match=re.escape(message)) as error:
        parse_answer(text)
    assert len(str(error.value)) <= 300


def test_every_level_a_superbeam_task_plays_is_winnable():
    """The winnability proof (superbeam.physics.solve) covers exactly the levels the generator's tasks use:
    training levels, the seed's test levels and the extended ones, each at the difficulty it is played at
    (superbeam/hard ships a certificate for each of its levels: test_hard_levels_are_the_kept_ones)."""
    from superbeam import physics
    from superbeam.levels import generate

    checked = set()
    for task in (get_task("superbeam"), get_task("superbeam/extended")):
        for level in task.training_episodes(10) + task.scoring_episodes():
            checked.add((level, task.level_difficulty(level)))
    unsolved = [(level, d) for level, d in sorted(checked) if physics.solve(generate(level, d)) is None]
    assert unsolved == [] and len(checked) == 10 + 20 + 256


def test_extended_levels_take_the_tiers_in_turn_and_report_each():
    from wspbench.tasks.superbeam import EXTENDED_LEVELS, TEST_LEVELS, TIERS, TRAIN_LEVELS

    task = get_task("superbeam/extended")
    levels = task.scoring_episodes()
    assert len(levels) >= 200 and not set(levels) & set(TEST_LEVELS + TRAIN_LEVELS) and levels == EXTENDED_LEVELS
    assert [task.level_difficulty(level) for level in task.scoring_episodes(8)] == list(TIERS) * 2
    assert task.level_difficulty(TRAIN_LEVELS[0]) == 0.5 and task.training_episodes(3) == TRAIN_LEVELS
    score = task.grade(task.offline_answer("reference"), task.scoring_episodes(8))
    tiers = score.metadata["tiers"]
    assert list(tiers) == [str(t) for t in TIERS] and all(tier["levels"] == 2 for tier in tiers.values())
    assert sum(tier["won"] for tier in tiers.values()) == sum(score.values)
    assert get_task("superbeam").scoring_episodes() == TEST_LEVELS  # the seed's task is unchanged


# --- superbeam/hard ----------------------------------------------------------------------------------

HARD = get_task("superbeam/hard")
HARD_PROMPT_HASH = "9ecad4893e49b2d1831516a471ed8808963738e992f492a8865699468d6541d3"  # superbeam-hard-v1
# The reference network on the first hard held-out levels: (level, won, progress, frames); 35 of all 128 won.
REFERENCE_ON_HARD_LEVELS = [
    (3000001, False, 0.27, 98),
    (3000002, True, 1.0, 366),
    (3000003, False, 0.62, 227),
    (3000005, False, 0.186, 65),
    (3000007, True, 1.0, 374),
    (3000009, False, 0.284, 103),
]


def test_hard_levels_are_the_kept_ones():
    """The shipped levels are exactly the first kept seeds from HARD_TRAIN_FIRST and HARD_TEST_FIRST (every seed
    between them rejected), and each certificate wins its level on the twin; a few win on the emulator too."""
    from superbeam import physics
    from superbeam.env import SuperBeamEnv
    from superbeam.levels import generate_hard
    from wspbench.tasks.superbeam import (
        HARD_TEST_COUNT,
        HARD_TEST_FIRST,
        HARD_TRAIN_FIRST,
        hard_certificate,
        hard_levels,
    )

    shipped = hard_levels()
    for part, first, count in (("training", HARD_TRAIN_FIRST, 10), ("test", HARD_TEST_FIRST, HARD_TEST_COUNT)):
        seeds = list(shipped[part])
        assert len(seeds) == count and seeds[0] >= first
        assert {seed: hard_certificate(seed) for seed in range(first, seeds[-1] + 1)} == {
            seed: shipped[part].get(seed) for seed in range(first, seeds[-1] + 1)
        }
    for seed, actions in {**shipped["training"], **shipped["test"]}.items():
        game, frames = physics.Game(generate_hard(seed)), 0
        for action in map(int, actions):
            frames += physics.step(game, action, FRAME_SKIP, MAX_FRAMES, frames)
        assert game.status == physics.WON, seed
    for seed in list(shipped["test"])[::40]:
        env = SuperBeamEnv(generate_hard(seed), frame_skip=FRAME_SKIP, max_frames=MAX_FRAMES)
        info = [env.step(int(action))[4] for action in shipped["test"][seed]][-1]
        assert info["won"], seed


def test_hard_task_plays_the_hard_levels_and_says_so():
    from superbeam.levels import generate_hard
    from wspbench.tasks.superbeam import hard_levels

    assert HARD.prompt_version == "superbeam-hard-v1" and prompt_hash(HARD.messages()) == HARD_PROMPT_HASH
    assert prompt_hash(TASK.messages()) == PROMPT_HASH  # the seed's prompt is unchanged
    text = HARD.messages()[1]["content"]
    assert text.startswith(task_prompt().split("THE NETWORK.")[0].rstrip())
    assert "a pipe 8 or 16 px wide, then a gap 8 or 16 px wide" in text and "has 2 walkers" in text
    assert HARD.scoring_episodes() == list(hard_levels()["test"]) and HARD.default_episodes == 128
    assert HARD.training_episodes(3) == list(hard_levels()["training"]) and HARD.scoring_episodes(2)[1] == 3000002
    assert HARD.level(3000002) == generate_hard(3000002) and HARD.level_environment(3000002).level.name == (
        "hard level 3000002"
    )
    assert HARD.seeds()["difficulty"] == "hard" and HARD.game == TASK.game


def test_reference_and_held_actions_on_the_hard_levels():
    """The keep rules over the shipped set: no held action wins a level, the reference network 35 of 128."""
    from wspbench.baselines.measured import constant_weights

    score = HARD.grade(HARD.offline_answer("reference"))
    got = [(r["seed"], r["won"], r["progress"], r["frames"]) for r in score.metadata["detail"]]
    assert got[: len(REFERENCE_ON_HARD_LEVELS)] == REFERENCE_ON_HARD_LEVELS
    assert score.metadata["won"] == 35 and score.metadata["levels"] == 128 and score.metadata["difficulty"] == "hard"
    assert score.normalized == 35 / 128 and score.metadata["mean_progress"] == 0.565
    levels = HARD.scoring_episodes()[:16]
    for action in range(6):
        assert HARD.score(constant_weights(HARD.network, action), levels).metadata["won"] == 0


def test_hard_draws_keep_a_level_only_as_the_fixed_ones_are_kept():
    from wspbench.tasks.held_out import draw
    from wspbench.tasks.superbeam import SECRET_LEVELS, hard_certificate

    key = "ab" * 32
    drawn = HARD.held_out_episodes(20, key)
    candidates = draw(key, 40, *SECRET_LEVELS)
    kept = [level for level in candidates if hard_certificate(level) is not None]
    assert drawn == kept[:20] and drawn[:3] == [373926855, 927359696, 1029908160] and len(kept) < len(candidates)
    assert HARD.held_out_episodes(5, key) == drawn[:5] and HARD.held_out_episodes(5) == HARD.scoring_episodes(5)
