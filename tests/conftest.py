import json
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def answers() -> dict[str, str]:
    return json.loads((DATA / "answers.json").read_text())


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((DATA / "minatar_original_expected.json").read_text())
