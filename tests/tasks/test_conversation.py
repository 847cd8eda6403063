"""The protocol engine (`wspbench/tasks/conversation.py`), driven by hand as `wsp run` and Inspect drive it: what
to send, what to train on, when to stop, which reply is graded."""

from __future__ import annotations

from tests.harness.test_offline import CountingTask
from wspbench.tasks import get_task
from wspbench.tasks.conversation import Conversation
from wspbench.tasks.spec import Protocol

FEEDBACK = Protocol("feedback", 4, 3, 1)


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
    usable, unusable = Conversation(task, Protocol()), Conversation(task, Protocol())
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
    assert task.protocols == ("one-shot",)
    conversation = Conversation(task, Protocol())
    turn = conversation.reply(task.offline_answer("reference"))
    assert conversation.graded() is turn and conversation.follow_up(turn) is None
    assert task.grade_checked(turn.read).normalized == 1.0
