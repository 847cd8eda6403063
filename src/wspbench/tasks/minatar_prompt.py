"""The MinAtar prompt, built from the task's own facts (`minatar.py`, `wspbench/games/minatar.py`, the
network, the edits parser's bounds), so that it cannot drift from what is graded. A result is only
comparable with results made from the same prompt: records keep MINATAR_PROMPT_VERSION and the rendered
text's hash. Change the text => bump the version (the snapshot in tests/tasks/test_prompts.py fails
until you do).

Sections, in this order: THE TASK (constraints), THE GAME (rules and the game's exact source file), THE
OBSERVATION, THE ACTIONS, THE NETWORK, SCORING, THE EDITS LANGUAGE.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import cache

import numpy as np

from wspbench.answers import edits
from wspbench.games import minatar_original
from wspbench.games.minatar import (
    ACTION_NAMES,
    ACTION_SEED,
    CHANNEL_NAMES,
    EPISODE_SEED,
    SECRET_EPISODES,
    STICKY_ACTION_PROB,
    MinAtarGame,
)
from wspbench.networks import MINATAR_NETWORK
from wspbench.protocols import Protocol

MINATAR_PROMPT_VERSION = "minatar-v2"
MINATAR_SYSTEM = "You directly program neural-network weights. Follow the task constraints exactly."
SECTION_TITLES = (
    "THE TASK",
    "THE GAME",
    "THE OBSERVATION",
    "THE ACTIONS",
    "THE NETWORK",
    "SCORING",
    "THE EDITS LANGUAGE",
)


@dataclass(frozen=True)
class GameFacts:
    """What the prompt says about one game (a fake one in the snapshot test)."""

    task_id: str  # "original/breakout"
    game: str
    title: str  # one-line description
    source_path: str  # shown to the model, e.g. "minatar/environments/breakout.py"
    source: str  # the exact file text
    channel_notes: str  # how the game's own channels land on the six inputs
    action_notes: str  # which actions do something in this game
    score_cap: float
    max_steps: int


def render(task, protocol: Protocol) -> list[dict]:
    """The opening conversation of a MinAtar task (`minatar.MinAtarTask`)."""
    episodes = task.scoring_episodes(protocol.episodes)
    user = render_minatar(game_facts(task.binding), protocol, len(episodes), task)
    return [{"role": "system", "content": MINATAR_SYSTEM}, {"role": "user", "content": user}]


def with_protocol(body: str, task, protocol: Protocol, answer: str) -> str:
    """A MinAtar-style prompt's end: the protocol's own section, if it has one, then its last line, which asks for
    `answer` (or what the protocol asks for instead)."""
    section = protocol.section(task)
    return body + (f"\n\n{section}" if section else "") + f"\n\n{protocol.ask(answer)}\n"


@cache
def game_facts(binding: MinAtarGame) -> GameFacts:
    """Everything the prompt states about a game, read from the game itself (its spec and its source file)."""
    groups = binding.spec.channel_groups
    if groups is not None:  # the game's own channels, regrouped (the original games)
        own = {index: name for name, index in minatar_original.own_facts(binding.game)[0].items()}
        mapping = "\n".join(
            f"  {out} {CHANNEL_NAMES[out]} = " + (" OR ".join(own[s] for s in group) if group else "(unused, always 0)")
            for out, group in enumerate(groups)
        )
        channel_notes = (
            f"In {binding.game} the game's own channels (`self.channels` in its source) are combined "
            f"into these six: an input channel is on where any of its source channels is on.\n{mapping}"
        )
        used = binding.acting_actions()
        action_notes = (
            f"In {binding.game} all six actions do something."
            if len(used) == len(ACTION_NAMES)
            else f"In {binding.game} these actions do something: "
            f"{', '.join(f'{a} {ACTION_NAMES[a]}' for a in used)}; the others act like no-op."
        )
    else:
        channel_notes = "The game's state() returns these six channels directly; its docstring says what each holds."
        action_notes = "The game's docstring says which actions do something."
    return GameFacts(
        binding.task_id,
        binding.game,
        binding.description,
        binding.source_path,
        binding.source_text(),
        channel_notes,
        action_notes,
        binding.score_cap,
        binding.max_steps,
    )


def flat_index(row: int, col: int, channel: int) -> int:
    return (row * 10 + col) * 6 + channel


def render_minatar(game: GameFacts, protocol: Protocol, episodes: int, task) -> str:
    """The user prompt of a MinAtar task (original or synthetic game) under `protocol`, which says its own parts."""
    sections = [
        _task(game, protocol, task),
        game_section(game),
        observation_section(game.channel_notes),
        actions_section(game.action_notes),
        network_section(),
        _scoring(game, protocol, episodes),
        edits_section(),
    ]
    return with_protocol("\n\n".join(sections), task, protocol, "```edits block")


ONE_SHOT_MODE = (
    "This is one-shot mode: you get no training, no data, no gradients, no code execution, no calculator and no "
    "feedback from the environment. You write ONE reply; it is graded as it is."
)


def _task(game: GameFacts, protocol: Protocol, task) -> str:
    mode = protocol.statement(task, ONE_SHOT_MODE)
    intro = textwrap.fill(
        f"Write, from scratch, every weight of a small neural network that plays the game "
        f"{game.game} ({game.task_id}) as well as possible. {mode}",
        width=104,
    )
    return f"""THE TASK
{intro}
- All weights start at 0. Your reply sets them with an ```edits block (THE EDITS LANGUAGE below).
- Only the LAST ```edits block of a reply counts; everything else in the reply is ignored by the grader.
- Each reply replaces the network completely: it starts again from all zeros.
- Think of the network as a program: give each hidden unit a job (a feature of the screen, a
  comparison, a logical AND/OR) and set its weights so it computes exactly that."""


def game_section(game: GameFacts) -> str:
    return f"""THE GAME
{game.game}: {game.title}
Its rules are the program below, the exact source file `{game.source_path}` that the grader runs.

```python
{game.source.rstrip()}
```"""


def observation_section(channel_notes: str) -> str:
    examples = "\n".join(
        f"  row {r}, col {c}, channel {ch} ({CHANNEL_NAMES[ch]}): i = ({r}*10 + {c})*6 + {ch} = {flat_index(r, c, ch)}"
        for r, c, ch in ((0, 0, 0), (0, 1, 0), (1, 0, 0), (3, 7, 2), (9, 4, 0), (9, 9, 5))
    )
    channels = "\n".join(f"  {i} {name}" for i, name in enumerate(CHANNEL_NAMES))
    return f"""THE OBSERVATION
Every step the network sees the screen: a 10x10 grid (row 0 at the top, column 0 at the left) with 6
channels, each cell of each channel 1.0 (on) or 0.0 (off). The six channels:
{channels}
{channel_notes}
The grid is flattened row-major into the 600 inputs x[0..599]:
  i = (row*10 + col)*6 + channel
Worked examples:
{examples}
Useful slices (numpy, as in the edits language): W1[ch::6, j] is channel ch of all 100 cells in order
(row 0 col 0, row 0 col 1, ..., row 9 col 9); W1[r*60 + ch:(r + 1)*60:6, j] is channel ch along row r
(10 cells, col 0..9); W1[c*6 + ch::60, j] is channel ch down column c (10 cells, row 0..9)."""


def actions_section(action_notes: str) -> str:
    sticky = f"{STICKY_ACTION_PROB:g}"
    names = ", ".join(f"{i} {name}" for i, name in enumerate(ACTION_NAMES))
    return f"""THE ACTIONS
The network outputs six logits, one per action: {names}.
{action_notes}
The action is SAMPLED: p = softmax(logits) (computed in float64 after subtracting the largest logit),
then action = RandomState.choice(6, p=p) with the episode's own generator. Equal logits give each action
probability 1/6; a logit 10 above all others gives that action about 99.98%.
Sticky actions: with probability {sticky} on every step the game ignores the chosen action and repeats the
previous one."""


def network_section() -> str:
    sizes = " -> ".join(map(str, MINATAR_NETWORK.sizes))
    return f"""THE NETWORK
{sizes}, {MINATAR_NETWORK.activation}, {MINATAR_NETWORK.dtype.__name__}:
  h1 = tanh(x @ W1 + b1)       # x: 600 inputs, W1: (600, 32), b1: (32,)
  h2 = tanh(h1 @ W2 + b2)      # W2: (32, 32), b2: (32,)
  logits = h2 @ W3 + b3        # W3: (32, 6), b3: (6,)
W1[i, j] is the weight from input i to hidden unit j of layer 1; W2[j, k] from unit j of layer 1 to unit
k of layer 2; W3[k, a] from unit k of layer 2 to the logit of action a; b1[j], b2[k], b3[a] are biases.
tanh saturates: tanh(3) = 0.995, tanh(-3) = -0.995, so a unit with a large weighted sum acts as a switch
that is +1 or -1, and a unit with small sums (|z| < 0.3) is nearly linear (tanh(z) ~ z)."""


def training_section(steps: int) -> str:
    """How a shown network was trained (identify and repair): what its weights started from, so that a reader
    can tell learned values from initial ones, and what the refill (`baselines/reading_build.py`) did to W1."""
    sizes = MINATAR_NETWORK.sizes
    w1, w2 = np.sqrt(2 / sizes[0]), np.sqrt(2 / sizes[1])
    return f"""HOW THE NETWORK WAS TRAINED
PPO trained it for {steps:,} environment steps from orthogonal initial weights: W1 and W2 with gain sqrt(2)
(each column's norm sqrt(2): W1's entries start with a root mean square of {w1:.4f}, W2's {w2:.2f}), W3 with
gain 0.01 (entries near 0), every bias 0. Afterwards every row of W1 whose input was never on while the network
played, and every used row still at its initial value, was redrawn from the values of the other rows in its
column, so the size of a row does not tell whether the network uses it. It played as the grader plays (below):
actions sampled from the softmax, sticky actions, and on an episode's first step the previous action (the one
a sticky step repeats) is 0, no-op."""


def episodes_rule(n: int, max_steps: int, secret: bool = False) -> str:
    """How the n scoring episodes are played (the MinAtar and repair prompts' SCORING): episodes 0..n-1, or (`secret`:
    feedback and agent) n drawn by the run's secret (`wspbench/tasks/held_out.py`), which the prompt never names."""
    seeded = (
        f"seeds the game with {EPISODE_SEED} + e and the action\nsampler with RandomState({ACTION_SEED} + e); sticky "
        f"actions {STICKY_ACTION_PROB:g}; an episode lasts until the game ends it or for\nat most {max_steps:,} steps."
    )
    if not secret:
        return f"The network plays {n} episodes. Episode e (e = 0..{n - 1}) {seeded}"
    first, count = SECRET_EPISODES
    return (
        f"The network plays {n} held-out episodes, drawn at random from e = {first:,}..{first + count - 1:,} when the "
        f"run starts\nby a secret kept from you (published with the grade). Episode e {seeded}"
    )


def _scoring(game: GameFacts, protocol: Protocol, n: int) -> str:
    note, rule = protocol.training_note(), episodes_rule(n, game.max_steps, protocol.secret_held_out)
    training = f"\n{note}" if note else ""
    return f"""SCORING
{rule} The raw score is the mean episode return; the normalised score is
min(max(raw, 0), {game.score_cap:g}) / {game.score_cap:g}, in [0, 1] ({game.score_cap:g} is this game's cap).
A reply whose edits block is missing or rejected scores 0.{training}"""


def edits_section(start: str = "float32 tensors that start at 0") -> str:
    return f"""THE EDITS LANGUAGE
The body of the block is a list of statements, one per line; `#` starts a comment:
  T[index] = value        T[index] += value        T[index] -= value        T[index] *= value
- T is one of W1 b1 W2 b2 W3 b3.
- index is an int, a slice of literal ints (start:stop:step, negative numbers allowed) or a tuple of
  those, exactly as numpy indexes: W1[5, 0], W1[0:60, 3], W1[2::6, 7], b3[:], W3[:, 1].
- value is a number or a (nested) list of numbers; numpy broadcasts it into the indexed part, so
  W1[2::6, 0] = 1.5 writes 100 weights and W3[0, :] = [1, 0, 0, 2, 0, 0] writes one row.
- Statements run in order on {start}, so later edits overwrite or adjust earlier ones.
Example:
```edits
# unit 0: +1 for every reward cell (channel 2)
W1[2::6, 0] = 1.0
b1[0] = -0.5
W2[0, 0] = 3.0
W3[0, 3] = 8.0   # unit 0 of layer 2 votes for "right"
b3[:] = [1, 0, 0, 0, 0, 0]
```
Rejected (the reply then scores 0 and the error says why): names, arithmetic or calls in an index or a
value (write 0.5, not 1/2; write 60, not 6*10), any other kind of statement, other operators (/=, **=),
an int index out of range (slices are clipped as in numpy), a value whose shape does not broadcast,
and, after all edits, any weight that is not finite or has |w| > {edits.MAX_ABS_WEIGHT:,.0f}.
Bounds: at most {edits.MAX_ANSWER_CHARS:,} characters in the reply, {edits.MAX_TOKENS:,} tokens (numbers, names and
signs) and {edits.MAX_STATEMENTS:,} statements in the block, {edits.MAX_LITERAL_ELEMENTS:,} list elements in one value,
nesting depth {edits.MAX_NESTING}."""


def parse_feedback(error: str) -> str:
    """What the model is told when its reply has no usable edits block (feedback protocol)."""
    return (
        f"I could not use that: {error}. Reply with your reasoning, then the complete network in one "
        "```edits block (all weights start at 0 again)."
    )


WEIGHT_DECIMALS = 3  # the reading and repair tasks show every weight rounded to this many decimals


def weights_listing(weights: dict) -> str:
    """Every weight of a 600-32-32-6 network as text, one line per row of each tensor in the edits language's
    own notation (`W1[i] = [...]`), rounded to WEIGHT_DECIMALS decimals, with a comment before each cell's six
    W1 rows; the reading (identify) and repair prompts show networks this way."""
    lines = []
    for name, shape in MINATAR_NETWORK.shapes.items():
        rows = _rounded(weights[name])
        if len(shape) == 1:
            lines.append(f"{name}[:] = {rows[0]}")
            continue
        for i, row in enumerate(rows):
            if name == "W1" and i % 6 == 0:
                lines.append(f"# row {i // 60}, col {i // 6 % 10}: W1[{i}..{i + 5}] are channels 0..5")
            lines.append(f"{name}[{i}] = {row}")
    return "\n".join(lines)


def _rounded(values) -> list[str]:
    """Each row of a vector or matrix as `[a, b, ...]`, rounded to WEIGHT_DECIMALS decimals; the texts are
    looked up in a table, a whole tensor at a time, as every suite digest renders each reading prompt's 20,486
    numbers."""
    steps = np.rint(np.atleast_2d(np.asarray(values, dtype=np.float64)) * 10**WEIGHT_DECIMALS).astype(np.int64)
    texts = _decimals()[np.clip(steps, -_TABLE_LIMIT, _TABLE_LIMIT) + _TABLE_LIMIT]
    outside = np.abs(steps) > _TABLE_LIMIT
    if outside.any():
        texts = texts.astype(object)
        texts[outside] = [_decimal(int(step)) for step in steps[outside]]
    return ["[" + ", ".join(row) + "]" for row in texts.tolist()]


_TABLE_LIMIT = 20_000  # |steps| the table holds: |w| <= 20


@cache
def _decimals() -> np.ndarray:
    """`_decimal` of every step in the table, written by float formatting (exact here: a float is within 1e-15
    of each step / 1000, far from a rounding boundary; tests/tasks/test_reading.py checks every one)."""
    scale = 10**WEIGHT_DECIMALS
    return np.array([f"{step / scale:.{WEIGHT_DECIMALS}f}" for step in range(-_TABLE_LIMIT, _TABLE_LIMIT + 1)])


def _decimal(step: int) -> str:
    """A whole number of 10**-WEIGHT_DECIMALS as a decimal: -1234 -> "-1.234", 0 -> "0.000"."""
    scale = 10**WEIGHT_DECIMALS
    return f"{'-' if step < 0 else ''}{abs(step) // scale}.{abs(step) % scale:0{WEIGHT_DECIMALS}d}"


def weights_section(weights: dict, heading: str) -> str:
    """THE WEIGHTS of a reading or repair prompt: how they are listed, then the listing."""
    return f"""{heading}
Every weight and bias, rounded to {WEIGHT_DECIMALS} decimals, one row per line in numpy's notation (W1[i] is input
i's row: its weights to the 32 units of layer 1; W2[j] unit j of layer 1 to layer 2; W3[k] unit k of layer 2
to the six logits):
```
{weights_listing(weights)}
```"""
