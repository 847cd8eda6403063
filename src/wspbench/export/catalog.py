"""One description of each task for every export: ids, prompt, reference answer, grading.

Everything here is taken from the code that runs the tasks (the harness's prompt rendering and offline
reference answers, `grade_answer`, `superbeam.task.grade`), so an exported task cannot drift from what
`wsp run` and `wsp grade` do. Ids are the harness's: `original/<game>`, `synth/<game>`, `superbeam`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from wspbench.networks import Network

HARBOR_ORG = "wspbench"
PROTOCOL = "one-shot"


@dataclass(frozen=True)
class TaskInfo:
    """A task as exports see it. `episodes` is the number of scoring episodes (SUPERBEAM: held-out levels)."""

    task_id: str
    episodes: int

    @property
    def family(self) -> str:
        return "superbeam" if self.task_id == "superbeam" else "minatar"

    @property
    def source(self) -> str:
        return "superbeam" if self.family == "superbeam" else self.task_id.split("/")[0]

    @property
    def game(self) -> str:
        return self.task_id.split("/")[-1]

    @property
    def slug(self) -> str:
        """A file-name-safe id: `original-breakout`, `synth-ferry`, `superbeam`."""
        return self.task_id.replace("/", "-")

    @property
    def harbor_name(self) -> str:
        return f"{HARBOR_ORG}/{self.slug}"

    @cached_property
    def harness_task(self):
        """The harness's task object: its prompt and offline answers are the ones `wsp run` uses."""
        from wspbench.harness.families import make_task
        return make_task(self.task_id, self.episodes, 1, workers=1)

    @cached_property
    def messages(self) -> list[dict]:
        """The one-shot conversation opening: a system and a user message."""
        return self.harness_task.messages(PROTOCOL, 1)

    @property
    def system_prompt(self) -> str:
        return self.messages[0]["content"]

    @property
    def prompt(self) -> str:
        return self.messages[1]["content"]

    @property
    def prompt_version(self) -> str:
        return self.harness_task.prompt_version

    @property
    def prompt_sha256(self) -> str:
        from wspbench.harness.prompts import prompt_hash
        return prompt_hash(self.system_prompt, self.prompt)

    @property
    def network(self) -> Network:
        from wspbench.networks import MINATAR_NETWORK, SUPERBEAM_NETWORK
        return SUPERBEAM_NETWORK if self.family == "superbeam" else MINATAR_NETWORK

    @property
    def answer_format(self) -> str:
        return "json" if self.family == "superbeam" else "edits"

    @property
    def score_cap(self) -> float:
        """The raw score that counts as 1.0 (SUPERBEAM: the fraction of levels won is already 0..1)."""
        return 1.0 if self.family == "superbeam" else self.minatar_task.score_cap

    @property
    def minatar_task(self):
        from wspbench.tasks import MinAtarTask
        return MinAtarTask(self.game, self.source)

    @property
    def levels(self) -> list[int]:
        """SUPERBEAM's held-out levels used for scoring: the first `episodes` of the 20 test levels."""
        from superbeam.task import TEST_LEVELS
        return list(TEST_LEVELS[:max(1, min(self.episodes, len(TEST_LEVELS)))])

    @property
    def scoring_episodes(self) -> int:
        return len(self.levels) if self.family == "superbeam" else self.episodes

    def reference_answer(self) -> str | None:
        """The shipped reference program as a model's reply, or None when the game has none yet."""
        text = self.harness_task.offline_answer("reference")
        return None if text.startswith("No reference") else text

    def verifier_env(self) -> dict[str, str]:
        """The `WEIGHT_SPACE_*` variables of the Harbor verifier (DESIGN 3)."""
        return {"WEIGHT_SPACE_GAME": self.game, "WEIGHT_SPACE_SOURCE": self.source,
                "WEIGHT_SPACE_EPISODES": str(self.scoring_episodes)}

    def description(self) -> str:
        if self.family == "superbeam":
            return ("Weight-space programming: write the 8-16-6 ReLU network that plays SUPERBEAM, a CHIP-8 "
                    f"platformer; scored by the fraction of {len(self.levels)} held-out levels won.")
        return (f"Weight-space programming: write every weight of the 600-32-32-6 tanh network that plays "
                f"{self.game} ({self.source} MinAtar game); scored by the mean return over "
                f"{self.episodes} seeded episodes, normalised by the cap {self.score_cap:g}.")


def select(selector: str, episodes: int) -> list[TaskInfo]:
    """Tasks matching a `wsp run --tasks` selector (`all`, `original/*`, `synth/ferry`, `superbeam`, ...)."""
    from wspbench.harness.families import select_task_ids
    return [TaskInfo(task_id, episodes) for task_id in select_task_ids(selector)]


def task_info(task_id: str, episodes: int) -> TaskInfo:
    """One task by id; a bare game name or `minatar/<source>/<game>` is accepted too."""
    matches = select(task_id, episodes)
    if len(matches) != 1:
        raise ValueError(f"{task_id!r} names {len(matches)} tasks; give one id such as original/breakout")
    return matches[0]
