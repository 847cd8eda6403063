"""Reading sets: the folders of trained networks that the identify and repair families show.

The public set is this package's `reading/` folder: `<game>.<seed>.npz` (the weights) and `.json` (the
training record) per network, and `damages.json` (the repair tasks' damages and returns, written by
benchmarks/damage.py). Each network belongs to one task, so each task has its own training seed: identify
shows FREE_SEEDS, identify-choice CHOICE_SEEDS, repair damages one network per round of `repair.ROUNDS`
(`repair_seeds`), and the `trained` baseline is seed 0
in `trained/` (tests/tasks/test_reading.py checks that no two of them share a weight matrix).

A private set is a folder of the same layout plus `set.json` (its name, its networks per game and a tag drawn
from its key, from which its seeds and ids are drawn),
written by `wsp reading build --key SECRET --out DIR` (`reading_build.py`); a set written by `wsp games generate
--key SECRET --out DIR` (`baselines/generated.py`) holds generated games instead (`games/`, `trained/`,
`generated.json`), which become tasks `<name>.gen/<hex>`. Every command loads the private sets
whose folders are listed in the environment variable WSP_PRIVATE_SETS (separated by `os.pathsep`), as tasks
`<name>.identify/<hex>`, `<name>.identify-choice/<hex>` and `<name>.repair/<hex>` outside the suite and its
digest: without the folder nobody can have seen their networks, so only reading can answer them.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from collections.abc import Collection
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from wspbench.games.minatar import MinAtarGame
from wspbench.networks import Network, Weights, load_network
from wspbench.tasks.spec import opaque_id

FREE_SEEDS = (4, 5)  # identify/<game>/<seed>: the original games, no candidates listed
CHOICE_SEEDS = (1, 3)  # identify-choice/<game>/<seed>: every game, candidates listed
REPAIR_SEED, REPAIR_ROUNDS = 2, 1  # repair/<game>/<damage>: the networks that are damaged, one per round of
# repair.ROUNDS: round 0's is seed 2 in every game (suite 4's), a later round's would have a seed of its own
# (`repair_seeds`; suite 10 had four later rounds)
DAMAGES_FILE = "damages.json"
DAMAGES_FORMAT = "wspbench.damages/2"  # /1 had one repair network per game, under "games"
SET_FILE = "set.json"
SET_FORMAT = "wspbench.private-set/1"
PRIVATE_SETS = "WSP_PRIVATE_SETS"
SET_NAME = re.compile(r"[a-z][a-z0-9_]{0,29}")
READING = "reading"  # this package's folder of the public set: the networks reading tasks show and damage


@dataclass(frozen=True)
class ReadingSet:
    """Where a reading task's network comes from, and how its id is written."""

    folder: Traversable
    name: str  # "" for the public set; a private set's ids start with it
    counts: tuple[int, int] = (len(FREE_SEEDS), len(CHOICE_SEEDS))  # networks per game: identify, identify-choice
    tag: str = ""  # a private set's, drawn from its key: its seeds and opaque ids come from it
    games: frozenset[str] | None = None  # the games it has networks for (None: every MinAtar game)
    generated: tuple[str, ...] = ()  # a private set's generated games (`wsp games generate`): modules in games/

    def has(self, game: str) -> bool:
        return self.games is None or game in self.games

    @property
    def private_folder(self) -> Path | None:
        """A private set's folder (its tasks' `Task.private_set`); None for the public set, inside the package."""
        return Path(str(self.folder)) if self.name else None

    def seeds(self, variant: str, game: str) -> tuple[int, ...]:
        """The training seeds of the networks a game's tasks of this variant show (one per task): the public
        set's constants, or a private set's seeds drawn from its tag, one per network."""
        if not self.name:
            return {"identify": FREE_SEEDS, "identify-choice": CHOICE_SEEDS, "repair": repair_seeds(game)}[variant]
        count = {"identify": self.counts[0], "identify-choice": self.counts[1], "repair": REPAIR_ROUNDS}[variant]
        return tuple(drawn(f"{self.tag}/seed/{variant}/{game}/{i}", 4) for i in range(count))

    def identify_seeds(self, binding: MinAtarGame) -> list[int]:
        """The seeds of every network the identify tasks of this game show: identify's for an original game
        (whose name is public, `identify.py`), and identify-choice's."""
        variants = ["identify"] * (binding.source == "original") + ["identify-choice"]
        return [seed for variant in variants for seed in self.seeds(variant, binding.game)]

    def task_id(self, variant: str, game: str, which: int | str) -> str:
        """`identify-choice/breakout/1` in the public set; `<name>.identify-choice/<12 hex>` in a private one
        (a group of its own in reports, as its public twin is)."""
        if not self.name:
            return f"{variant}/{game}/{which}"
        return f"{self.name}.{variant}/{drawn(f'{self.tag}/id/{variant}/{game}/{which}', 6):012x}"

    def public_id(self, task_id: str, salt: str) -> str:
        """The id exports show: a private id is opaque already; a public one is hashed (`spec.opaque_id`)."""
        return task_id if self.name else opaque_id(task_id, salt)

    def network(self, game: str, seed: int, network: Network) -> tuple[Weights, dict] | None:
        """The network `<game>.<seed>` in this set and its training record, or None."""
        return load_network(self.folder, f"{game}.{seed}", network)

    def damages(self) -> dict:
        """`damages.json` ({} when the set has none): the chosen damages and both networks' returns."""
        return _damages(self.folder)


@cache
def _damages(folder: Traversable) -> dict:
    path = folder / DAMAGES_FILE
    if not path.is_file():
        return {}
    data = json.loads(path.read_text())
    if data.get("format") != DAMAGES_FORMAT:
        raise ValueError(
            f"{path} is not a {DAMAGES_FORMAT} file (a set built before suite 10 has one repair network per game: "
            "build it again with `wsp reading build`)"
        )
    return data


PUBLIC = ReadingSet(resources.files("wspbench.tasks") / READING, "")


def repair_seeds(game: str) -> tuple[int, ...]:
    """The public set's training seeds of a game's repair networks, one per round: REPAIR_SEED, then seeds drawn
    from the game's name. Networks trained from one seed start from the same weights, so two games' networks of one
    seed could let each prompt undo the other's damage (docs/reading.md, "Floors"): later rounds share none."""
    return (REPAIR_SEED, *(drawn(f"public/seed/repair/{game}/{i}", 4) for i in range(1, REPAIR_ROUNDS)))


def drawn(text: str, size: int) -> int:
    """A number drawn from `text` (a private set's tag and a label): the first `size` bytes of its SHA-256."""
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:size], "big")


HOLDS = {"reading": "networks", "generated": "games"}  # what a private set of each kind holds


def set_tag(key: str, name: str, kind: str) -> str:
    """A new private set's tag, from which its seeds and ids are drawn: HMAC-SHA256 of the key and the set's kind
    and name. ValueError without a key, or for a name that is not SET_NAME."""
    if not key:
        raise ValueError(f"a private set needs a key: its {HOLDS[kind]} must not be derivable from the public code")
    if not SET_NAME.fullmatch(name):
        raise ValueError(f"the set's name {name!r:.40} must be lower-case letters, digits and _ (at most 30)")
    return hmac.new(key.encode(), f"wspbench {kind} set {name}".encode(), hashlib.sha256).hexdigest()[:32]


def open_set(folder: Path) -> ReadingSet:
    """The private set in `folder`, from its `set.json`; ValueError when it is not one."""
    path = Path(folder) / SET_FILE
    try:
        facts = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{folder} is not a private reading set: {path} cannot be read ({error})") from None
    if facts.get("format") != SET_FORMAT or not SET_NAME.fullmatch(str(facts.get("name", ""))):
        raise ValueError(f"{path} is not a {SET_FORMAT} file with a lower-case name")
    counts = (int(facts["identify"]), int(facts["identify_choice"]))
    generated = tuple(str(game) for game in facts.get("generated", []))
    if not all(game.startswith("gen_") and game.isidentifier() for game in generated):
        raise ValueError(f"{path} lists a generated game whose name is not gen_<seed>")
    return ReadingSet(Path(folder), facts["name"], counts, str(facts["tag"]), frozenset(facts["games"]), generated)


def private_sets() -> list[ReadingSet]:
    """The private sets named in WSP_PRIVATE_SETS, in its order (ValueError for a folder that is not one, or two
    sets with one name)."""
    folders = [part for part in os.environ.get(PRIVATE_SETS, "").split(os.pathsep) if part.strip()]
    sets = [open_set(Path(folder)) for folder in folders]
    names = [found.name for found in sets]
    if len(set(names)) != len(names):
        raise ValueError(f"{PRIVATE_SETS} lists two private sets with one name: {', '.join(names)}")
    return sets


NETWORK_FILE = re.compile(
    r"(wspbench/tasks/reading|wspbench/baselines/trained|minatar_synth/trained)/([^/]+)\.(\d+)\.(?:npz|json)"
)


def grading_file(name: str, networks: Collection[str] | None = None) -> bool:
    """Whether a grader needs this file of the package (a wheel's path): all but the trained networks that only
    prompts and offline models use (identify's networks, the `trained` model's `baselines/trained/`, the generated
    games' references in `minatar_synth/trained/`); grading loads only the networks that repair damages
    (`tasks/reading/`, `repair_seeds`), and one task only its own (`networks`: its `Task.graded_networks`). They
    are most of the wheel's bytes (the Harbor verifier's wheel leaves the rest out)."""
    match = NETWORK_FILE.fullmatch(name)
    if match is None or match[1] != f"wspbench/tasks/{READING}":
        return match is None
    return f"{match[2]}.{match[3]}" in networks if networks is not None else int(match[3]) in repair_seeds(match[2])
