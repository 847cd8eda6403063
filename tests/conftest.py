import json
import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest

DATA = Path(__file__).parent / "data"
REQUIRED_PARTS = set(os.environ.get("WSP_REQUIRE_PARTS", "").split())

# rich fixes a console's width for good when COLUMNS is set as it is made (the CLI's consoles are made on
# import), so a COLUMNS from the calling shell or CI would override the width each test asks for
for size in ("COLUMNS", "LINES"):
    os.environ.pop(size, None)


def missing_part(part: str, reason: str) -> NoReturn:
    """Skips a test whose optional part (harbor, openenv, chromium, bubblewrap) is absent here, but fails it when
    .ci/run installed that part (it names them in WSP_REQUIRE_PARTS): a green CI means these tests ran."""
    __tracebackhide__ = True  # the skip reports the test's own line
    if part in REQUIRED_PARTS:
        pytest.fail(f"{part} was installed for this run (WSP_REQUIRE_PARTS) but is not usable: {reason}")
    pytest.skip(f"{part}: {reason}")


def need_sandbox() -> None:
    """Skips a test of the sandbox or the agent protocol where bubblewrap is missing, failing it in a CI run that
    installed bubblewrap; where bwrap is installed but no sandbox starts, it fails (a broken sandbox must not pass
    for a missing one) unless WSP_SANDBOX_OPTIONAL=1 (a machine whose user namespaces are off, say)."""
    __tracebackhide__ = True
    from wspbench.sandbox import SandboxUnavailable, check

    try:
        check()
    except SandboxUnavailable as error:
        if shutil.which("bwrap") and os.environ.get("WSP_SANDBOX_OPTIONAL") != "1":
            pytest.fail(f"bubblewrap is installed but no sandbox starts (WSP_SANDBOX_OPTIONAL=1 skips): {error}")
        missing_part("bubblewrap", str(error))


@pytest.fixture(scope="session")
def answers() -> dict[str, str]:
    return json.loads((DATA / "answers.json").read_text())


@pytest.fixture(scope="session")
def expected() -> dict:
    return json.loads((DATA / "minatar_original_expected.json").read_text())
