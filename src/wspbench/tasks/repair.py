"""The repair family: fix a broken network in one reply. A network that PPO trained on a MinAtar game (`ppo.py`; its
reading set's repair seed, `reading_set.py`) gets one documented, seeded damage (DAMAGES); the prompt shows the
game, the damaged weights and the damaged and trained networks' scores, and the reply's ```edits block is applied
ON TOP of the damaged network (so `+=` and `*=` act on its weights). The score is the return the edited network
gains over the damaged one, episode by episode, divided by the trained network's gain on the same episodes and
clipped to [0, 1], times the share of the trained network's behaviour the edit restores (`restored`): 0 for the
damaged network, 1 for the trained one.

A repair is judged as a repair, not as a new policy (a new program can out-play a weak trained network): a reply may
change at most STRAY_LIMIT weights outside the damage's reach (the weights its kind addresses: `reach`), and the
return it gains counts only in proportion to the behaviour it restores, measured on the states the trained network
meets in the episodes played. Wiping the network and writing a program scores 0 (tests/tasks/test_reading.py).

`repair/<game>/<damage>` (exports show an opaque id: the damage is the answer). A game has one repair network per
round of ROUNDS (`reading_set.repair_seeds`), and each network ONE task: a prompt per damage of one network would show
it under several damages, and the value most of them show for each weight is the undamaged one (docs/reading.md,
"Floors"). Its kinds are suite 4's, each of which leaves a signature a careful reader finds at once; suite 10's
deeper kinds (units moved, scaled) were undone by statistics of the prompt alone and are gone (docs/reading.md, "The
deep damages"). Which kind a network gets is `chosen_kind` (a seeded order, the first kind that costs a clear share
of the return: `clear_kinds`), and which units, channels or actions it hits was chosen by `benchmarks/damage.py` on
training episodes (the first seeded choice that costs at least MIN_DROP of the trained network's return); both are
kept, with both networks' returns on the scoring episodes, in the set's `damages.json`. A network that learned
little (damage.py's rule) has no repair task. The reference reply is the exact inverse edit (score 1); `zero` is an
empty edit (score 0). docs/reading.md shows a prompt in full.
"""

from __future__ import annotations

import textwrap
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from wspbench.answers.edits import float32_list
from wspbench.evaluation import DEFAULT, Grading
from wspbench.evaluation.engine import sample_batch
from wspbench.games.minatar import SECRET_EPISODES, MinAtarGame, all_games
from wspbench.networks import MINATAR_NETWORK, Weights
from wspbench.protocols import BUILT_IN, ONE_SHOT, Protocol
from wspbench.tasks.minatar import MinAtarTask, seed_rule
from wspbench.tasks.reading_set import PUBLIC, REPAIR_SEED, ReadingSet
from wspbench.tasks.spec import (
    AnswerError,
    Game,
    GameTask,
    Public,
    Score,
    Task,
    weights_record,
)

REPAIR_PROMPT_VERSION = "repair-v5"
FLIPPED_UNITS = 8  # one unit's flip cost PPO's networks at most 15% of their return (docs/reading.md)
MIN_DROP = 0.3  # a damage must cost at least this share of the trained network's mean return
MAX_DAMAGED_SHARE, MIN_GAP_SE = 0.7, 4.0  # and a task's damage, on the scoring episodes, leave at most 0.7 of it,
# with a gap of at least 4 standard errors (`clear_kinds`)
STRAY_LIMIT = 64  # weights a reply may change outside the damage's reach (room for a repair that compensates elsewhere)
BEHAVIOUR_EPISODES, BEHAVIOUR_STEPS = 20, 100  # `restored` compares the networks on the trained network's first
# BEHAVIOUR_STEPS states in each of the first BEHAVIOUR_EPISODES episodes played
MIN_EPISODES = 50  # fewer scoring or training episodes are raised to this: the two networks' returns differ too
# little in fewer (damage.py keeps a damage only when the trained network is ahead on every first n >= 50 of them)


@dataclass(frozen=True)
class Damage:
    """A kind of damage as the prompt lists it: what it does, and which weights it addresses (its reach)."""

    does: str
    reach: str


DAMAGES = {  # the prompt lists these without saying which one it was
    "swap_actions": Damage("the columns of two actions in W3 are swapped", "the two W3 columns"),
    "flip_units": Damage(
        f"the signs of {FLIPPED_UNITS} layer-1 units' incoming weights (their columns of W1 and biases in b1) are "
        "flipped",
        "the flipped units' W1 columns and b1 entries",
    ),
    "zero_channel": Damage(
        "the 100 rows of W1 that read one input channel are set to 0", "the 100 W1 rows of the channel"
    ),
}  # suite 4 also had bias_shift (one b3 entry raised by 10), which a one-line rule undid without reading, and suite
# 10 scale_units and three permutations of units, which their norms and similarity structures gave away
CLASSIC = ("swap_actions", "flip_units", "zero_channel")  # suite 4's: each leaves a signature a reader finds at once
ROUNDS = (CLASSIC,)  # the kinds each of a game's repair networks (`reading_set.repair_seeds`) can get; one task per
# network, and a game's tasks have different kinds (suite 10 had four more rounds, of its deeper kinds)


def damage(weights: Weights, kind: str, parameter: list[int]) -> Weights:
    """A damaged copy of `weights`. `parameter`: [action, action] (swap_actions); [channel] (zero_channel); the
    units (flip_units)."""
    damaged = {name: np.array(tensor, copy=True) for name, tensor in weights.items()}
    if kind == "swap_actions":
        a, b = parameter
        damaged["W3"][:, [a, b]] = damaged["W3"][:, [b, a]]
    elif kind == "flip_units":
        damaged["W1"][:, parameter] *= -1
        damaged["b1"][parameter] *= -1
    elif kind == "zero_channel":
        (channel,) = parameter
        damaged["W1"][channel::6, :] = 0
    else:
        raise ValueError(f"unknown damage {kind!r} (damages: {', '.join(DAMAGES)})")
    return damaged


def reach(kind: str, parameter: list[int]) -> Weights:
    """Which weights a damage of this kind and parameter addresses (True), tensor by tensor."""
    mask = {name: np.zeros(shape, dtype=bool) for name, shape in MINATAR_NETWORK.shapes.items()}
    if kind == "swap_actions":
        mask["W3"][:, parameter] = True
    elif kind == "flip_units":
        mask["W1"][:, parameter] = True
        mask["b1"][parameter] = True
    elif kind == "zero_channel":
        mask["W1"][parameter[0] :: 6, :] = True
    else:
        raise ValueError(f"unknown damage {kind!r} (damages: {', '.join(DAMAGES)})")
    return mask


def action_probabilities(weights: Weights, observations: np.ndarray) -> np.ndarray:
    """softmax(logits) of each observation (0/1 values, kept small), as the grader samples actions from them: in
    float64, as the grader's observations are, all rows in one product (a distance averaged over thousands of
    states does not depend on the order in which each dot product is summed)."""
    logits = MINATAR_NETWORK.forward_one(weights, np.asarray(observations, dtype=np.float64))
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def distance(weights: Weights, states: np.ndarray, trained: np.ndarray) -> float:
    """The mean total-variation distance of the network's action probabilities from `trained` over `states`."""
    return float(np.abs(action_probabilities(weights, states) - trained).sum(axis=1).mean() / 2)


def inverse(trained: Weights, kind: str, parameter: list[int]) -> str:
    """The edits that turn the damaged network back into exactly `trained` (float32 values written exactly)."""
    if kind == "swap_actions":
        lines = [f"W3[:, {a}] = {float32_list(trained['W3'][:, a])}" for a in parameter]
    elif kind == "flip_units":
        lines = [line for unit in parameter for line in (f"W1[:, {unit}] *= -1", f"b1[{unit}] *= -1")]
    elif kind == "zero_channel":
        (channel,) = parameter
        lines = [f"W1[{i}] = {float32_list(trained['W1'][i])}" for i in range(channel, 600, 6)]
    else:
        raise ValueError(f"unknown damage {kind!r}")
    return "```edits\n" + "\n".join(lines) + "\n```\n"


class RepairTask(GameTask):
    skill = "reading"
    network = MINATAR_NETWORK
    answer_format = "edits"
    protocols = BUILT_IN
    prompt_version = REPAIR_PROMPT_VERSION
    secret_episodes = SECRET_EPISODES  # its game's (`MinAtarTask`)

    def __init__(
        self,
        binding: MinAtarGame,
        kind: str,
        entry: dict,
        trained_returns: list[float],
        source: ReadingSet = PUBLIC,
        seed: int = REPAIR_SEED,
    ):
        self.binding, self.kind, self.entry, self.source, self.seed = binding, kind, entry, source, seed
        self.graded_networks = () if source.name else (f"{binding.game}.{seed}",)
        self.parameter = [int(p) for p in entry["parameter"]]
        self.id = source.task_id("repair", binding.game, kind)
        self.breakdown = kind  # reports give repair's mean per damage kind
        self.private_set = source.private_folder
        self.playing = MinAtarTask(binding)  # the game as its own task plays it
        self.known = {"damaged": dict(enumerate(entry["damaged"])), "trained": dict(enumerate(trained_returns))}
        self.states: dict[tuple, tuple] = {}  # `behaviour`, per set of episodes
        self.default_episodes = self.max_episodes = min(len(entry["damaged"]), len(trained_returns))

    @cached_property
    def game(self) -> Game:
        game, episodes = self.playing.game, self.scoring_episodes()
        return Game(
            game.name,
            self.public().description,
            float(np.mean(np.subtract(self.returns("trained", episodes), self.returns("damaged", episodes)))),
            game.max_steps,
            game.input_shape,
            game.input_names,
            game.action_names,
            game.source_path,
        )

    def public(self) -> Public:
        description = f"repair a PPO network for {self.binding.game} after one of {len(DAMAGES)} kinds of damage"
        return Public(self.source.public_id(self.id, self.prompt_version), self.binding.game, description)

    @cached_property
    def stored(self) -> tuple[Weights, dict]:
        """The trained network before the damage, and its training record."""
        return self.source.network(self.binding.game, self.seed, self.network)

    @property
    def trained(self) -> Weights:
        return self.stored[0]

    @property
    def steps(self) -> int:
        """The environment steps it was trained for."""
        return int(self.stored[1]["steps"])

    @cached_property
    def damaged(self) -> Weights:
        return damage(self.trained, self.kind, self.parameter)

    def shown_network(self) -> Weights:
        return self.damaged

    @cached_property
    def reach(self) -> Weights:
        return reach(self.kind, self.parameter)

    # --- the prompt ---------------------------------------------------------------------------------
    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        from wspbench.tasks.minatar_prompt import MINATAR_SYSTEM

        return [{"role": "system", "content": MINATAR_SYSTEM}, {"role": "user", "content": _prompt(self, protocol)}]

    def game_source(self) -> str:
        return self.playing.game_source()

    # --- answers ------------------------------------------------------------------------------------
    def read(self, text: str) -> tuple[Weights, dict]:
        from wspbench.answers import parse_edits

        weights, edit_count = parse_edits(text, self.network, base=self.damaged)
        changed = {name: weights[name] != self.damaged[name] for name in weights}
        stray = sum(int(np.count_nonzero(changed[name] & ~self.reach[name])) for name in weights)
        if stray > STRAY_LIMIT:
            raise AnswerError(
                f"the edits change {stray:,} weights outside the damage's reach; a repair may change at most "
                f"{STRAY_LIMIT} of those (write edits that undo the damage, not a new network)"
            )
        count = sum(int(np.count_nonzero(mask)) for mask in changed.values())
        return weights, {"edit_count": edit_count, "changed_weights": count, "stray_weights": stray}

    def write(self, weights: Weights) -> str:
        from wspbench.answers.edits import write_edits

        return write_edits(weights, self.network, base=self.damaged)

    def answer_record(self, weights: Weights) -> dict:
        return weights_record(weights, base=self.damaged)  # what the reply changed in the damaged network

    def parse_feedback(self, error: str) -> str:
        return (
            f"I could not use that: {error}. Reply with your reasoning, then one ```edits block (it is applied "
            "to the damaged network again)."
        )

    def offline_answer(self, model: str) -> str | None:
        if model == "reference":
            return f"Undo the damage ({DAMAGES[self.kind].does}).\n" + inverse(self.trained, self.kind, self.parameter)
        return "No change.\n```edits\n```\n" if model == "zero" else None

    # --- scoring ------------------------------------------------------------------------------------
    def scoring_episodes(self, count: int | None = None) -> list[int]:
        """The first `count` scoring episodes, at least MIN_EPISODES and at most max_episodes of them."""
        count = self.default_episodes if count is None else count
        return self.playing.scoring_episodes(count and max(count, MIN_EPISODES))[: self.max_episodes]

    def scoring_rule(self, count: int) -> str:
        return (
            f"the mean return gained over the damaged network in {count} seeded episodes, divided by the trained "
            "network's gain on them and clipped to [0, 1]"
        )

    def training_episodes(self, count: int) -> list[int]:
        return self.playing.training_episodes(max(count, MIN_EPISODES))

    def play(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        """Each episode's return gained over the damaged network's in that same episode, times the behaviour
        restored (`restored`); the mean return itself; and as `episode_caps` the trained network's gain in each
        episode: paired, so that intervals see only how the repair differs from the trained network."""
        values, lengths, details = self.playing.play(weights, episodes, grading)
        damaged = self.returns("damaged", episodes, grading.quiet())
        trained = self.returns("trained", episodes, grading.quiet())
        share = self.restored(weights, episodes)
        return (
            [float(gain) * share for gain in np.subtract(values, damaged)],
            lengths,
            {
                **details,
                "mean_return": float(np.mean(values)),
                "restored": share,
                "episode_caps": list(np.subtract(trained, damaged)),
            },
        )

    def restored(self, weights: Weights, episodes: Sequence[int]) -> float:
        """The share of the trained network's behaviour that `weights` restore: 1 - d(weights) / d(damaged), clipped
        to [0, 1], where d is the mean total-variation distance of the action probabilities from the trained
        network's over the states it meets in these episodes (`behaviour`). 1 for the trained network's
        behaviour, 0 for the damaged network's or anything farther from it."""
        states, trained, damaged = self.behaviour(tuple(episodes[:BEHAVIOUR_EPISODES]))
        return float(np.clip(1 - distance(weights, states, trained) / damaged, 0.0, 1.0))

    def behaviour(self, episodes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, float]:
        """The trained network's first BEHAVIOUR_STEPS observations in each episode, played as the grader plays,
        its action probabilities there and the damaged network's distance from them (kept per set of episodes, as
        `returns` keeps returns)."""
        if episodes in self.states:
            return self.states[episodes]
        game, forward = self.binding, self.network.batched(self.trained)
        started = [game.start_episode(episode) for episode in episodes]
        seen: list[list[np.ndarray]] = [[] for _ in episodes]
        live = list(range(len(episodes)))
        for _ in range(BEHAVIOUR_STEPS):  # the episodes side by side, each action exactly the grader's (`sample_batch`)
            xs = game.observations([started[i][0].state() for i in live])
            uniforms = np.array([started[i][1].random_sample() for i in live])
            actions = sample_batch(self.network, self.trained, forward, xs, uniforms)
            for i, x in zip(live, xs, strict=True):
                seen[i].append(x)
            live = [i for i, action in zip(live, actions.tolist(), strict=True) if not started[i][0].act(action)[1]]
            if not live:
                break
        states = np.array([x for episode in seen for x in episode], dtype=np.uint8)  # 0/1: 1.2 MB, not 9.6
        trained = action_probabilities(self.trained, states)
        if len(self.states) >= 8:  # a few episode sets at a time (scoring, training): bounded memory
            self.states.clear()
        self.states[episodes] = (states, trained, distance(self.damaged, states, trained))
        return self.states[episodes]

    def returns(self, network: str, episodes: Sequence[int], grading: Grading = DEFAULT) -> list:
        """The "damaged" or "trained" network's return in each episode: kept for the scoring episodes
        (`reading/damages.json`), played once per process for others (training episodes)."""
        known = self.known[network]
        missing = [episode for episode in dict.fromkeys(episodes) if episode not in known]
        if missing:
            weights = self.damaged if network == "damaged" else self.trained
            known.update(zip(missing, self.playing.play(weights, missing, grading)[0], strict=True))
        return [known[episode] for episode in episodes]

    def watch(self, weights: Weights, episode: int, observe) -> tuple[float, int, dict]:
        return self.playing.watch(weights, episode, observe)

    def environment(self, episode: int):
        return self.playing.environment(episode)

    # --- feedback rounds ----------------------------------------------------------------------------
    def feedback(self, score: Score) -> str:
        if score.error:
            return self.parse_feedback(score.error)
        return (
            f"{self.report(score)}\nImprove the repair. Reply with your reasoning, then one ```edits block (it is "
            "applied to the damaged network again)."
        )

    def report(self, score: Score) -> str:
        damaged = float(np.mean(self.returns("damaged", score.episodes)))
        return (
            f"Your repaired network on {len(score.episodes)} training episodes (ids {score.episodes[0]}.."
            f"{score.episodes[-1]}; the scoring episodes are others): mean return {score.metadata['mean_return']:.2f}, "
            f"mean episode length {score.mean_length:.1f} steps. On these episodes the damaged network's mean return "
            f"is {damaged:.2f} and the trained network's {damaged + score.score_cap:.2f}: normalised score "
            f"{score.normalized:.4f}."
        )

    # --- records ------------------------------------------------------------------------------------
    def seeds(self, protocol: Protocol = ONE_SHOT) -> dict:
        choice = {key: self.entry[key] for key in ("parameter", "seed", "tried", "training_drop")}
        return {**super().seeds(protocol), "episode_seed": seed_rule(), "damage": {"kind": self.kind, **choice}}

    def calibration(self) -> dict[str, float]:
        return {"zero": 0.0, "reference": 1.0}  # the damaged and the trained network, by the score's definition


def _prompt(task: RepairTask, protocol: Protocol) -> str:
    from wspbench.tasks.minatar_prompt import (
        actions_section,
        edits_section,
        episodes_rule,
        game_facts,
        game_section,
        network_section,
        observation_section,
        training_section,
        weights_section,
        with_protocol,
    )

    facts = game_facts(task.binding)
    episodes = task.scoring_episodes(protocol.episodes)
    n, secret = len(episodes), protocol.secret_held_out
    damaged = float(np.mean(task.returns("damaged", episodes)))
    trained = float(np.mean(task.returns("trained", episodes)))
    over = f"Over episodes e = 0..{n - 1} (the held-out ones are others like them)" if secret else "Over these episodes"
    scoring = (
        f"{over} the damaged network's mean return is {damaged:.2f}; the trained network's, before the "
        f"damage, was {trained:.2f}. The return your repaired network gains over the damaged one (the mean over the "
        "episodes of your return minus the damaged network's return in the same episode) is divided by the trained "
        f"network's gain ({trained - damaged:.2f}) and clipped to [0, 1], then multiplied by the share of the trained "
        "network's behaviour you restore: 1 - d(yours) / d(damaged), clipped to [0, 1], where d is the mean "
        "total-variation distance between a network's action probabilities and the trained network's, over the "
        f"states the trained network meets in its first {BEHAVIOUR_STEPS} steps of the first {BEHAVIOUR_EPISODES} "
        "episodes. So "
        "the damaged network scores 0 and the trained one 1; a network that plays well but not like the trained one "
        "scores little. A reply whose edits block is missing or rejected scores 0."
    )
    reaches = "; ".join(f"{kind}: {damage.reach}" for kind, damage in DAMAGES.items())
    rule = (
        f"A repair may change at most {STRAY_LIMIT} weights outside the damage's reach (the weights the damage "
        f"addressed; {reaches}); a reply that changes more is rejected. Undo the damage; do not write a new network."
    )
    kinds = "\n".join(
        textwrap.fill(f"- {kind}: {damage.does}", 112, initial_indent="  ", subsequent_indent="    ")
        for kind, damage in DAMAGES.items()
    )
    mode = protocol.statement(task, "You write ONE reply; it is graded as it is.")
    given = "You get no code execution, no calculator and no data: only the weights below and the game's source."
    if protocol.kernel:
        given = "You get the weights as files in your kernel (THE DAMAGED NETWORK below) and the game's source."
    heading = "THE DAMAGED NETWORK"
    weights = protocol.shown_weights(task, heading, lambda: weights_section(task.damaged, heading))
    sections = [
        f"""THE TASK
A small neural network was trained by reinforcement learning (PPO) to play the game {facts.game}; then it was
damaged by ONE of these edits (which one, and which units, actions or channel it hit, is for you to find):
{kinds}
{_wrap(f"Repair it: write edits that undo the damage, so that the network plays as well as before. {mode}")}
{given}
- Your ```edits block is applied ON TOP of the damaged network: `=` overwrites, `+=`, `-=` and `*=` adjust its
  weights (any number, negative too: `W1[:, 3] *= -1` flips the signs of unit 3's incoming weights). Weights
  you do not edit keep their damaged values. An empty block changes nothing.
- Only the LAST ```edits block of a reply counts.
{_wrap(rule)}""",
        game_section(facts),
        observation_section(facts.channel_notes),
        actions_section(facts.action_notes),
        network_section(),
        training_section(task.steps),
        weights,
        f"""SCORING
{episodes_rule(n, facts.max_steps, secret)}
{_wrap(scoring)}""",
        edits_section("the float32 tensors of the damaged network"),
    ]
    return with_protocol("\n\n".join(sections), task, protocol, "```edits block")


def _wrap(text: str) -> str:
    return textwrap.fill(text, width=112)


def load_damages() -> dict:
    """The public set's `damages.json`: the chosen damages and both networks' returns."""
    return PUBLIC.damages()


def kind_order(game: str, index: int, taken: Sequence[str] = ()) -> list[str]:
    """The order in which a game's repair network of round `index` (ROUNDS) tries its kinds: the round's kinds
    starting at crc32("repair/<game>") (round 0) or crc32("repair/<game>/<index>") mod their count and wrapping
    round (a seeded choice, as benchmarks/damage.py seeds each damage's parameter), less the kinds the game's
    earlier rounds `taken`."""
    order, label = list(ROUNDS[index]), f"repair/{game}" + (f"/{index}" if index else "")
    start = zlib.crc32(label.encode()) % len(order)
    return [kind for kind in order[start:] + order[:start] if kind not in taken]


def chosen_kind(game: str, measured: Sequence[str], index: int = 0, taken: Sequence[str] = ()) -> str | None:
    """The one damage a repair network uses: the first of `kind_order` that was measured clear for it."""
    return next((kind for kind in kind_order(game, index, taken) if kind in measured), None)


def walk_rounds(
    game: str, seeds: Sequence[int], entry_of: Callable[[int, int, list[str]], dict]
) -> Iterator[tuple[int, dict, str | None]]:
    """A game's repair networks round by round, as the task list, `wsp reading build` and benchmarks/damage.py
    all walk them: `entry_of(index, seed, kinds)` gives a network's damages.json entry (measured on `kinds`, its
    round's kinds less those the earlier rounds took); yields each network's seed, entry and chosen kind (None:
    no task)."""
    taken: list[str] = []
    for index, seed in enumerate(seeds):
        entry = entry_of(index, seed, kind_order(game, index, taken))
        kind = chosen_kind(game, clear_kinds(entry), index, taken)
        taken += [kind] if kind else []
        yield seed, entry, kind


def clear_kinds(entry: dict) -> list[str]:
    """The measured damages of a game (its damages.json entry) that cost a clear share of the return on the
    stored scoring episodes: the damaged network's mean at most MAX_DAMAGED_SHARE of the trained one's, and the
    mean gap at least MIN_GAP_SE standard errors of the per-episode gaps."""
    trained = np.asarray(entry.get("trained", []), dtype=np.float64)
    found = []
    for kind, damaged in entry.get("damages", {}).items():
        gaps = trained - np.asarray(damaged["damaged"], dtype=np.float64)
        error = gaps.std(ddof=1) / np.sqrt(len(gaps))
        if trained.mean() - gaps.mean() <= MAX_DAMAGED_SHARE * trained.mean() and gaps.mean() >= MIN_GAP_SE * error:
            found.append(kind)
    return found


def tasks(source: ReadingSet = PUBLIC) -> list[Task]:
    """One task per repair network whose round has a clear damage for it (a game's tasks have different kinds)."""
    stored = source.damages().get("networks", {})
    found = []
    for game in all_games():
        if not source.has(game.game):
            continue
        name = game.game
        entry_of = lambda _, seed, __, name=name: stored.get(f"{name}.{seed}", {})  # noqa: E731 - measured already
        for seed, entry, kind in walk_rounds(name, source.seeds("repair", name), entry_of):
            if kind is not None:
                found.append(RepairTask(game, kind, entry["damages"][kind], entry["trained"], source, seed))
    return found
