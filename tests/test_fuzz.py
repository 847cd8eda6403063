"""Fuzzing the parsers of untrusted text: edits replies, SUPERBEAM JSON replies, trajectory files, run records
(manifests and task records, as the readers and a resumed run read them), identify and repair replies.

Inputs come from tests/fuzz_inputs.py (grammar-aware mutations of the shipped programs, programs drawn from
the grammar, random text and bytes, structural bombs). For every input: nothing but the parser's own error
escapes, it finishes within a generous time bound (hang detection only) and the message is short; small
edits replies also get the same acceptance, weights and count as the seed grader's parser
(tests/data/seed_edits.py). The examples are a fixed, bounded set (derandomized); benchmarks/fuzz.py runs
100,000 and more.
"""

import json
import random
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import fuzz_inputs

BOUND_SECONDS = 10  # hang detection on a busy machine; the benchmark reports the real times
FUZZ = settings(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
RANDOMS = st.randoms(use_true_random=False)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():  # numpy warns when a complex value is cast to float32, as in the seed
        warnings.simplefilter("ignore")
        yield


@settings(FUZZ, max_examples=300)
@given(RANDOMS)
def test_mutated_programs_match_the_seed(rng: random.Random):
    assert fuzz_inputs.compare_with_seed(fuzz_inputs.mutate_program(rng)).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=400)
@given(RANDOMS)
def test_grammar_programs_match_the_seed(rng: random.Random):
    assert fuzz_inputs.compare_with_seed(fuzz_inputs.grammar_program(rng)).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=400)
@given(RANDOMS)
def test_random_text_and_bytes_match_the_seed(rng: random.Random):
    reply = fuzz_inputs.random_text(rng) if rng.random() < 0.5 else fuzz_inputs.random_bytes(rng)
    assert fuzz_inputs.compare_with_seed(reply).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=300)
@given(st.text(max_size=300))
def test_any_text_matches_the_seed(reply: str):
    fuzz_inputs.compare_with_seed(reply)
    fuzz_inputs.compare_with_seed(f"```edits\n{reply}\n```")


@settings(FUZZ, max_examples=12)
@given(RANDOMS)
def test_edits_bombs_are_bounded(rng: random.Random):
    _, reply = fuzz_inputs.edits_bomb(rng)
    outcome = fuzz_inputs.check_edits(reply)
    assert outcome.seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=300)
@given(RANDOMS)
def test_superbeam_json_mutations_and_random_text(rng: random.Random):
    reply = fuzz_inputs.mutate_json(rng) if rng.random() < 0.7 else fuzz_inputs.random_json_text(rng)
    assert fuzz_inputs.check_json(reply).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=25)
@given(RANDOMS)
def test_superbeam_json_bombs_are_bounded(rng: random.Random):
    _, reply = fuzz_inputs.json_bomb(rng)
    outcome = fuzz_inputs.check_json(reply)
    assert not outcome.accepted and outcome.seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=150)
@given(RANDOMS)
def test_trajectories(tmp_path_factory, rng: random.Random):
    folder = tmp_path_factory.mktemp("trajectory", numbered=True)
    generator = rng.choice([fuzz_inputs.mutate_program, fuzz_inputs.random_text, fuzz_inputs.mutate_json])
    text = fuzz_inputs.trajectory_text(rng, generator(rng))
    assert fuzz_inputs.check_trajectory(text, folder).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=150)
@given(RANDOMS)
def test_damaged_run_records_are_skipped_or_served(tmp_path_factory, rng: random.Random):
    """A damaged manifest or record: a one-line RunDirError or notice, or a record every reader can use."""
    folder = tmp_path_factory.mktemp("run", numbered=True)
    _, manifest, record = fuzz_inputs.run_files_text(rng)
    outcome = fuzz_inputs.check_run_files(manifest, record, folder, resume=rng.random() < 0.2)
    assert outcome.seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=400)
@given(RANDOMS)
def test_records_written_and_read_back_lose_nothing(tmp_path_factory, rng: random.Random):
    """Non-ASCII, escapes, lone surrogates and size edges: the writer and reader give back what was written."""
    folder = tmp_path_factory.mktemp("roundtrip", numbered=True)
    assert fuzz_inputs.check_record_round_trip(fuzz_inputs.record_case(rng), folder).seconds < BOUND_SECONDS


def test_the_undamaged_run_record_is_accepted(tmp_path):
    manifest, record = fuzz_inputs.run_files()
    outcome = fuzz_inputs.check_run_files(json.dumps(manifest), json.dumps(record), tmp_path, resume=True)
    assert outcome.accepted and outcome.message == ""


@settings(FUZZ, max_examples=300)
@given(RANDOMS)
def test_identify_replies(rng: random.Random):
    named, reply = fuzz_inputs.identify_reply(rng)
    task = rng.choice(fuzz_inputs.identify_tasks())
    assert fuzz_inputs.check_identify(reply, named, task).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=12)
@given(RANDOMS)
def test_identify_bombs_are_bounded(rng: random.Random):
    _, reply = fuzz_inputs.identify_bomb(rng)
    assert fuzz_inputs.check_identify(reply, "", fuzz_inputs.identify_tasks()[0]).seconds < BOUND_SECONDS


@settings(FUZZ, max_examples=200)
@given(RANDOMS)
def test_repair_replies_match_the_seed_on_the_damaged_network(rng: random.Random):
    task, reply = fuzz_inputs.repair_reply(rng)
    assert fuzz_inputs.check_repair(reply, task).seconds < BOUND_SECONDS


def test_the_repair_reference_answers_are_accepted_as_the_seed_reads_them():
    for task in fuzz_inputs.repair_tasks():
        assert fuzz_inputs.check_repair(task.offline_answer("reference"), task).accepted
