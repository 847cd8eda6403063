"""Generate MinAtar-style games from an integer seed: `generate(seed)` returns the source of a game module.

A generated module keeps the contract of the hand-written games in `minatar_synth.games` (a docstring whose first
line describes the game, then its rules, channels, actions and reward; one class `Gen<seed>Environment` with
`score_cap` and `max_steps`, `seed`, `reset`, `act` with sticky actions first, `state()` -> (10, 10, 6) bool),
and is plain code: each mechanic the seed picks is written out as the few lines it takes, with no table of
options left to read. The same seed gives the same text byte for byte (every choice comes from
`random.Random(seed)`, in a fixed order).

The mechanics a seed combines:
  layout     where the player is and how it moves: "bottom" (bottom row, left/right), "left" (left column,
             up/down) or "free" (anywhere, four directions); the edges stop it or wrap it round
  fire       whether action 5 launches a shot against the flow (one in flight at a time)
  objects    two kinds: one collected (reward channel) and one avoided (danger channel), or only the danger
             kind when points come from shooting; each kind has a motion ("fall": straight with the flow,
             "zigzag": with the flow and sideways, bouncing off walls, "chase": with the flow, stepping
             sideways toward the player, dangers of games without shooting points only, "drift": across the
             grid in a random row, free layout only), a speed (steps per move) and a chance of appearing each
             step
  scoring    +1 per object collected, +1 per danger shot (and then -1 per shot that misses), or both
  ending     a danger touched ends the episode ("crash"), costs one of a few lives ("lives"), or costs one
             point ("penalty": the episode ends only at `max_steps`)
  extras     an optional trail channel (where objects were before this step's move) and a gauge (lives left,
             or time left)

    python -m minatar_synth.generator SEED [--out DIR]
"""

from __future__ import annotations

import argparse
import random
import textwrap
from dataclasses import dataclass
from pathlib import Path

PLACEHOLDER_CAP = 1.0  # the cap written when none is given: calibration sets the real one

PLAYERS = ("ship", "diver", "robot", "cart", "frog", "drone", "knight", "rover")
SHOTS = ("laser", "harpoon", "bolt", "dart", "spark", "arrow")
REWARDS = (("coin", "coins"), ("gem", "gems"), ("pearl", "pearls"), ("star", "stars"), ("apple", "apples"),
           ("crystal", "crystals"), ("egg", "eggs"), ("shell", "shells"))  # fmt: skip
DANGERS = (("rock", "rocks"), ("bomb", "bombs"), ("spike", "spikes"), ("bat", "bats"), ("meteor", "meteors"),
           ("mine", "mines"), ("ghost", "ghosts"), ("wasp", "wasps"))  # fmt: skip
ORDINAL = {1: "every step", 2: "every second step", 3: "every third step"}


@dataclass(frozen=True)
class Kind:
    """One kind of object: its names, how it moves, how fast (steps per move) and how often it appears."""

    name: str
    plural: str
    motion: str
    period: int
    chance: float

    @property
    def constant(self) -> str:
        return self.name.upper()

    @property
    def fields(self) -> str:
        sideways = self.motion in ("zigzag", "drift")
        return "[row, col, side, countdown]" if sideways else "[row, col, countdown]"


@dataclass(frozen=True)
class Design:
    """Every choice a seed makes, drawn in a fixed order by `design`."""

    seed: int
    layout: str
    wrap: bool
    fire: bool
    scoring: str
    ending: str
    lives: int
    player: str
    shot: str
    reward: Kind | None
    danger: Kind
    trail: bool
    gauge: str
    max_steps: int
    family: str = "gen"  # the module's name prefix: gen_<seed>, or hard_<seed> (`hard_design`)
    pellet: Kind | None = None  # power pellets (channel 3, in games that do not fire): eating one powers the player
    power: int = 0  # the steps a power phase lasts: while powered, a danger touched is eaten for +2
    bonus: Kind | None = None  # a second kind to collect, on the reward channel too: it moves otherwise ...
    bonus_value: int = 0  # ... and is worth this much

    @property
    def kinds(self) -> list[Kind]:
        """The kinds of objects the game has, in the order the module moves and spawns them."""
        return [kind for kind in (self.reward, self.bonus, self.danger, self.pellet) if kind is not None]


def design(seed: int, family: str = "gen") -> Design:
    """The seed's choice of mechanics (`hard_design` for the hard family)."""
    if family == "hard":
        return hard_design(seed)
    if family != "gen":
        raise ValueError(f"unknown family of generated games {family!r} (gen, hard)")
    rng = random.Random(seed)
    layout = rng.choice(("bottom", "bottom", "left", "free"))
    wrap = rng.random() < 0.25
    scoring = rng.choice(("collect", "collect", "shoot", "both"))
    fire = scoring != "collect" or rng.random() < 0.3
    ending = rng.choice(("crash", "lives", "lives", "penalty"))
    lives = rng.choice((2, 3, 4)) if ending == "lives" else 1
    player, shot = rng.choice(PLAYERS), rng.choice(SHOTS)
    # Nothing that scores homes in on the player: a homing reward comes to a player who stands still, and a
    # homing target to a constant fire; only dangers in games without shooting points home in.
    motions = ("fall", "zigzag") + (("drift",) if layout == "free" else ())
    reward = None
    if scoring != "shoot":
        name, plural = rng.choice(REWARDS)
        reward = Kind(name, plural, rng.choice(motions), rng.choice((1, 2, 2, 3)), rng.choice((0.2, 0.3, 0.4)))
    name, plural = rng.choice(DANGERS)
    if scoring == "collect":
        motions = (*motions, "chase")
    chances = (0.15, 0.2, 0.3) if scoring == "collect" else (0.3, 0.4, 0.5)  # the targets of a shooting game
    danger = Kind(name, plural, rng.choice(motions), rng.choice((1, 2, 2, 3)), rng.choice(chances))
    trail = rng.random() < 0.5
    gauge = "lives" if ending == "lives" else rng.choice(("time", "none"))
    max_steps = rng.choice((200, 250, 300, 400, 500))
    return Design(seed, layout, wrap, fire, scoring, ending, lives, player, shot, reward, danger, trail, gauge,
                  max_steps)  # fmt: skip


def hard_design(seed: int) -> Design:
    """A hard game's choice of mechanics (issue 49): a collecting game, as `design` draws one, with one or both of
    the mechanics only this family has on top. A power phase: pellets that, once eaten, turn the dangers into prey
    for POWER_STEPS steps, shown on the gauge, so a good policy reads the gauge and turns from fleeing the dangers
    to hunting them. A bonus: a second kind to collect, worth 3 or 5, on the reward channel too and told apart only
    by how it moves (the trail shows it), so a good policy reads each object's motion before it chooses. Drawn
    from its own stream ("hard_<seed>"), so hard seed 100 is not gen seed 100."""
    rng = random.Random(f"hard_{seed}")
    new = rng.choice((("power",), ("bonus",), ("power", "bonus")))
    layout = rng.choice(("bottom", "bottom", "left", "free"))
    wrap = rng.random() < 0.25
    ending = rng.choice(("crash", "lives", "penalty"))
    lives = rng.choice((2, 3, 4)) if ending == "lives" else 1
    player = rng.choice(PLAYERS)
    motions = ("fall", "zigzag") + (("drift",) if layout == "free" else ())
    name, plural = rng.choice(REWARDS)
    reward = Kind(name, plural, rng.choice(motions), rng.choice((1, 2, 2, 3)), rng.choice((0.1, 0.2, 0.3)))
    bonus, bonus_value = None, 0
    if "bonus" in new:
        name, plural = rng.choice([names for names in REWARDS if names[0] != reward.name])
        motion = rng.choice([motion for motion in motions if motion != reward.motion])
        bonus = Kind(name, plural, motion, rng.choice((1, 2)), rng.choice((0.05, 0.08)))
        bonus_value = rng.choice((3, 5))
    name, plural = rng.choice(DANGERS)
    danger = Kind(name, plural, rng.choice((*motions, "chase")), rng.choice((1, 2, 2, 3)), rng.choice((0.2, 0.3)))
    trail = bonus is not None or rng.random() < 0.5  # a bonus is told apart by its motion: the trail shows it
    max_steps = rng.choice((300, 400, 500))
    pellet, power, gauge = None, 0, rng.choice(("time", "none")) if ending != "lives" else "lives"
    if "power" in new:
        pellet = Kind("pellet", "pellets", "fall", rng.choice((1, 2)), rng.choice((0.03, 0.05, 0.08)))
        power, gauge = rng.choice((8, 12, 16)), "power"
    return Design(seed, layout, wrap, False, "collect", ending, lives, player, SHOTS[0], reward, danger, trail,
                  gauge, max_steps, "hard", pellet, power, bonus, bonus_value)  # fmt: skip


# --- the docstring ---------------------------------------------------------------------------------------------


def describe(d: Design) -> str:
    """The module docstring: a one-line description, then rules, channels, actions and reward."""
    where = {"bottom": "along the bottom row", "left": "up and down the left column", "free": "around the grid"}
    danger = f"{motion_adjective(d.danger)} {d.danger.plural}"
    collected = " and ".join(kind.plural for kind in (d.reward, d.bonus) if kind is not None)
    goal = {
        "collect": f"collect {collected} while dodging {danger}",
        "shoot": f"shoot {danger}",
        "both": f"collect {collected} while dodging or shooting {danger}",
    }[d.scoring]
    if d.power:
        goal += f"; power pellets let it eat the {d.danger.plural} for a while"
    first = f"{d.family.capitalize()} {d.seed:05d}: move {a(d.player)} {where[d.layout]} to {goal}."
    lines = [first, "", "Rules"]
    lines += rule_lines(d)
    lines += ["", "Channels of state()"] + channel_lines(d)
    lines += ["", "Actions"] + action_lines(d)
    lines += ["", "Reward"] + reward_lines(d)
    return "\n".join(wrapped for line in lines for wrapped in wrap(line))


def wrap(line: str, width: int = 110) -> list[str]:
    """A docstring line broken before `width`, its continuation lines indented by two spaces."""
    return textwrap.wrap(line, width, subsequent_indent="  ", break_on_hyphens=False) or [""]


def a(noun: str) -> str:
    """The noun with its indefinite article: `a gem`, `an arrow`."""
    return f"{'an' if noun[0] in 'aeiou' else 'a'} {noun}"


def motion_adjective(kind: Kind) -> str:
    return {"fall": "falling", "zigzag": "zigzagging", "chase": "homing", "drift": "drifting"}[kind.motion]


def rule_lines(d: Design) -> list[str]:
    """One string per rule (`describe` wraps them)."""
    p = d.player
    edges = "wrapping round to the other side" if d.wrap else "stopping at the edges"
    if d.layout == "bottom":
        where, moves = "on the bottom row (row 9)", "Actions 1 (left) and 3 (right) move it one column"
    elif d.layout == "left":
        where, moves = "in the left column (column 0)", "Actions 2 (up) and 4 (down) move it one row"
    else:
        where = "that starts in the middle of the grid and stays in rows 1 to 9 (objects appear in row 0)"
        moves = "Actions 1 (left) and 3 (right) move it one column, 2 (up) and 4 (down) one row"
        edges = "stopping at row 1 and row 9" + (" and wrapping round sideways" if d.wrap else " and at the side edges")
    lines = [f"- The {p} is one cell {where}. {moves}, {edges}. Other actions leave it in place."]
    if d.fire:
        direction = "to the right" if d.layout == "left" else "up"
        lines.append(
            f"- Action 5 (fire) launches {a(d.shot)} from the {p}'s cell when no {d.shot} is in flight. The {d.shot} "
            f"moves one cell {direction} every step, removes the first object it meets and vanishes with it, or "
            "leaves the grid" + (" (a miss, which costs 1 point)." if shots_score(d) else ".")
        )
    for kind in d.kinds:
        lines.append(kind_rule(d, kind))
    outcomes = [f"{a(d.reward.name)} gives +1"] if d.reward else []
    if d.bonus:
        outcomes.append(f"{a(d.bonus.name)} gives +{d.bonus_value}")
    if d.power:
        outcomes.append(f"{a(d.pellet.name)} powers the {p} for POWER_STEPS ({d.power}) steps (see power below)")
    outcomes.append(
        {
            "crash": f"{a(d.danger.name)} ends the episode",
            "lives": f"{a(d.danger.name)} costs one of the {p}'s {d.lives} lives",
            "penalty": f"{a(d.danger.name)} costs 1 point (-1 reward)",
        }[d.ending]
        + (f" unless the {p} is powered" if d.power else "")
    )
    lines.append(
        f"- When the {p} and an object share a cell (checked after the {p} moves and again after the objects move), "
        f"the object is removed: {'; '.join(outcomes)}."
    )
    if shots_score(d):
        lines.append(f"- {a(d.danger.name).capitalize()} removed by {a(d.shot)} gives +1.")
    if d.power:
        lines.append(
            f"- Power: eating {a(d.pellet.name)} sets the {p}'s power to POWER_STEPS; the pellets are resolved "
            f"before the {d.danger.plural} on the same touch. While the power is above 0, {a(d.danger.name)} the "
            f"{p} touches is eaten: it is removed and gives +2, and nothing else happens. The power goes down by 1 "
            "at the end of every step."
        )
    limit = f"after `max_steps` ({d.max_steps}) steps"
    ending = {"lives": "when the last life is lost or ", "crash": f"at the first {d.danger.name} touched or "}
    lines.append(f"- The episode ends {ending.get(d.ending, '')}{limit}.")
    order = f"the {p} moves" + (f", the {d.shot} moves" if d.fire else "") + ", the objects move, new ones appear"
    order += ", the power goes down" if d.power else ""
    lines.append(f"- Each step: {order}.")
    return lines


def kind_rule(d: Design, kind: Kind) -> str:
    """How a kind of object appears, moves and leaves."""
    when = ORDINAL[kind.period]
    chance = f"(chance {kind.chance:.2f} each step, if that cell is empty)"
    if kind.motion == "drift":
        return (
            f"- {kind.plural.capitalize()} appear at the left or right edge in a random row {chance} and cross the "
            f"grid one column {when}; they are gone when they leave it."
        )
    if d.layout == "left":
        entry, flow, side, walls = "column 9 at a random row", "one column left", "row", "top and bottom walls"
    else:
        entry, flow, side, walls = "row 0 at a random column", "one row down", "column", "side walls"
    motion = {
        "fall": f"They move {flow} {when}",
        "zigzag": f"They move {flow} and one {side} sideways {when} (each picks its sideways direction when it "
        f"appears), bouncing off the {walls}",
        "chase": f"They move {flow} {when}, each time also stepping one {side} toward the {d.player} with chance 0.5",
    }[kind.motion]
    return f"- {kind.plural.capitalize()} appear in {entry} {chance}. {motion}; they are gone when they leave the grid."


def channel_lines(d: Design) -> list[str]:
    lines = [f"- 0 player: the {d.player}.", f"- 1 danger: the {d.danger.plural}."]
    unused = []
    if d.bonus:
        lines.append(
            f"- 2 reward: the {d.reward.plural} and the {d.bonus.plural} alike (they differ only in how they move)."
        )
    elif d.reward:
        lines.append(f"- 2 reward: the {d.reward.plural}.")
    else:
        unused.append("2 (reward)")
    if d.fire:
        lines.append(f"- 3 projectile: the {d.shot}.")
    elif d.pellet:
        lines.append(f"- 3 projectile: the power {d.pellet.plural} (this game fires nothing).")
    else:
        unused.append("3 (projectile)")
    if d.trail:
        lines.append("- 4 trail: the cells objects occupied before they moved on this step.")
    else:
        unused.append("4 (trail)")
    if d.gauge == "lives":
        lines.append("- 5 gauge: the lives left, one lit cell each in row 9 from column 0.")
    elif d.gauge == "time":
        lines.append("- 5 gauge: the time left, a bar in row 9 from column 0 that shrinks from 10 cells to 0.")
    elif d.gauge == "power":
        lines.append(
            "- 5 gauge: the power left, a bar in row 9 from column 0 of ceil(power * 10 / POWER_STEPS) cells (none "
            "while unpowered)."
        )
    else:
        unused.append("5 (gauge)")
    if len(unused) == 1:
        lines.append(f"Channel {unused[0]} is unused.")
    elif unused:
        lines.append(f"Channels {', '.join(unused)} are unused.")
    return lines


def acting_actions(layout: str, fire: bool) -> tuple[int, ...]:
    """The actions that do something in a game of this layout, no-op first; every other action acts like no-op."""
    moves = {"bottom": (1, 3), "left": (2, 4), "free": (1, 2, 3, 4)}[layout]
    return (0, *moves, *((5,) if fire else ()))


def action_lines(d: Design) -> list[str]:
    moves = {"bottom": "1 left, 3 right", "left": "2 up, 4 down", "free": "1 left, 2 up, 3 right, 4 down"}[d.layout]
    acting = set(acting_actions(d.layout, d.fire)) - {0}
    text = f"- 0 no-op, {moves}" + (", 5 fire" if d.fire else "")
    idle = [str(a) for a in range(1, 6) if a not in acting]
    if len(idle) == 1:
        text += f"; {idle[0]} does nothing"
    elif idle:
        text += f"; {', '.join(idle[:-1])} and {idle[-1]} do nothing"
    return [text + "."]


def shots_score(d: Design) -> bool:
    """Whether a shot that hits scores +1, and then a shot that misses costs 1 (else firing all the time would
    score with no aiming)."""
    return d.scoring != "collect"


def reward_lines(d: Design) -> list[str]:
    parts = []
    if d.reward:
        parts.append(f"+1 for each {d.reward.name} collected")
    if d.bonus:
        parts.append(f"+{d.bonus_value} for each {d.bonus.name} collected")
    if shots_score(d):
        parts.append(f"+1 for each {d.danger.name} shot; -1 for each {d.shot} that misses (leaves the grid)")
    if d.power:
        parts.append(f"+2 for each {d.danger.name} eaten while powered")
    if d.ending == "penalty":
        parts.append(f"-1 for each {d.danger.name} touched" + (" while unpowered" if d.power else ""))
    return ["- " + "; ".join(parts) + "."]


# --- the code --------------------------------------------------------------------------------------------------


def constants(d: Design) -> list[str]:
    lines = ["GRID = 10", "BOTTOM = GRID - 1"]
    if d.layout == "free":
        lines.append("TOP = 1  # the highest row the player may enter: objects appear in row 0")
    if d.ending == "lives":
        lines.append(f"START_LIVES = {d.lives}")
    for kind in d.kinds:
        lines.append(f"{kind.constant}_CHANCE = {kind.chance}  # chance each step that a new {kind.name} appears")
        lines.append(f"{kind.constant}_PERIOD = {kind.period}  # steps per move of {a(kind.name)}")
    if d.bonus:
        lines.append(f"{d.bonus.constant}_VALUE = {d.bonus_value}  # the reward for {a(d.bonus.name)}")
    if d.power:
        lines.append(f"POWER_STEPS = {d.power}  # the power a pellet gives: steps during which dangers are prey")
    names = {"bottom": ["LEFT", "RIGHT"], "left": ["UP", "DOWN"], "free": ["LEFT", "UP", "RIGHT", "DOWN"]}[d.layout]
    numbers = {"LEFT": "1", "UP": "2", "RIGHT": "3", "DOWN": "4"}
    if d.fire:
        names, numbers = [*names, "FIRE"], {**numbers, "FIRE": "5"}
    lines.append(f"{', '.join(names)} = {', '.join(numbers[n] for n in names)}")
    return lines


def clamp_or_wrap(d: Design, target: str, step: str) -> str:
    """A move along one axis: wrapped, or stopped at the edges (in the free layout, rows stop at TOP and BOTTOM)."""
    vertical = target.endswith("[0]")
    if d.wrap and not (d.layout == "free" and vertical):
        return f"{target} = ({target} {step}) % GRID"
    low = "TOP" if d.layout == "free" and vertical else "0"
    bound = f"max({low}, " if step.startswith("-") else "min(BOTTOM, "
    return f"{target} = {bound}{target} {step})"


def move_player(d: Design) -> list[str]:
    row, col = "self.player[0]", "self.player[1]"
    left, up, right, down = ("LEFT", col, "- 1"), ("UP", row, "- 1"), ("RIGHT", col, "+ 1"), ("DOWN", row, "+ 1")
    pairs = {"bottom": [left, right], "left": [up, down], "free": [left, up, right, down]}[d.layout]
    lines = ["    def move_player(self, action):"]
    for i, (name, target, step) in enumerate(pairs):
        lines.append(f"        {'if' if i == 0 else 'elif'} action == {name}:")
        lines.append(f"            {clamp_or_wrap(d, target, step)}")
    return lines


def move_kind(d: Design, kind: Kind) -> list[str]:
    """The method that moves one object of `kind`: False once it has left the grid."""
    one, var = kind.name, kind.name
    side = 0 if d.layout == "left" else 1  # the sideways axis: rows when objects flow along them
    advance = f"{var}[1] -= 1" if d.layout == "left" else f"{var}[0] += 1"
    inside = f"{var}[1] >= 0" if d.layout == "left" else f"{var}[0] <= BOTTOM"
    lines = [f"    def move_{one}(self, {var}):",
             f'        """Every {kind.constant}_PERIOD steps move the {one}; False once it has left the grid."""',
             f"        {var}[-1] -= 1",
             f"        if {var}[-1] > 0:",
             "            return True",
             f"        {var}[-1] = {kind.constant}_PERIOD"]  # fmt: skip
    if d.trail:
        lines.append(f"        self.trail.append(({var}[0], {var}[1]))")
    if kind.motion == "drift":
        lines += [f"        {var}[1] += {var}[2]", f"        return 0 <= {var}[1] < GRID"]
        return lines
    if kind.motion == "zigzag":
        lines += [f"        if not 0 <= {var}[{side}] + {var}[2] < GRID:",
                  f"            {var}[2] = -{var}[2]  # bounce off the wall",
                  f"        {var}[{side}] += {var}[2]"]  # fmt: skip
    elif kind.motion == "chase":
        toward = f"int(np.sign(self.player[{side}] - {var}[{side}]))"
        lines.append("        if self.random.rand() < 0.5:")
        lines.append(f"            {var}[{side}] += {toward}  # one step toward the {d.player}")
    lines += [f"        {advance}", f"        return {inside}"]
    return lines


def spawn_kind(d: Design, kind: Kind) -> list[str]:
    var = "cell"
    lines = [f"        if self.random.rand() < {kind.constant}_CHANCE:"]
    if kind.motion == "drift":
        lines += ["            side = 1 if self.random.rand() < 0.5 else -1  # +1 crosses to the right",
                  f"            {var} = [self.random.randint(GRID), 0 if side == 1 else BOTTOM]"]  # fmt: skip
    elif d.layout == "left":
        lines.append(f"            {var} = [self.random.randint(GRID), BOTTOM]")
    else:
        lines.append(f"            {var} = [0, self.random.randint(GRID)]")
    if kind.motion == "zigzag":
        lines.append("            side = 1 if self.random.rand() < 0.5 else -1")
    extra = "side, " if kind.motion in ("zigzag", "drift") else ""
    lines += [f"            if self.is_empty({var}):",
              f"                self.{kind.plural}.append({var} + [{extra}{kind.constant}_PERIOD])"]  # fmt: skip
    return lines


def touch(d: Design) -> list[str]:
    p = d.player

    def take(kind: Kind, resolve: list[str]) -> list[str]:
        """Keep the objects of `kind` off the player's cell; `resolve` reads `kept` before the list is replaced."""
        k = kind.name
        return [f"        kept = [{k} for {k} in self.{kind.plural} if {k}[:2] != self.player]", *resolve,
                f"        self.{kind.plural} = kept"]  # fmt: skip

    lines = ["    def touch(self):",
             f'        """Remove the objects on the {p}\'s cell and resolve them; the reward they give."""',
             "        reward = 0.0"]  # fmt: skip
    if d.reward:
        lines += take(d.reward, [f"        reward += len(self.{d.reward.plural}) - len(kept)"])
    if d.bonus:
        b = d.bonus
        lines += take(b, [f"        reward += {b.constant}_VALUE * (len(self.{b.plural}) - len(kept))"])
    if d.pellet:
        lines += take(d.pellet, [f"        if len(kept) < len(self.{d.pellet.plural}):",
                                 "            self.power = POWER_STEPS"])  # fmt: skip
    lines += take(d.danger, [f"        hits = len(self.{d.danger.plural}) - len(kept)"])
    ending = {"crash": "self.crashed = self.crashed or hits > 0", "lives": "self.lives -= hits",
              "penalty": "reward -= hits"}[d.ending]  # fmt: skip
    if d.power:
        lines += ["        if self.power > 0:",
                  "            reward += 2.0 * hits  # eaten while powered",
                  "        else:",
                  f"            {ending}"]  # fmt: skip
    else:
        lines.append(f"        {ending}")
    lines.append("        return reward")
    return lines


def shoot(d: Design) -> list[str]:
    g = d.danger
    lines = ["    def hit_by_shot(self):",
             f'        """Remove the first object on the {d.shot}\'s cell, and the {d.shot}; the reward it gives."""',
             "        if self.shot is None:",
             "            return 0.0"]  # fmt: skip
    value = "1.0" if shots_score(d) else "0.0"
    kinds = [(g, value)] + [(kind, "0.0") for kind in (d.reward, d.bonus) if kind is not None]
    for kind, points in kinds:
        lines += [f"        for {kind.name} in self.{kind.plural}:",
                  f"            if {kind.name}[:2] == self.shot:",
                  f"                self.{kind.plural}.remove({kind.name})",
                  "                self.shot = None",
                  f"                return {points}"]  # fmt: skip
    lines.append("        return 0.0")
    return lines


def act(d: Design) -> list[str]:
    lines = ["    def act(self, action):",
             "        if self.random.rand() < self.sticky_action_prob:",
             "            action = self.last_action",
             "        self.last_action = action",
             "        reward = 0.0",
             "        if self.terminal:",
             "            return reward, True",
             "",
             "        self.move_player(action)"]  # fmt: skip
    if d.fire:
        lines += ["        if action == FIRE and self.shot is None:",
                  "            self.shot = list(self.player)"]  # fmt: skip
    lines.append("        reward += self.touch()")
    if d.fire:
        step = "self.shot[1] += 1" if d.layout == "left" else "self.shot[0] -= 1"
        gone = "self.shot[1] > BOTTOM" if d.layout == "left" else "self.shot[0] < 0"
        lines += ["", f"        # The {d.shot} flies on; it may meet an object before or after the objects move.",
                  "        if self.shot is not None:",
                  f"            {step}",
                  f"            if {gone}:",
                  "                self.shot = None",
                  *(["                reward -= 1.0  # a miss"] if shots_score(d) else []),
                  "        reward += self.hit_by_shot()"]  # fmt: skip
    lines += ["", "        # Move the objects, then resolve what they reached."]
    if d.trail:
        lines.append("        self.trail = []")
    for kind in d.kinds:
        k = kind.name
        lines.append(f"        self.{kind.plural} = [{k} for {k} in self.{kind.plural} if self.move_{k}({k})]")
    if d.fire:
        lines.append("        reward += self.hit_by_shot()")
    lines += ["        reward += self.touch()", "        self.spawn()"]
    if d.power:
        lines += ["        if self.power > 0:", "            self.power -= 1  # the power runs down"]
    lines += ["", "        self.steps += 1"]
    end = {"crash": "self.crashed or ", "lives": "self.lives <= 0 or ", "penalty": ""}[d.ending]
    lines += [f"        self.terminal = {end}self.steps >= self.max_steps", "        return reward, self.terminal"]
    return lines


def state(d: Design) -> list[str]:
    lines = ["    def state(self):",
             "        obs = np.zeros((GRID, GRID, 6), dtype=bool)",
             "        obs[self.player[0], self.player[1], 0] = True"]  # fmt: skip
    for kind, channel in ((d.danger, 1), (d.reward, 2), (d.bonus, 2)):
        if kind is not None:
            lines.append(f"        for {kind.name} in self.{kind.plural}:")
            lines.append(f"            obs[{kind.name}[0], {kind.name}[1], {channel}] = True")
    if d.fire:
        lines += ["        if self.shot is not None:", "            obs[self.shot[0], self.shot[1], 3] = True"]
    if d.pellet:
        lines.append(f"        for {d.pellet.name} in self.{d.pellet.plural}:")
        lines.append(f"            obs[{d.pellet.name}[0], {d.pellet.name}[1], 3] = True")
    if d.trail:
        lines += ["        for row, col in self.trail:", "            obs[row, col, 4] = True"]
    if d.gauge == "lives":
        lines.append("        obs[BOTTOM, : max(self.lives, 0), 5] = True")
    elif d.gauge == "time":
        lines += ["        time_left = -(-(self.max_steps - self.steps) * GRID // self.max_steps)  # rounded up",
                  "        obs[BOTTOM, :time_left, 5] = True"]  # fmt: skip
    elif d.gauge == "power":
        lines += ["        power_left = -(-self.power * GRID // POWER_STEPS)  # rounded up",
                  "        obs[BOTTOM, :power_left, 5] = True"]  # fmt: skip
    lines.append("        return obs")
    return lines


def module(d: Design, score_cap: float | None) -> str:
    start = {"bottom": "[BOTTOM, GRID // 2]", "left": "[GRID // 2, 0]", "free": "[GRID // 2, GRID // 2]"}[d.layout]
    cap = f"{score_cap!r}" if score_cap is not None else f"{PLACEHOLDER_CAP!r}  # a placeholder until calibrated"
    reset = ["    def reset(self):", f"        self.player = {start}  # [row, col]"]
    for kind in d.kinds:
        reset.append(f"        self.{kind.plural} = []  # each is {kind.fields}")
    if d.fire:
        reset.append(f"        self.shot = None  # the {d.shot}'s [row, col] while in flight")
    if d.trail:
        reset.append("        self.trail = []  # (row, col) cells left by objects that moved on the last step")
    if d.ending == "crash":
        reset.append("        self.crashed = False")
    elif d.ending == "lives":
        reset.append("        self.lives = START_LIVES")
    if d.power:
        reset.append("        self.power = 0  # the steps of power left")
    reset += ["        self.steps = 0", "        self.last_action = 0", "        self.terminal = False"]
    spawn = ["    def spawn(self):", '        """Maybe add new objects, each on an empty cell."""']
    for kind in d.kinds:
        spawn += spawn_kind(d, kind)
    empty = ["    def is_empty(self, cell):",
             "        objects = " + " + ".join(f"self.{k.plural}" for k in d.kinds),
             "        return cell != self.player and all(obj[:2] != cell for obj in objects)"]  # fmt: skip
    methods = [
        ["    def __init__(self, sticky_action_prob=0.1):",
         "        self.sticky_action_prob = sticky_action_prob",
         "        self.random = np.random.RandomState(0)",
         "        self.reset()"],
        ["    def seed(self, seed):", "        self.random = np.random.RandomState(seed)"],
        reset, act(d), move_player(d),
        *[move_kind(d, kind) for kind in d.kinds],
        touch(d), *([shoot(d)] if d.fire else []), spawn, empty, state(d),
    ]  # fmt: skip
    lines = ['"""' + describe(d) + '\n"""', "", "import numpy as np", "", *constants(d), "", ""]
    lines += [f"class {class_name(d.seed, d.family)}:", f"    score_cap = {cap}", f"    max_steps = {d.max_steps}", ""]
    for method in methods:
        lines += [*method, ""]
    return "\n".join(lines).rstrip() + "\n"


# --- the entry points ------------------------------------------------------------------------------------------


FAMILIES = ("gen", "hard")  # a module's name prefix, and the family whose design it draws


def module_name(seed: int, family: str = "gen") -> str:
    return f"{family}_{seed:05d}"


def class_name(seed: int, family: str = "gen") -> str:
    return f"{family.capitalize()}{seed:05d}Environment"


def parse_name(name: str) -> tuple[str, int] | None:
    """(family, seed) of a generated module's name (`gen_00100`, `hard_00012`), or None for any other name."""
    family, _, seed = name.rpartition("_")
    if family not in FAMILIES or not seed.isdigit() or module_name(int(seed), family) != name:
        return None
    return family, int(seed)


def generate(seed: int, score_cap: float | None = None, family: str = "gen") -> str:
    """The full source of the game module `<family>_<seed>`; `score_cap` None writes PLACEHOLDER_CAP."""
    if seed < 0:
        raise ValueError(f"a game seed is a non-negative integer, not {seed}")
    return module(design(seed, family), score_cap)


def write(seed: int, folder: Path | str, score_cap: float | None = None, family: str = "gen") -> Path:
    """Write `<family>_<seed>.py` into `folder` (made if missing); its path."""
    path = Path(folder) / f"{module_name(seed, family)}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(generate(seed, score_cap, family))
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("seed", type=int)
    parser.add_argument("--family", choices=FAMILIES, default="gen")
    parser.add_argument("--out", type=Path, help="write gen_<seed>.py into this folder (default: print it)")
    parser.add_argument("--cap", type=float, help="the score cap to write (default: a placeholder)")
    options = parser.parse_args(argv)
    if options.out is None:
        print(generate(options.seed, options.cap, options.family), end="")
    else:
        print(write(options.seed, options.out, options.cap, options.family))


if __name__ == "__main__":
    main()
