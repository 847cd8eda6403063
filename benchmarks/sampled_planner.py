"""A player that does not see the future, for hard-family seeds (issue 49): how much of a hindsight bound is play
and how much is hindsight.

At each step the planner tries each action the game uses in SAMPLES copies of the game whose generator is replaced
by a fresh one (so the draws to come are unknown to it: it reads the game's state and rules, never the episode's
draws), plays on DEPTH steps of random actions, and takes the action with the best mean return, a death before the
step limit counting -DEATH. Where it reaches a fair share of the bound, a policy can; where it dies as fast as every
other player, the bound is mostly the search's knowledge of the draws (docs/generated.md, "The hard family").

    python benchmarks/sampled_planner.py [--seeds 101,104] [--samples 2] [--depth 6] [--episodes 16]

One core; Python games: about 2 s an episode for a game that lasts 300 steps at the defaults.
"""

from __future__ import annotations

import argparse
import copy
import tempfile
import time
from pathlib import Path

import numpy as np

from minatar_synth import generator
from wspbench.games import synth
from wspbench.games.minatar import EPISODE_SEED, STICKY_ACTION_PROB, MinAtarGame
from wspbench.tasks.minatar import MinAtarTask

DEATH = 30.0  # what a death before the step limit costs in the planner's ranking


def choose(game, actions: list[int], rng: np.random.Generator, samples: int, depth: int) -> int:
    """The action whose copies of `game`, each with a fresh generator, return the most on average."""
    best, choice = -np.inf, actions[0]
    for action in actions:
        total = 0.0
        for _ in range(samples):
            copied = copy.deepcopy(game)
            copied.random = np.random.RandomState(int(rng.integers(2**31)))  # a future it does not know
            value, done = copied.act(action)
            for _ in range(depth):
                if done:
                    break
                reward, done = copied.act(int(rng.choice(actions)))
                value += reward
            total += value - (DEATH if done and copied.steps < copied.max_steps else 0.0)
        if total > best:
            best, choice = total, action
    return choice


def play(environment_class, episode: int, actions: list[int], samples: int, depth: int) -> tuple[float, int]:
    """The planner's return and length on one episode, seeded as the graders seed it."""
    game = environment_class(sticky_action_prob=STICKY_ACTION_PROB)
    game.seed(EPISODE_SEED + episode)
    game.reset()
    rng = np.random.default_rng(episode)
    total, done = 0.0, False
    while not done:
        reward, done = game.act(choose(game, actions, rng, samples, depth))
        total += reward
    return total, game.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="101,104")
    parser.add_argument("--samples", type=int, default=2)
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--episodes", type=int, default=16, help="the first calibration episodes")
    args = parser.parse_args()
    for seed in (int(s) for s in args.seeds.split(",")):
        folder = Path(tempfile.mkdtemp())
        name = generator.write(seed, folder, None, "hard").stem
        with synth.borrowed(folder, name):
            task = MinAtarTask(MinAtarGame(name, "hard"))
            actions = list(task.acting_actions() or range(6))
            started = time.process_time()
            played = [
                play(synth.environment_class(name), e, actions, args.samples, args.depth)
                for e in task.calibration_episodes(args.episodes)
            ]
            returns, lengths = zip(*played, strict=True)
            print(
                f"{name}: mean {np.mean(returns):.2f}, mean length {np.mean(lengths):.0f} over {len(played)} episodes "
                f"(samples {args.samples}, depth {args.depth}); {time.process_time() - started:.0f} CPU s",
                flush=True,
            )


if __name__ == "__main__":
    main()
