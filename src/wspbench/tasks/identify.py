"""The identify family: which game was this trained network trained on? A reading task: the prompt lists every
weight of a 600-32-32-6 network that PPO trained on one MinAtar game (`ppo.py`, shipped in `reading/`), and the
reply names the game in a ```game block. Score 1 when the game is right, else 0.

- `identify/<game>/<seed>`: the five original MinAtar games, whose names are public; no candidates are listed.
- `identify-choice/<game>/<seed>`: every MinAtar game (original and synthetic), with the candidates and their
  one-line descriptions listed (in alphabetical order). Chance level: 1 / len(candidates).
Each game has one task per training seed of its reading set (`reading_set.py`: the public set's FREE_SEEDS and
CHOICE_SEEDS, or a private set's), each with its own network, so a constant guess scores exactly the chance
level, which is what the offline model `zero` does (it always names the first candidate). One-shot only:
feedback would tell the answer away. Exports show an opaque id instead (`public`). docs/reading.md shows a
prompt in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, cached_property

import numpy as np

from wspbench.answers.game_name import BLOCK, named_game
from wspbench.evaluation import DEFAULT, Grading
from wspbench.games.minatar import ACTION_NAMES, CHANNEL_NAMES, MinAtarGame, all_games
from wspbench.networks import MINATAR_NETWORK, Weights
from wspbench.protocols import ONE_SHOT, Agent, OneShot, Protocol
from wspbench.tasks.reading_set import PUBLIC, ReadingSet
from wspbench.tasks.spec import Facts, Public, Task

IDENTIFY_PROMPT_VERSION = "identify-v2"
SYSTEM = "You read neural-network weights and say what the network does. Follow the task constraints exactly."


class IdentifyTask(Task):
    skill = "reading"
    network = MINATAR_NETWORK
    answer_format = "game"
    protocols = (OneShot.name, Agent.name)  # no feedback, and no plays: either would tell the answer
    prompt_version = IDENTIFY_PROMPT_VERSION
    default_episodes = 1  # one question
    max_episodes = 1

    def __init__(self, binding: MinAtarGame, seed: int, choice: bool, source: ReadingSet = PUBLIC):
        self.binding, self.seed, self.choice, self.source = binding, seed, choice, source
        self.id = source.task_id("identify-choice" if choice else "identify", binding.game, seed)
        self.private_set = source.private_folder

    @cached_property
    def facts(self) -> Facts:
        """The game the network was trained on (the answer: exports show `public()`), a score of 0 or 1, one
        question."""
        return Facts(self.binding.game, self.public().description, 1.0, 1)

    def digest_facts(self) -> dict:
        """Suite 6's digest of an identify task also hashed the network's input and action names (those of
        every MinAtar game) and an empty source path: kept as they were until the suite's next version."""
        facts = super().digest_facts()
        names = {"input_names": CHANNEL_NAMES, "action_names": ACTION_NAMES, "source_path": ""}
        facts["game"] |= {"input_shape": (10, 10, len(CHANNEL_NAMES)), **names}
        return facts

    def public(self) -> Public:
        listed = f"{len(candidates())} candidates listed" if self.choice else "no candidates listed"
        description = f"which game was a PPO network trained on? ({listed})"
        return Public(self.source.public_id(self.id, self.prompt_version), "", description)

    @cached_property
    def shown(self) -> tuple[Weights, dict]:
        """The trained network the prompt lists, and its training record."""
        stored = self.source.network(self.binding.game, self.seed, self.network)
        if stored is None:
            raise FileNotFoundError(f"{self.id}: its network is missing from {self.source.folder}")
        return stored

    # --- the prompt ---------------------------------------------------------------------------------
    def messages(self, protocol: Protocol = ONE_SHOT) -> list[dict]:
        if protocol.name not in self.protocols:
            raise ValueError(f"{self.id}: identify tasks have no {protocol.name} protocol (it would tell the answer)")
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": _prompt(self, protocol)}]

    def shown_network(self) -> Weights:
        return self.shown[0]

    # --- answers ------------------------------------------------------------------------------------
    def read(self, text: str) -> tuple[Weights, dict]:
        """The named game as a one-hot vector over `candidates()` (all zeros for a name that is none of them:
        a wrong answer, with a note saying what was read)."""
        name = named_game(text, [game.game for game in candidates()])
        index = {game.game: i for i, game in enumerate(candidates())}.get(name)
        vote = np.zeros(len(candidates()), dtype=np.float32)
        if index is None:
            note = f"{name!r:.80} is not one of the {len(candidates())} game names: a wrong answer"
            return {"game": vote}, {"answer": name, "note": note}
        vote[index] = 1.0
        return {"game": vote}, {"answer": name}

    def offline_answer(self, model: str) -> str | None:
        answer = {"reference": self.binding.game, "zero": candidates()[0].game}.get(model)
        return None if answer is None else f"{BLOCK}\n{answer}\n```\n"

    # --- scoring ------------------------------------------------------------------------------------
    def scoring_episodes(self, count: int | None = None) -> list[int]:
        if count is not None and count < 1:
            raise ValueError("choose at least 1 scoring episode")
        return [0]

    def scoring_rule(self, count: int) -> str:
        return "1 when the reply names the game the network was trained on, else 0"

    def results(
        self,
        weights: Weights,
        episodes: Sequence[int],
        grading: Grading = DEFAULT,
    ) -> tuple[list[float], list[int], dict]:
        right = [game.game for game in candidates()].index(self.binding.game)
        value = float(weights["game"][right] == 1.0)
        if grading.progress is not None:
            grading.progress(len(episodes))
        return [value] * len(episodes), [1] * len(episodes), {}


@cache
def candidates() -> tuple[MinAtarGame, ...]:
    """Every MinAtar game, by name: the names a reply is graded against, and the choice variant's list."""
    return tuple(sorted(all_games(), key=lambda game: game.game))


def summary(game: MinAtarGame) -> str:
    """The game's one-line description without a leading title that repeats its name ("Ferry: carry ...")."""
    title, _, rest = game.description.partition(": ")
    return rest[:1].upper() + rest[1:] if rest and title.lower().replace(" ", "_") == game.game else game.description


def _prompt(task: IdentifyTask, protocol: Protocol) -> str:
    from wspbench.tasks.minatar_prompt import (
        actions_section,
        network_section,
        observation_section,
        training_section,
        weights_section,
    )

    weights, about = task.shown
    given = "You get no code execution, no calculator and no environment: only the weights."
    if protocol.kernel:
        given = f"{protocol.statement(task, given)} You get no environment: only the weights, as files."
    options = candidates()
    if task.choice:
        listed = "\n".join(f"  {game.game}: {summary(game)}" for game in options)
        which = f"It is one of these {len(options)} games (name: description):\n{listed}"
    else:
        which = "No list of candidates is given: name the game."
    sections = [
        f"""THE TASK
Below is every weight of a small neural network that was trained by reinforcement learning (PPO, {about["steps"]:,}
environment steps) to play one game on a 10x10 grid. Read the weights and say which game it was trained on.
{which}
{given}""",
        observation_section("Each game puts its objects on these six channels; not every game uses every channel."),
        actions_section("Not every game uses every action; the others act like no-op."),
        network_section(),
        training_section(about["steps"]),
        protocol.shown_weights(task, "THE WEIGHTS", lambda: weights_section(weights, "THE WEIGHTS")),
        f"""THE ANSWER
End your reply with one {BLOCK} block that holds only the game's name, e.g.
{BLOCK}
name_of_the_game
```
Only the last {BLOCK} block counts. The score is 1 if it names the game the network was trained on, else 0.""",
    ]
    sections += [protocol.section(task)] if protocol.section(task) else []
    return "\n\n".join(sections) + "\n"


def tasks(source: ReadingSet = PUBLIC) -> list[Task]:
    games = [game for game in candidates() if source.has(game.game)]
    originals = [game for game in games if game.source == "original"]
    free = [IdentifyTask(g, seed, False, source) for g in originals for seed in source.seeds("identify", g.game)]
    seeds = {game.game: source.seeds("identify-choice", game.game) for game in games}
    return free + [IdentifyTask(game, seed, True, source) for game in games for seed in seeds[game.game]]
