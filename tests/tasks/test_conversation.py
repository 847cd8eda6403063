"""The protocol engine (`wspbench/protocols/conversation.py`), driven by hand as `wsp run` and Inspect drive it: what
to send, what to train on, when to stop, which reply is graded."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from tests.harness.test_offline import CountingTask
from wspbench.protocols import ONE_SHOT, Protocol, agent, make
from wspbench.protocols.conversation import Conversation
from wspbench.tasks import get_task

FEEDBACK = make("feedback", rounds=4, episodes=3, train_episodes=1)


def drive(conversation: Conversation, replies: list[tuple[str, str | None]]) -> list[str]:
    """Hand the replies over as a driver does (grading each turn it is told to); the messages it was told to
    send."""
    sent = []
    for content, reasoning in replies:
        turn = conversation.reply(content, reasoning)
        episodes = conversation.to_train(turn)
        if episodes:
            conversation.trained(turn, conversation.task.grade_checked(turn.read, episodes))
        follow_up = conversation.follow_up(turn)
        if follow_up is None:
            break
        sent.append(follow_up)
    return sent


def test_one_shot_is_one_reply_graded_when_usable():
    task = CountingTask()
    usable, unusable = Conversation(task, ONE_SHOT), Conversation(task, ONE_SHOT)
    assert drive(usable, [("7", None), ("9", None)]) == [] and len(usable.turns) == 1
    assert usable.graded().text == "7" and usable.to_train(usable.turns[0]) == []
    assert drive(unusable, [("seven", None)]) == [] and unusable.graded() is None
    assert unusable.turns[0].error == "not a number" and unusable.turns[0].feedback is None


def test_feedback_trains_tells_and_grades_the_best_reply():
    task = CountingTask()
    conversation = Conversation(task, FEEDBACK)
    sent = drive(conversation, [("4", None), ("oops", None), ("6", None), ("5", None)])
    assert sent == ["score 0.4", "bad: not a number", "score 0.6"]  # the last round is not answered
    assert [turn.train is not None for turn in conversation.turns] == [True, False, True, True]
    assert conversation.graded().text == "6" and task.trained == [4, 6, 5]


def test_a_perfect_training_score_ends_the_rounds_and_reasoning_stands_in_for_content():
    conversation = Conversation(CountingTask(), FEEDBACK)
    assert drive(conversation, [("3", None), ("no number", "10"), ("11", None)]) == ["score 0.3"]
    perfect = conversation.turns[-1]
    assert (perfect.number, perfect.source, perfect.text) == (2, "reasoning", "10")
    assert conversation.graded() is perfect


def test_a_task_without_feedback_is_one_shot_only():
    task = get_task("identify-choice/ferry/3")
    assert task.protocols == ("one-shot", "agent")
    conversation = Conversation(task, ONE_SHOT)
    turn = conversation.reply(task.offline_answer("reference"))
    assert conversation.graded() is turn and conversation.follow_up(turn) is None
    assert task.grade_checked(turn.read).normalized == 1.0


# --- the agent protocol -----------------------------------------------------------------------------------


def agent_protocol(turns: int = 4, passes: int = 2, handoff: int = 0) -> Protocol:
    return make("agent", rounds=turns, episodes=3, train_episodes=1, passes=passes, handoff=handoff)


def act(conversation: Conversation, content: str, files: dict[str, str] | None = None) -> str | None:
    """One agent turn driven as `harness/agent.py` drives it, with a dict for the kernel's folder and a python block
    "run" as its own text; the follow-up (None: the run is over)."""
    turn = conversation.reply(content)
    for block in conversation.steps(turn):
        if block.kind == "python":
            conversation.ran(block, f"ran {block.body.strip()}", "ok", 0.5)
            continue
        name, text, error = agent.file_named(block.body), None, None
        if name:
            text = (files or {}).get(name)
            error = None if text is not None else f"no file {name}"
        if conversation.offer(turn, block, text, error):
            conversation.played(block, conversation.task.grade_checked(conversation.candidate.read, [100]))
    return conversation.follow_up(turn)


def test_agent_blocks_run_in_order_plays_cost_passes_and_submit_ends_the_run():
    task = CountingTask()
    conversation = Conversation(task, agent_protocol(passes=2))
    told = act(conversation, "Look:\n```python\nx = 1\n```\n```play\n4\n```\n```play\n\n```\n```play\n5\n```")
    blocks = conversation.turns[0].blocks
    assert [(b.kind, b.status, b.passes) for b in blocks] == [
        ("python", "ok", 0),
        ("play", "played", 1),
        ("play", "played", 1),  # an empty block: the last candidate, 4, again
        ("play", "not played", 0),
    ]
    assert task.trained == [4, 4] and blocks[3].output == "not played: no passes are left"
    assert "[block 2: play, played, 1 pass]\nscore 0.4\n(1 passes left)" in told
    assert told.endswith("[3 turns and 0 passes left]")
    assert act(conversation, "```submit\n```\n```python\nnever\n```") is None  # the last candidate, 5
    assert [b.status for b in conversation.turns[1].blocks] == ["submitted", "not run"]
    answer = conversation.answer()
    assert (answer.number, answer.text) == (1, "5\n") and task.tested == []


def test_agent_candidates_from_files_and_bare_bodies_and_plain_replies():
    task = get_task("synth/ferry")
    conversation = Conversation(task, agent_protocol(passes=0))
    act(conversation, "```play\nfile missing.txt\n```\n```play\nW1[0, 0] = 2\n```", {})
    missing, bare = conversation.turns[0].blocks
    assert missing.status == "unusable" and missing.output == "missing.txt cannot be read: no file missing.txt"
    assert bare.output == "not played: no passes are left" and conversation.candidate.text.startswith("```edits\n")
    assert act(conversation, "Done.\n```edits\nW1[0, 0] = 3\n```\n") is None  # no blocks, a usable answer
    assert conversation.answer().number == 2 and conversation.answer().read[0]["W1"][0, 0] == 3.0


def test_agent_without_blocks_is_told_what_it_may_send_and_the_last_candidate_is_graded_at_the_end():
    conversation = Conversation(CountingTask(), agent_protocol(turns=3, passes=1))
    told = act(conversation, "Let me think.")
    assert told.startswith("Your reply had no ```python, ```play or ```submit block, and no usable answer")
    assert act(conversation, "```play\nfile best.txt\n```", {"best.txt": "6"}).endswith("0 passes left]")
    assert act(conversation, "```python\nmore\n```") is None  # the third turn was the last
    assert (conversation.answer().number, conversation.answer().text) == (2, "6")
    nothing = Conversation(CountingTask(), agent_protocol(turns=1))
    assert act(nothing, "```play\nseven\n```") is None
    answer = nothing.answer()  # the last candidate offered, unusable: it scores 0 with its error
    assert answer.number is None and answer.read[2] == "not a number"


def test_agent_fences_a_block_that_holds_backticks_with_four_and_caps_the_blocks():
    text = "````python\nprint('```edits')\n````\n" + "```python\npass\n```\n" * (agent.MAX_BLOCKS + 5)
    conversation = Conversation(CountingTask(), agent_protocol())
    told = act(conversation, text)
    turn = conversation.turns[0]
    assert turn.blocks[0].body == "print('```edits')\n" and len(turn.blocks) == agent.MAX_BLOCKS
    assert f"[6 more blocks were not run: a reply runs at most {agent.MAX_BLOCKS}]" in told


def test_agent_reading_tasks_have_no_plays_and_hand_off_the_notebook():
    task = get_task("identify-choice/ferry/3")
    conversation = Conversation(task, agent_protocol(turns=5, passes=3, handoff=2))
    assert conversation.passes_left == 0 and conversation.training == []
    act(conversation, "```play\nferry\n```")
    assert conversation.turns[0].blocks[0].output == "not played: this task has no plays (0 passes)"
    told = act(conversation, "```python\nnotes\n```")
    assert conversation.handoff_due(conversation.turns[1]) and not conversation.handoff_due(conversation.turns[0])
    fresh = conversation.handoff("tried ferry", told)
    assert fresh[:2] == task.messages(agent_protocol(turns=5, passes=3, handoff=2))
    note = fresh[2]["content"]
    assert note.startswith("HANDOFF: this is a fresh conversation") and "3 turns and 0 passes are left" in note
    assert "Your notebook.md:\ntried ferry" in note and "Your last candidate (also in candidate.txt):" in note


FENCED = re.compile(
    r"^(?P<fence>`{3,})(?P<kind>python|play|submit)[ \t]*\n(?P<body>.*?)^(?P=fence)[ \t]*$", re.MULTILINE | re.DOTALL
)
PIECES = ["```", "````", "python", "play", "submit", "edits", "\n", " ", "\t", "x", "```python\n", "```\n", "\r"]


@given(st.lists(st.sampled_from(PIECES), max_size=40))
def test_agent_blocks_are_what_the_fenced_block_pattern_finds(pieces):
    """The specification, as one regular expression: an opening line, the body, the same fence alone on a line."""
    text = "".join(pieces)
    assert agent.blocks(text) == [(found["kind"], found["body"]) for found in FENCED.finditer(text)]


def test_a_reply_of_unclosed_openers_is_read_in_one_pass():
    """The pattern above takes quadratic time on such a reply (16,000 openers: 15 s); blocks takes one pass."""
    assert agent.blocks("```python\n" * 200_000 + "````play\nx\n") == []
    assert agent.blocks("````play\n```python\n```\n````\n" * 50_000)[-1] == ("play", "```python\n```\n")
