"""The optional parts (.ci/parts.sh, tests/conftest.py): a missing part skips its test with a reason naming
it, unless CI installed it (WSP_REQUIRE_PARTS), where the test fails; a machine without Python >= 3.12 gets
a reason, and no harbor venv is made."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests import conftest

PARTS_SH = Path(__file__).resolve().parents[1] / ".ci" / "parts.sh"


def test_a_missing_part_skips_unless_ci_installed_it(monkeypatch):
    monkeypatch.setattr(conftest, "REQUIRED_PARTS", set())
    with pytest.raises(pytest.skip.Exception, match="^chromium: not installed"):
        conftest.missing_part("chromium", "not installed")
    monkeypatch.setattr(conftest, "REQUIRED_PARTS", {"chromium"})
    with pytest.raises(pytest.fail.Exception, match="chromium was installed for this run"):
        conftest.missing_part("chromium", "not installed")


def test_no_python_312_is_a_stated_reason_and_installs_nothing(tmp_path):
    script = 'source "$1"; harbor_part; echo "required=[$WSP_REQUIRE_PARTS]"; printf "%s\\n" "${PARTS_MISSING[@]}"'
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WSP_PARTS": str(tmp_path / "parts")}
    done = subprocess.run(
        ["bash", "-c", script, "bash", str(PARTS_SH)],
        env={**env, "WSP_PYTHON312": str(tmp_path / "no-python")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "required=[]" in done.stdout
    assert "harbor: no Python >= 3.12 on this machine" in done.stdout and "WSP_PYTHON312" in done.stdout
    assert not (tmp_path / "parts").exists()
