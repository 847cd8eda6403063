"""The agent protocol: the blocks a reply acts through, the kernel's files, the budgets, and the prompt section that
states them (`Agent.section`), written once. The conversation engine (`conversation.py`) keeps the turns; the
sandbox that runs the Python is `wspbench/sandbox/`, driven by `wspbench/harness/agent.py`; docs/agent.md explains
them.

A reply acts through fenced blocks, run in order:
- ```python: code for the model's own persistent kernel, in a sandbox, whose working folder holds `files(task)`;
- ```play: a candidate scored on training episodes (as the feedback protocol scores a reply), one pass each;
- ```submit: the final answer, graded once on the held-out episodes; it ends the run.
A play or submit block holds the candidate in the task's answer format (fenced or bare), or `file NAME` (a file
of the kernel's folder that holds it), or nothing (the last candidate). A reply with none of these blocks is read
as a one-shot reply: a usable answer in it is submitted.
"""

from __future__ import annotations

import bisect
import io
import re
import textwrap
from dataclasses import dataclass

from wspbench.protocols.base import Protocol
from wspbench.protocols.feedback import Feedback

BLOCKS = ("python", "play", "submit")
OPENER = re.compile(r"(?P<fence>`{3,})(?P<kind>python|play|submit)[ \t]*")  # a whole line
CLOSER = re.compile(r"(?P<fence>`{3,})[ \t]*")  # a whole line: it closes a block opened with the same fence
FILE = re.compile(r"\Afile[ \t]+(?P<name>[^\s/][^\s]*)\s*\Z")  # `file NAME`: a candidate in the kernel's folder
PROMPT_FILE = "task.md"  # the opening prompt, as text
SOURCE_FILE = "game.py"  # the game's source, as the prompt shows it
NOTEBOOK = "notebook.md"  # the model's own notes, carried into a handoff
CANDIDATE_FILE = "candidate.txt"  # the last candidate, written into the folder at a handoff
NOTEBOOK_CHARS = 20_000  # what a handoff carries of the notebook
INLINE_CANDIDATE_CHARS = 20_000  # a longer candidate is only named in a handoff message (it is in CANDIDATE_FILE)
MAX_BLOCKS = 50  # blocks run from one reply; the rest are told they were not run


def blocks(text: str) -> list[tuple[str, str]]:
    """The (kind, body) of each ```python, ```play and ```submit block of a reply, in order: from an opening line to
    the next line that is the same fence alone, so a block fenced with more backticks may hold ``` lines
    (````python ... ````); an opening line never closed is no block. In one pass over the lines with each fence's
    closing lines looked up, so no reply, however many unclosed openers it holds, costs more than linear time."""
    lines = (text or "").split("\n")
    closers: dict[str, list[int]] = {}
    for number, line in enumerate(lines):
        found = CLOSER.fullmatch(line)
        if found:
            closers.setdefault(found["fence"], []).append(number)
    found_blocks, number = [], 0
    while number < len(lines) - 1:  # an opening line ends with a newline
        opener = OPENER.fullmatch(lines[number])
        later = closers.get(opener["fence"], []) if opener else []
        at = bisect.bisect_right(later, number)
        if at == len(later):
            number += 1
            continue
        close = later[at]
        body = "\n".join(lines[number + 1 : close])
        found_blocks.append((opener["kind"], body + "\n" if close > number + 1 else ""))
        number = close + 1
    return found_blocks


def file_named(body: str) -> str | None:
    """The file a play or submit block names (`file NAME`), or None."""
    found = FILE.match(body)
    return found["name"] if found else None


@dataclass(frozen=True)
class Agent(Protocol):
    """Up to `rounds` turns, each reply's blocks run in order (`conversation.py` `steps`): python in the driver's
    kernel, a play scored on the training episodes within `passes`, a submit ending the run; a reply without blocks
    is read as a one-shot reply (a usable answer is submitted). The graded answer is the submitted candidate, else
    the last usable one; every `handoff` turns the driver opens a fresh conversation."""

    name = "agent"
    settings = (*Protocol.settings, "rounds", "train_episodes", "passes", "handoff")
    secret_held_out = True
    kernel = True

    rounds: int = 20
    train_episodes: int = 100
    passes: int = 10
    handoff: int = 0
    task_timeout: float = 3600.0  # its turns run code: up to 50 blocks of 60 s each

    def plays(self, task) -> bool:
        """Whether the task has training episodes to play a candidate on: those with feedback (identify has none:
        a play would tell the answer)."""
        return Feedback.name in task.protocols

    def passes_for(self, task) -> int:
        return self.passes if self.plays(task) else 0

    def blocks(self, content: str) -> list[tuple[str, str]]:
        return blocks(content)

    def received(self, conversation, turn) -> None:
        if turn.error:
            turn.feedback = conversation.nothing_to_run(turn.error)
        else:  # a plain answer: submitted as it is
            turn.blocks = [conversation.block("submit", turn.text)]

    def follow_up(self, conversation, turn) -> str | None:
        if conversation.submitted or turn.number >= self.rounds:
            return None
        return turn.feedback or conversation.results(turn)

    def answer(self, conversation):
        """The submitted candidate, else the last usable one; else the last offered (it scores 0 with its error)."""
        chosen = conversation.submitted or conversation.candidate
        if chosen:
            return chosen
        offered = [turn.candidate for turn in conversation.turns if turn.candidate]
        return conversation.unread(offered[-1].text, offered[-1].read) if offered else conversation.unread("")

    def statement(self, task, own: str) -> str:
        return (
            f"This is agent mode: you work in up to {self.rounds} turns with your own Python kernel and a budget "
            "of plays (THE AGENT PROTOCOL below); every weight is still yours to choose."
        )

    def training_note(self) -> str:
        return "Training episodes (plays) use other seeds; the held-out episodes are never shown to you."

    def ask(self, answer: str) -> str:
        return "Reply with your reasoning, then your blocks."

    def section(self, task) -> str:
        return section(task, self)

    def shown_weights(self, task, heading: str, listing) -> str:
        return weights_files(task, heading)


def files(task, protocol: Protocol) -> dict[str, bytes]:
    """The kernel's folder at the start: the prompt as text, the game's source, and a reading task's network as
    float32 .npy files (W1.npy ... b3.npy)."""
    import numpy as np  # here, not at the top: `wsp --help` and the registry need none of it

    found = {PROMPT_FILE: task.messages(protocol)[-1]["content"].encode()}
    source = task.game_source()
    if source:
        found[SOURCE_FILE] = source.encode()
    for name, tensor in (task.shown_network() or {}).items():
        buffer = io.BytesIO()
        np.save(buffer, np.asarray(tensor, dtype=np.float32), allow_pickle=False)
        found[f"{name}.npy"] = buffer.getvalue()
    return found


def weights_files(task, heading: str) -> str:
    """THE WEIGHTS of a reading prompt in agent mode: the files that hold them, instead of a listing."""
    shapes = ", ".join(f"{name}.npy {tuple(t.shape)}" for name, t in (task.shown_network() or {}).items())
    return f"""{heading}
The network's weights and biases are files in your kernel's working folder, float32 numpy arrays (load one with
numpy.load("W1.npy")): {shapes}. W1[i] is input i's row: its weights to the 32 units of layer 1; W2[j] unit j of
layer 1 to layer 2; W3[k] unit k of layer 2 to the six logits."""


def section(task, protocol: Agent) -> str:
    """THE AGENT PROTOCOL: the blocks, the budgets, the kernel's limits and files, as this run has them."""
    from wspbench.sandbox import Limits

    limits, fmt = Limits(), task.answer_format
    if protocol.plays(task):
        count = len(task.training_episodes(protocol.train_episodes))
        play = (
            f"plays a candidate on {count} TRAINING episodes (other seeds than the held-out ones) and tells you the "
            f"results. Each play costs one pass; you have {protocol.passes_for(task)}."
        )
    else:
        play = "is not available for this task (it has no training episodes): 0 passes."
    drawn = ""
    if protocol.secret_held_out and task.secret_episodes is not None:
        drawn = (
            " on held-out episodes that a secret, made when the run starts and kept from you, draws at random "
            "(published with the grade),"
        )
    rules = [
        f"You work in turns: up to {protocol.rounds} replies. In each reply you act through fenced blocks, run in "
        "order; the next message tells you what each one gave.",
        "- ```python runs code in your own Python kernel. Variables persist between blocks and turns; its working "
        "folder (the current directory) holds your files.",
        f"- ```play {play}",
        f"- ```submit is your final answer: it is graded once{drawn} and ends the run.",
        f"A play or submit block holds a candidate in the answer format (a ```{fmt} block, fenced in the outer block "
        "with four backticks, or just that block's body), or the line `file NAME` naming a file of your folder that "
        "holds one (write it from Python), or nothing: your last candidate. Fence any block that contains ``` lines "
        f"with four backticks (````python ... ````). A reply with none of these blocks is read as a final answer if "
        f"it holds a usable ```{fmt} block. If your turns run out, your last candidate is graded; without one you "
        "score 0.",
    ]
    if protocol.handoff:
        rules.append(
            f"Every {protocol.handoff} turns the conversation starts afresh: you get this prompt again, the first "
            f"{NOTEBOOK_CHARS:,} characters of your file {NOTEBOOK}, your last candidate (also in {CANDIDATE_FILE}) "
            f"and the results of your last turn. Your kernel and its files stay. Keep your notes in {NOTEBOOK}."
        )
    rules.append(
        f"Each block may use {limits.cpu_s:g} s of CPU, {limits.wall_s:g} s of wall time and "
        f"{limits.memory_bytes / 2**30:g} GiB of memory; its output (stdout and stderr) comes back cut to "
        f"{limits.output_chars:,} characters. The kernel has Python 3 with numpy and the standard library, no "
        f"network and no other packages; what it writes stays in its folder (at most {limits.folder_bytes // 2**20} "
        "MiB)."
    )
    text = "\n".join(textwrap.fill(rule, width=110, subsequent_indent="  " if rule[0] == "-" else "") for rule in rules)
    listed = "\n".join(f"  {name}" for name in files_described(task))
    return f"THE AGENT PROTOCOL\n{text}\nYour folder holds at the start:\n{listed}"


def files_described(task) -> list[str]:
    """One line per starting file, for the prompt."""
    lines = [f"{PROMPT_FILE}: this prompt, as text"]
    if task.game_source():
        lines.append(f"{SOURCE_FILE}: the game's source, as shown above")
    lines += [f"{name}.npy: {name}, shape {tuple(t.shape)}" for name, t in (task.shown_network() or {}).items()]
    return lines


def handoff_message(notebook: str | None, candidate: str | None, results: str, turns_left: int, passes_left: int):
    """The user message that opens a fresh conversation at a handoff."""
    if notebook is None:
        notes = f"You have no {NOTEBOOK}."
    else:
        cut = notebook[:NOTEBOOK_CHARS]
        more = f" (its first {NOTEBOOK_CHARS:,} of {len(notebook):,} characters)" if len(notebook) > len(cut) else ""
        notes = f"Your {NOTEBOOK}{more}:\n{cut}"
    if candidate is None:
        last = "You have no candidate yet."
    elif len(candidate) <= INLINE_CANDIDATE_CHARS:
        last = f"Your last candidate (also in {CANDIDATE_FILE}):\n{candidate}"
    else:
        last = f"Your last candidate is in {CANDIDATE_FILE} ({len(candidate):,} characters)."
    return (
        f"HANDOFF: this is a fresh conversation; your kernel and its files are as you left them. {turns_left} turns "
        f"and {passes_left} passes are left.\n\n{notes}\n\n{last}\n\nYour last turn gave:\n{results}"
    )
