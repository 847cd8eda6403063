"""Fuzzing the verifier's trajectory reader: any bytes give a final answer or a TrajectoryError, quickly.

Inputs: random bytes, random JSON documents (some in the seed or ATIF layout), structural bombs (deep
nesting, many tiny containers, unclosed strings) and byte-level mutations of valid trajectories.
"""

import json
import tempfile
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wspbench.verifier import TrajectoryError, final_answer, read_trajectory

SECONDS_PER_INPUT = 10  # a hang guard, far above the few milliseconds an input takes

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=30,
)
messages = st.one_of(
    st.text(max_size=50), st.lists(st.fixed_dictionaries({"type": st.just("text"), "text": json_values}), max_size=3)
)
seed_steps = st.fixed_dictionaries(
    {
        "messages": st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "system"]), "content": messages | json_values}
            ),
            max_size=3,
        )
    }
)
atif_steps = st.fixed_dictionaries({"source": st.sampled_from(["user", "agent"]), "message": messages | json_values})
trajectories = st.fixed_dictionaries({"steps": st.lists(seed_steps | atif_steps | json_values, max_size=4)})


def bomb(kind: str, n: int) -> bytes:
    return {
        "deep_arrays": b"[" * n + b"]" * n,
        "deep_objects": b'{"a":' * n + b"1" + b"}" * n,
        "deep_unclosed": b'{"steps": [' + b"[" * n,
        "tiny_containers": b'{"steps": [' + b"{}," * n + b"{}]}",
        "unclosed_string": b'{"steps": "' + b"\\" * n,
        "escapes": b'{"steps": ["' + b'\\"[,' * n + b'"]}',
    }[kind]


def insert(trajectory: dict, at: int, extra: bytes) -> bytes:
    """A valid trajectory with a few bytes inserted: a mutation that is usually just barely invalid."""
    data = json.dumps(trajectory).encode()
    return data[:at] + extra + data[at:]


documents = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda value: json.dumps(value).encode()),
    trajectories.map(lambda value: json.dumps(value).encode()),
    st.builds(
        bomb,
        st.sampled_from(
            ["deep_arrays", "deep_objects", "deep_unclosed", "tiny_containers", "unclosed_string", "escapes"]
        ),
        st.integers(0, 1_100_000),
    ),
    st.builds(insert, trajectories, st.integers(0, 400), st.binary(max_size=8)),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(documents)
def test_any_bytes_give_an_answer_or_a_trajectory_error(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "trajectory.json"
        path.write_bytes(data)
        started = time.perf_counter()
        try:
            answer = final_answer(read_trajectory(path))
        except TrajectoryError as error:
            assert str(error)
        else:
            assert isinstance(answer, str)
        assert time.perf_counter() - started < SECONDS_PER_INPUT
