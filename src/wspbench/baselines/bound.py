"""The hindsight bound: the best return a search finds on an episode when it knows that episode's own random draws.

A policy sees only the screen. This search steps copies of the whole game, its generator included, so every
branch it tries meets the future the episode will really have, sticky actions too. No policy, network or not,
can beat the best return over every action sequence of an episode, so the mean of that best over calibration
episodes is a cap that no score can pass. A beam keeps `width` plays per step, not all of them, so what it finds
is a lower estimate of that best (the search's own gaps), and each result carries the action sequence that
reached it, so that anyone can replay it in the reference game and get the same return (the tests do).

Beam search on the compiled twins (`wspbench/evaluation/compiled/`), where a play is one row of integers and its
game generator, cheap to copy. Every play of an episode draws from one stream, so a play's generator is kept as its
place in that stream (the stream's 624-word blocks are kept once), and each child is played in one scratch row that
stays in the cache; the children that go on are played again from their parents rather than each child's row being
kept; the loops over a row run on unsigned indices, which compile to vector loops (`benchmarks/bound_speed.py`: the
same plays in about a quarter of the CPU time).

Every step each kept play tries every action the game uses; a child whose game ended (or reached the step limit)
offers its return as a result and goes no further; the live children are ranked by their return so far plus
POTENTIAL_WEIGHT x the task's potential (`MinAtarTask.potential`: minus the distance from the player to the nearest
reward cell, over 18), which leads the search through games whose reward comes at the end of a long walk. Two rules
keep the beam from filling with one idea. Children in the same state (row and generator alike) go on once, the one
with the higher return. And the cells take turns: a cell is what the screen shows of the player, the rewards and the
gauge (the player's place, where the rewards are, the lives, heat or time left), and every cell's best child goes on
before any cell's second best, and so on; within a turn the scenes (the same without the player) take turns
likewise, then the rank decides. So a play that took a step no reward pays for at once (a ferry that picked up its
passenger: the reward cell moved to the far bank) keeps its place beside the plays that did not, and a wider beam
gives every cell more plays, not more of the best one. Ties of rank are broken by a hash of the child's state, never
by chance: a search is a pure function of its task, episode and width.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit

from wspbench.evaluation.compiled.common import CANDIDATES, FIRST_FIELD, TERMINAL, WIDTH
from wspbench.evaluation.compiled.engine import act, observe, start_episode
from wspbench.evaluation.compiled.mt19937 import WORDS, twist
from wspbench.games.minatar import CHANNEL_NAMES

GAIN = 0.02  # a search's budget: doubling its width must add less than this share of the sample's mean ...
SAMPLE = 8  # ... on this many episodes (the first of those it calibrates) ...
PROBES = (2, 4)  # ... and so must each of these multiples of it (a beam's mean is not monotone in its width)
FIRST_WIDTH, MAX_WIDTH = 64, 4096
WIDER = (2, 4, 8)  # an episode where a player beats the bound is searched again at these multiples of the width
POTENTIAL_WEIGHT = 1.0  # a reward of 1 is worth walking the whole grid (18 cells) toward the next one
PLAYER, REWARD, GAUGE = (CHANNEL_NAMES.index(name) for name in ("player", "reward", "gauge"))
CHANNELS = len(CHANNEL_NAMES)
NEVER = 1 << 40  # the place of a child that does not go on
_MIX = np.random.default_rng(20261207).integers(1, 2**62, size=WIDTH + 3, dtype=np.int64) | 1  # hash multipliers


@dataclass(frozen=True)
class Found:
    """The best play the search found on one episode: its return, its length and its actions, in order."""

    episode: int
    value: float
    length: int
    actions: tuple[int, ...]
    width: int
    cpu_seconds: float  # the core time the search took (its cost, whatever else the machine ran)


@njit(cache=True)
def potential(active, count):
    """`MinAtarTask.potential` of one observation given as its active inputs: minus the Manhattan distance from
    the player to the nearest reward cell over 18, 0 when either is not on the grid."""
    player = -1
    for t in range(count):
        if active[t] % CHANNELS == PLAYER:
            cell = active[t] // CHANNELS
            if player < 0 or cell < player:  # the first player cell in row-major order, as argmax picks it
                player = cell
    if player < 0:
        return 0.0
    nearest = 99
    for t in range(count):
        if active[t] % CHANNELS == REWARD:
            cell = active[t] // CHANNELS
            distance = abs(cell // 10 - player // 10) + abs(cell % 10 - player % 10)
            nearest = min(nearest, distance)
    return 0.0 if nearest == 99 else -min(nearest, 18) / 18.0


@njit(cache=True)
def _hash(row, used, keys, position, mix):
    """A 64-bit hash of a play's state: its row (zero from `used` on), and its generator's place in the stream (two
    plays of one episode that drew alike have the same generator words)."""
    value = np.int64(0)
    i, end = np.uint64(0), np.uint64(used)  # an unsigned index: no wrap-around check, so the loop vectorizes
    while i < end:
        value += row[i] * mix[i]
        i += np.uint64(1)
    n = row.shape[0]
    return value + position * mix[n] + np.int64(keys[0]) * mix[n + 1] + np.int64(keys[WORDS - 1]) * mix[n + 2]


@njit(cache=True)
def _used(row, used):
    """How much of `row` is in use: past `used`, up to its last field that is not 0. Every row the search holds is
    0 from `used` on, so copying and hashing stop there (most games use a few dozen of a row's WIDTH fields)."""
    anything = np.int64(0)
    i, end = np.uint64(used), np.uint64(row.shape[0])
    while i < end:  # an OR without branches, on an unsigned index (no wrap-around check): a vector loop ...
        anything |= row[i]
        i += np.uint64(1)
    if anything == 0:  # ... and the usual answer: nothing written past `used`
        return used
    for i in range(row.shape[0] - 1, used - 1, -1):
        if row[i] != 0:
            return i + 1
    return used


@njit(cache=True)
def _place_in_group(groups, by_rank, valid, places):
    """Each child's place in its group, best rank first (`by_rank`: the children best first, the first made among
    equals): 0 for the best valid child, 1 for the next...; a child that is not `valid` gets the place NEVER and
    takes no place from the others."""
    order = by_rank[np.argsort(groups[by_rank], kind="mergesort")]  # by group, by rank within a group
    place = 0
    for k in range(order.shape[0]):
        c = order[k]
        if k == 0 or groups[c] != groups[order[k - 1]]:
            place = 0
        if valid[c]:
            places[c] = place
            place += 1
        else:
            places[c] = NEVER


@njit(cache=True)
def _block_of(blocks, count, block, scratch):
    """The index of the stream block that `scratch` (a generator that left block `block` by twisting) holds: every
    play of an episode draws from one stream, so its k-th block is the same for all of them and is kept once in
    `blocks` (`count[0]` of them so far, each made from the one before when first needed)."""
    for k in range(block + 1, block + 9):
        if k == count[0]:
            if k == blocks.shape[0]:
                raise ValueError("more generator blocks than the search holds")
            blocks[k] = blocks[k - 1]
            twist(blocks, k)
            count[0] += 1
        same = True
        for w in range(WORDS):
            if blocks[k, w] != scratch[0, w]:
                same = False
                break
        if same:
            return k
    raise ValueError("a generator that no block of its stream matches")


@njit(cache=True)
def _search(game, setup, episode, max_steps, width, actions, weight, mix, parents, moves, chosen, blocks):
    """Beam search over one episode (see the module docstring). Returns the best return found, the step at which
    that play ended and its child's index there; `moves[step, child]` is a child's action, `parents[step, child]`
    its parent's place in the beam kept after step - 1, and `chosen[step, k]` the child kept in place k.

    Each child is played in one scratch row and one scratch generator (they stay in the cache), and only its rank
    and its generator's place (its stream block, `blocks` and `_block_of`, and position) are kept; the children
    that go on are played again from their parents into the next beam."""
    first = np.zeros((1, WIDTH), np.int64)
    first[0, FIRST_FIELD : FIRST_FIELD + setup.shape[0]] = setup
    first_keys = np.zeros((2, WORDS), np.uint32)
    first_positions = np.zeros(2, np.int64)
    start_episode(game, first, first_keys, first_positions, 0, episode)
    blocks[0] = first_keys[0]
    count = np.ones(1, np.int64)

    branching = actions.shape[0]
    children = width * branching
    rows = np.zeros((width, WIDTH), np.int64)
    block_of = np.zeros(width, np.int64)
    positions = np.zeros(width, np.int64)
    values = np.zeros(width)
    next_rows = np.zeros((width, WIDTH), np.int64)
    child_blocks = np.zeros(children, np.int64)
    child_positions = np.zeros(children, np.int64)
    child_values = np.zeros(children)
    ranks = np.full(children, -np.inf)
    hashes = np.zeros(children, np.int64)
    cells = np.zeros(children, np.int64)
    scenes = np.zeros(children, np.int64)
    places = np.zeros(children, np.int64)
    turns = np.zeros(children, np.int64)
    active = np.zeros(CANDIDATES, np.int64)
    seen = np.zeros(600, np.int64)
    scratch = np.zeros(WIDTH, np.int64)
    scratch_keys = np.zeros((1, WORDS), np.uint32)
    scratch_position = np.zeros(1, np.int64)
    held = -1  # the block scratch_keys holds unchanged (-1: none)
    stamp = 0

    rows[0] = first[0]
    used = _used(first[0], 0)
    positions[0] = first_positions[0]
    kept = 1
    best, best_step, best_child = -np.inf, -1, -1
    for step in range(max_steps):
        made = 0
        for i in range(kept):
            for a in range(branching):
                c = made
                made += 1
                scratch[:used] = rows[i, :used]
                block = block_of[i]
                if held != block:
                    scratch_keys[0] = blocks[block]
                    held = block
                scratch_position[0] = positions[i]
                child_values[c] = values[i] + act(game, scratch, actions[a], scratch_keys, scratch_position, 0)
                if (
                    scratch_position[0] < positions[i]
                    or scratch_keys[0, 0] != blocks[block, 0]
                    or scratch_keys[0, WORDS - 1] != blocks[block, WORDS - 1]
                ):
                    block = _block_of(blocks, count, block, scratch_keys)
                    held = block
                child_blocks[c] = block
                child_positions[c] = scratch_position[0]
                used = _used(scratch, used)
                parents[step, c] = i
                moves[step, c] = actions[a]
                ranks[c] = -np.inf  # not going on
                if scratch[TERMINAL] != 0 or step + 1 == max_steps:
                    if child_values[c] > best:
                        best, best_step, best_child = child_values[c], step, c
                    continue
                stamp += 1
                count_active = observe(game, scratch, active, seen, stamp)
                ranks[c] = child_values[c] + weight * potential(active, count_active)
                scene, player = np.int64(0), np.int64(0)
                for t in range(count_active):
                    channel = active[t] % CHANNELS
                    if channel == REWARD or channel == GAUGE:
                        scene += mix[active[t]]
                    elif channel == PLAYER:
                        player += mix[active[t]]
                scenes[c] = scene
                cells[c] = scene + 3 * player
                hashes[c] = _hash(scratch, used, blocks[block], child_positions[c], mix)
                ranks[c] += ((hashes[c] >> 20) & 0xFFFF) * 1e-12  # ties broken by the state, not by birth order
        # a state reached twice goes on once, from its best-ranked child (same state, same potential: the higher
        # return; the first made among equals); then the cells take turns (every cell's best, then every cell's
        # second best, ...), and within a turn the scenes do, each by rank
        by_rank = np.argsort(-ranks[:made], kind="mergesort")  # stable: ties keep the order they were made in
        alive = ranks[:made] > -np.inf
        _place_in_group(hashes[:made], by_rank, alive, places)
        _place_in_group(cells[:made], by_rank, places[:made] == 0, turns)
        _place_in_group(scenes[:made] + turns[:made] * mix[0], by_rank, alive, places)
        order = by_rank[np.argsort(places[by_rank], kind="mergesort")]
        order = order[np.argsort(turns[order], kind="mergesort")]
        going = 0
        for c in order:
            if going == width or turns[c] == NEVER:
                break
            chosen[step, going] = c
            going += 1
        # the children that go on are played again from their parents (the same step gives the same row): keeping
        # every child's row instead would write far more than it reads
        for k in range(going):
            c = chosen[step, k]
            i = parents[step, c]
            scratch[:used] = rows[i, :used]
            if held != block_of[i]:
                scratch_keys[0] = blocks[block_of[i]]
            held = child_blocks[c]
            scratch_position[0] = positions[i]
            act(game, scratch, moves[step, c], scratch_keys, scratch_position, 0)
            next_rows[k, :used] = scratch[:used]
        for k in range(going):
            c = chosen[step, k]
            block_of[k] = child_blocks[c]
            positions[k] = child_positions[c]
            values[k] = child_values[c]
        rows, next_rows = next_rows, rows
        kept = going
        if kept == 0:
            break
    return best, best_step, best_child


def search(task, episode: int, width: int, weight: float = POTENTIAL_WEIGHT) -> Found:
    """The best play a beam of `width` finds on `episode` of `task` (a MinAtar-style task whose game a compiled
    twin follows), with the actions that reach it."""
    from wspbench.evaluation.compiled.engine import TWINS
    from wspbench.evaluation.engine import compiled_twin

    twin = compiled_twin(task.binding) if hasattr(task, "binding") else None
    if twin is None:
        raise ValueError(f"{task.id}: no compiled twin follows this game, so there is nothing to search on")
    if width < 1:
        raise ValueError("a beam needs a width of at least 1")
    name, setup = twin
    setup = np.zeros(0, np.int64) if setup is None else np.asarray(setup, np.int64)
    actions = np.asarray(task.acting_actions() or range(6), np.int64)
    max_steps = task.binding.max_steps
    parents = np.zeros((max_steps, width * len(actions)), np.int32)
    moves = np.zeros((max_steps, width * len(actions)), np.int8)
    chosen = np.zeros((max_steps, width), np.int32)
    blocks = np.zeros((max_steps + 64, WORDS), np.uint32)  # room for 624 draws a step (`_block_of`)
    started = time.process_time()
    value, step, child = _search(
        TWINS.index(name), setup, episode, max_steps, width, actions, weight, _MIX, parents, moves, chosen, blocks
    )
    seconds = time.process_time() - started
    played = []
    while step >= 0:
        played.append(int(moves[step, child]))
        place = parents[step, child]
        step -= 1
        if step >= 0:
            child = chosen[step, place]
    return Found(episode, float(value), len(played), tuple(reversed(played)), width, seconds)


def replay(task, episode: int, actions: Sequence[int]) -> tuple[float, int]:
    """The return and length of `actions` played in order on `episode` of `task` in the reference game (Python,
    seeded as every engine seeds it): what makes a search's result a play anyone can check."""
    environment = task.environment(episode)
    total, length = 0.0, 0
    for action in actions:
        reward, done = environment.act(action)
        total += reward
        length += 1
        if done:
            break
    return total, length


def calibrate(task, episodes: Sequence[int], players: Sequence[float] | None = None) -> tuple[dict, list[Found]]:
    """The bound of `task` on `episodes`, its budget found by doubling: the first SAMPLE episodes are searched at
    FIRST_WIDTH, twice that, ... until a width is reached whose doubling added less than GAIN to their mean and
    whose PROBES multiples (up to MAX_WIDTH) each add less than GAIN to it (a doubling that gains little can be a
    plateau before a rise: benchmarks/bound_probe.py found four such games), or MAX_WIDTH is reached; that width
    plays every episode. `players`, the best return any shipped player gets on each episode: where it is above the
    bound, the search was too weak there, and the episode is searched again at each of WIDER times the width (the
    best play found is kept). Its summary (what `minatar_synth/bound.json` keeps) and the plays."""
    episodes = [int(e) for e in episodes]
    sampled: dict[int, list[Found]] = {}

    def mean(width: int) -> float:
        """The sample's mean at `width` (each width is searched once)."""
        if width not in sampled:
            sampled[width] = [search(task, e, width) for e in episodes[:SAMPLE]]
        return float(np.mean([f.value for f in sampled[width]]))

    def gains(wider: int, width: int) -> bool:
        return mean(wider) - mean(width) >= GAIN * max(abs(mean(width)), 1e-9)

    width, converged = FIRST_WIDTH, False
    while not converged and width * 2 <= MAX_WIDTH:
        width *= 2
        probes = [width * factor for factor in PROBES if width * factor <= MAX_WIDTH]
        converged = not gains(width, width // 2) and not any(gains(wider, width) for wider in probes)
    mean(width)
    ladder = [
        {"width": w, "mean": mean(w), "cpu_seconds": round(sum(f.cpu_seconds for f in sampled[w]), 2)}
        for w in sorted(sampled)
    ]
    plays = sampled[width] + [search(task, e, width) for e in episodes[SAMPLE:]]
    searched = sum(f.cpu_seconds for f in plays) + sum(rung["cpu_seconds"] for rung in ladder if rung["width"] != width)
    wider = {}
    for i, e in enumerate(episodes):
        for factor in WIDER if players is not None else ():
            if plays[i].value >= players[i]:
                break
            again = search(task, e, width * factor)
            searched += again.cpu_seconds
            wider[str(e)] = width * factor
            if again.value > plays[i].value:
                plays[i] = again
    stats = statistics(plays)
    return {
        "mean": stats["mean"],
        "stderr": stats["stderr"],
        "first_episode": episodes[0],
        "episodes": len(episodes),
        "actions": [int(a) for a in task.acting_actions() or range(6)],
        "width": width,
        "converged": bool(converged),
        "ladder": ladder,
        "wider": wider,
        "values": stats["values"],
        "lengths": stats["lengths"],
        "cpu_seconds": round(searched, 1),
    }, plays


def statistics(plays: Sequence[Found]) -> dict:
    """The bound's figures over its episodes' best plays: the mean, its standard error, each return and length."""
    values = np.array([play.value for play in plays])
    stderr = float(values.std(ddof=1) / np.sqrt(len(values))) if len(values) > 1 else 0.0
    return {
        "mean": float(values.mean()),
        "stderr": stderr,
        "values": values.tolist(),
        "lengths": [p.length for p in plays],
    }


def settings() -> dict:
    """What a calibrated bound depends on besides its game and episodes: results with other settings are redone."""
    return {
        "sample": SAMPLE,
        "gain": GAIN,
        "width": FIRST_WIDTH,
        "max_width": MAX_WIDTH,
        "wider": list(WIDER),
        "potential_weight": POTENTIAL_WEIGHT,
        "probes": list(PROBES),
    }
