"""The agent protocol's running part, which `wsp run` (`protocols.py`) and the Inspect solver
(`integrations/inspect_ai.py`) both use: a task's kernel, one turn's blocks run in order, and a handoff. The rules
are the conversation's (`wspbench/tasks/conversation.py`); the kernel is `wspbench/sandbox/`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from wspbench.sandbox import Kernel
from wspbench.tasks import agent
from wspbench.tasks.conversation import Candidate, Conversation, Turn
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
            result = kernel.run(block.body)
            lost = "\n[the kernel was started again: its variables are lost]" if result.restarted else ""
            conversation.ran(block, result.output + lost, result.status, round(result.seconds, 3))
            continue
        name, text, error = agent.file_named(block.body), None, None
        if name is not None:
            try:
                text = kernel.read_file(name, conversation.task.max_answer_chars).decode("utf-8")
            except (OSError, ValueError) as failure:  # missing, too large, not text, outside the folder
                error = safe_message(failure)
        episodes = conversation.offer(turn, block, text, error)
        if episodes:
            conversation.played(block, grade(conversation.candidate, episodes))
        block.seconds = round(time.perf_counter() - started, 3)


def hand_off(conversation: Conversation, kernel: Kernel, results: str) -> list[dict]:
    """The fresh conversation of a handoff: the last candidate is written into the kernel's folder, the notebook
    read from it (its first agent.NOTEBOOK_CHARS characters)."""
    if conversation.candidate is not None:
        kernel.write_file(agent.CANDIDATE_FILE, conversation.candidate.text.encode())
    try:
        notebook = kernel.read_file(agent.NOTEBOOK, 4 * agent.NOTEBOOK_CHARS, cut=True).decode("utf-8", "replace")
    except (OSError, ValueError):
        notebook = None
    return conversation.handoff(notebook, results)
