"""Versioned prompt templates. A result is only comparable with results made from the same prompt, so
every record carries the template's version and the rendered text's hash.

Change the text of a template => bump its version (a snapshot test fails until you do).

The MinAtar prompt has these sections, in this order: THE TASK (constraints), THE GAME (rules and the
game's exact source file), THE OBSERVATION, THE ACTIONS, THE NETWORK, SCORING, THE EDITS LANGUAGE.
The SUPERBEAM prompt is the one `superbeam.task` renders (the reference `task_prompt()`).
"""

from __future__ import annotations

import hashlib
import textwrap
from dataclasses import dataclass

from wspbench.answers import edits

MINATAR_PROMPT_VERSION = "minatar-v1"
MINATAR_SYSTEM = "You directly program neural-network weights. Follow the task constraints exactly."
SECTION_TITLES = ("THE TASK", "THE GAME", "THE OBSERVATION", "THE ACTIONS", "THE NETWORK", "SCORING",
                  "THE EDITS LANGUAGE")
CHANNEL_NAMES = ("player", "danger", "reward", "projectile", "trail", "gauge")
ACTION_NAMES = ("no-op", "left", "up", "right", "down", "fire")


@dataclass(frozen=True)
class GameFacts:
    """What the MinAtar prompt says about one game; gathered in `families.py` from the game itself."""

    task_id: str              # "original/breakout"
    game: str
    title: str                # one-line description
    source_path: str          # shown to the model, e.g. "minatar/environments/breakout.py"
    source: str               # the exact file text
    channel_notes: str        # how the game's own channels land on the six inputs
    action_notes: str         # which actions do something in this game
    score_cap: float
    max_steps: int


@dataclass(frozen=True)
class ProtocolFacts:
    """What the prompt says about the protocol: one reply, or feedback rounds on training episodes."""

    protocol: str             # "one-shot" | "feedback"
    rounds: int
    episodes: int             # scoring episodes
    train_episodes: int = 0


def prompt_hash(system: str, user: str) -> str:
    return hashlib.sha256((system + "\n\x00\n" + user).encode()).hexdigest()


def flat_index(row: int, col: int, channel: int) -> int:
    return (row * 10 + col) * 6 + channel


def render_minatar(game: GameFacts, protocol: ProtocolFacts) -> str:
    """The user prompt of a MinAtar task (original or synthetic game)."""
    sections = [_task(game, protocol), _game(game), _observation(game), _actions(game), _network(),
                _scoring(game, protocol), _edits_language()]
    return "\n\n".join(sections) + "\n\nReply with your reasoning, then one ```edits block.\n"


def _task(game: GameFacts, protocol: ProtocolFacts) -> str:
    if protocol.protocol == "one-shot":
        mode = ("This is one-shot mode: you get no training, no data, no gradients, no code execution, no "
                "calculator and no feedback from the environment. You write ONE reply; it is graded as it is.")
    else:
        mode = (f"This is feedback mode: you may reply up to {protocol.rounds} times. After each reply your "
                f"network plays {protocol.train_episodes} TRAINING episodes (seeds different from the scoring "
                "episodes) and you are told the results, grouped by episodes; a reply without a usable edits "
                "block is answered with the error. The reply with the best training score is then graded "
                "once on the held-out scoring episodes. You still get no training, data, gradients, code "
                "execution or calculator: every weight is written by you.")
    intro = textwrap.fill(f"Write, from scratch, every weight of a small neural network that plays the game "
                          f"{game.game} ({game.task_id}) as well as possible. {mode}", width=104)
    return f"""THE TASK
{intro}
- All weights start at 0. Your reply sets them with an ```edits block (THE EDITS LANGUAGE below).
- Only the LAST ```edits block of a reply counts; everything else in the reply is ignored by the grader.
- Each reply replaces the network completely: it starts again from all zeros.
- Think of the network as a program: give each hidden unit a job (a feature of the screen, a
  comparison, a logical AND/OR) and set its weights so it computes exactly that."""


def _game(game: GameFacts) -> str:
    return f"""THE GAME
{game.game}: {game.title}
Its rules are the program below, the exact source file `{game.source_path}` that the grader runs.

```python
{game.source.rstrip()}
```"""


def _observation(game: GameFacts) -> str:
    examples = "\n".join(
        f"  row {r}, col {c}, channel {ch} ({CHANNEL_NAMES[ch]}): i = ({r}*10 + {c})*6 + {ch} = {flat_index(r, c, ch)}"
        for r, c, ch in ((0, 0, 0), (0, 1, 0), (1, 0, 0), (3, 7, 2), (9, 4, 0), (9, 9, 5)))
    channels = "\n".join(f"  {i} {name}" for i, name in enumerate(CHANNEL_NAMES))
    return f"""THE OBSERVATION
Every step the network sees the screen: a 10x10 grid (row 0 at the top, column 0 at the left) with 6
channels, each cell of each channel 1.0 (on) or 0.0 (off). The six channels:
{channels}
{game.channel_notes}
The grid is flattened row-major into the 600 inputs x[0..599]:
  i = (row*10 + col)*6 + channel
Worked examples:
{examples}
Useful slices (numpy, as in the edits language): W1[ch::6, j] is channel ch of all 100 cells in order
(row 0 col 0, row 0 col 1, ..., row 9 col 9); W1[r*60 + ch:(r + 1)*60:6, j] is channel ch along row r
(10 cells, col 0..9); W1[c*6 + ch::60, j] is channel ch down column c (10 cells, row 0..9)."""


def _actions(game: GameFacts) -> str:
    names = ", ".join(f"{i} {name}" for i, name in enumerate(ACTION_NAMES))
    return f"""THE ACTIONS
The network outputs six logits, one per action: {names}.
{game.action_notes}
The action is SAMPLED: p = softmax(logits) (computed in float64 after subtracting the largest logit),
then action = RandomState.choice(6, p=p) with the episode's own generator. Equal logits give each action
probability 1/6; a logit 10 above all others gives that action about 99.98%.
Sticky actions: with probability 0.1 on every step the game ignores the chosen action and repeats the
previous one."""


def _network() -> str:
    return """THE NETWORK
600 -> 32 -> 32 -> 6, tanh, float32:
  h1 = tanh(x @ W1 + b1)       # x: 600 inputs, W1: (600, 32), b1: (32,)
  h2 = tanh(h1 @ W2 + b2)      # W2: (32, 32), b2: (32,)
  logits = h2 @ W3 + b3        # W3: (32, 6), b3: (6,)
W1[i, j] is the weight from input i to hidden unit j of layer 1; W2[j, k] from unit j of layer 1 to unit
k of layer 2; W3[k, a] from unit k of layer 2 to the logit of action a; b1[j], b2[k], b3[a] are biases.
tanh saturates: tanh(3) = 0.995, tanh(-3) = -0.995, so a unit with a large weighted sum acts as a switch
that is +1 or -1, and a unit with small sums (|z| < 0.3) is nearly linear (tanh(z) ~ z)."""


def _scoring(game: GameFacts, protocol: ProtocolFacts) -> str:
    n = protocol.episodes
    training = ""
    if protocol.protocol == "feedback":
        training = ("\nTraining episodes (feedback rounds) use other seeds; the scoring episodes are never "
                    "shown to you.")
    return f"""SCORING
The network plays {n} episodes. Episode e (e = 0..{n - 1}) seeds the game with 1729 + e and the action
sampler with RandomState(7919 + e); sticky actions 0.1; an episode lasts until the game ends it or for
at most {game.max_steps:,} steps. The raw score is the mean episode return; the normalised score is
min(max(raw, 0), {game.score_cap:g}) / {game.score_cap:g}, in [0, 1] ({game.score_cap:g} is this game's cap).
A reply whose edits block is missing or rejected scores 0.{training}"""


def _edits_language() -> str:
    return f"""THE EDITS LANGUAGE
The body of the block is a list of statements, one per line; `#` starts a comment:
  T[index] = value        T[index] += value        T[index] -= value        T[index] *= value
- T is one of W1 b1 W2 b2 W3 b3.
- index is an int, a slice of literal ints (start:stop:step, negative numbers allowed) or a tuple of
  those, exactly as numpy indexes: W1[5, 0], W1[0:60, 3], W1[2::6, 7], b3[:], W3[:, 1].
- value is a number or a (nested) list of numbers; numpy broadcasts it into the indexed part, so
  W1[2::6, 0] = 1.5 writes 100 weights and W3[0, :] = [1, 0, 0, 2, 0, 0] writes one row.
- Statements run in order on float32 tensors that start at 0, so later edits overwrite or adjust earlier ones.
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
Bounds: at most {edits.MAX_ANSWER_CHARS:,} characters in the reply, {edits.MAX_STATEMENTS:,} statements,
{edits.MAX_LITERAL_ELEMENTS:,} list elements in one value, nesting depth {edits.MAX_NESTING}."""


def minatar_parse_feedback(error: str) -> str:
    """What the model is told when its reply has no usable edits block (feedback protocol)."""
    return (f"I could not use that: {error}. Reply with your reasoning, then the complete network in one "
            "```edits block (all weights start at 0 again).")
