"""The agent protocol's running part, which `wsp run` (`protocols.py`), the Inspect solver
(`integrations/inspect_ai.py`) and the OpenEnv server use: a task's kernel, one turn's blocks run in order, and a
handoff. The rules are the protocol's (`wspbench/protocols/agent.py`, kept by `wspbench/protocols/conversation.py`);
the kernel is `wspbench/sandbox/`'s.

Whatever happens in the kernel is a block's result, never an error of the task: a kernel that is lost, answers out
of turn or cannot start again fails the block that met it (and a file it should have given is unusable), and the
conversation goes on to its grade. So no block can drop its task from the means, or have it asked again.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable

from wspbench.protocols import agent
from wspbench.protocols.conversation import Candidate, Conversation, Turn
from wspbench.sandbox import Kernel
from wspbench.tasks.spec import Score, safe_message

Grade = Callable[[Candidate, list[int]], Score]  # a candidate (its text and reading) on training episodes -> Score


def open_kernel(conversation: Conversation) -> Kernel:
    """The task's kernel, its folder holding `agent.files`; SandboxUnavailable when no sandbox can start here."""
    return Kernel(agent.files(conversation.task, conversation.protocol))


def act(conversation: Conversation, turn: Turn, kernel: Kernel, grade: Grade) -> None:
    """Run the turn's blocks in order, as the conversation says: python in the kernel, a play or submit block's
    candidate read (from a file of the kernel's folder when it names one), a play scored by `grade`."""
    for block in conversation.steps(turn):
        started = time.perf_counter()
        if block.kind == "python":
            try:
                result = kernel.run(block.body)
            except Exception as failure:  # noqa: BLE001 - e.g. a kernel that cannot start again: the block failed
                seconds = round(time.perf_counter() - started, 3)
                conversation.ran(block, f"stopped: the kernel failed ({safe_message(failure)})", "killed", seconds)
                continue
            lost = "\n[the kernel was started again: its variables are lost]" if result.restarted else ""
            conversation.ran(block, result.output + lost, result.status, round(result.seconds, 3))
            continue
        name, text, error = agent.file_named(block.body), None, None
        if name is not None:
            try:
                text = kernel.read_file(name, conversation.task.max_answer_chars).decode("utf-8")
            except Exception as failure:  # noqa: BLE001 - missing, too large, not text, outside the folder, a lost kernel
                error = safe_message(failure)
        episodes = conversation.offer(turn, block, text, error)
        if episodes:
            conversation.played(block, grade(conversation.candidate, episodes))
        block.seconds = round(time.perf_counter() - started, 3)


def hand_off(conversation: Conversation, kernel: Kernel, results: str) -> list[dict]:
    """The fresh conversation of a handoff: the last candidate is written into the kernel's folder, the notebook
    read from it (its first agent.NOTEBOOK_CHARS characters)."""
    if conversation.candidate is not None:
        with contextlib.suppress(Exception):  # a lost kernel: the candidate is in the handoff message still
            kernel.write_file(agent.CANDIDATE_FILE, conversation.candidate.text.encode())
    try:
        notebook = kernel.read_file(agent.NOTEBOOK, 4 * agent.NOTEBOOK_CHARS, cut=True).decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - none, or a lost kernel: the handoff says there is no notebook
        notebook = None
    return conversation.handoff(notebook, results)
