#!/usr/bin/env bash
# The optional parts some tests need, each installed in its own place (they cannot share the test venv):
#   harbor   tests/export/test_harbor.py, `harbor lint`: a Python >= 3.12 venv with harbor  -> WSP_HARBOR_VENV
#   openenv  tests/export/test_openenv.py: a venv with openenv-core (it pulls gradio and pins an older
#            pillow) and wspbench                                                      -> WSP_OPENENV_PYTHON
#   chromium tests/report/test_report.py, the headless render: Debian's package        -> WSP_CHROMIUM
#   bubblewrap  the agent protocol's sandbox (tests/sandbox/, the agent tests): Debian's package, bwrap on the PATH
# A part already found at its location is reused (developers set the variables once); CI's defaults lie in the
# fresh clone (.parts/, or WSP_PARTS), so nothing carries over between runs. Each step prints its wall time.
# Also read: WSP_PYTHON (the openenv venv's, python3.11), WSP_PYTHON312 (else python3.12/3.13 or pyenv's),
# WSP_HARBOR_VERSION (0.26.0), WSP_OPENENV_VENV (.parts/openenv-venv).
# Sourced by .ci/run, which then requires the installed parts (WSP_REQUIRE_PARTS, tests/conftest.py) and
# prints PARTS_MISSING, the parts this machine cannot have and why. Alone: `bash .ci/parts.sh` installs them
# and prints the export lines to reuse them (`bash .ci/parts.sh chromium`: only that one).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PARTS="${WSP_PARTS:-$ROOT/.parts}"
WSP_PYTHON="${WSP_PYTHON:-python3.11}"           # the openenv venv's Python (the project's)
WSP_HARBOR_VERSION="${WSP_HARBOR_VERSION:-0.26.0}"
export WSP_HARBOR_VENV="${WSP_HARBOR_VENV:-$PARTS/harbor-venv}"
WSP_OPENENV_VENV="${WSP_OPENENV_VENV:-$PARTS/openenv-venv}"
WSP_REQUIRE_PARTS=""
PARTS_MISSING=()

parts_folder() {
    mkdir -p "$PARTS"
    [[ -e "$PARTS/.gitignore" ]] || echo '*' >"$PARTS/.gitignore" # git status stays clean
}

python312() { # harbor needs Python >= 3.12: WSP_PYTHON312, else python3.12 or 3.13 on PATH, else pyenv's
    local candidate
    for candidate in ${WSP_PYTHON312:-python3.12 python3.13 "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3}; do
        if "$candidate" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            echo "$candidate"
            return
        fi
    done
}

harbor_part() {
    local python
    python="$(python312)"
    if [[ -x "$WSP_HARBOR_VENV/bin/harbor" ]]; then
        echo "[ci] harbor: reusing $WSP_HARBOR_VENV"
    elif [[ -z "$python" ]]; then
        PARTS_MISSING+=("harbor: no Python >= 3.12 on this machine (none on PATH or in pyenv; set WSP_PYTHON312),\
 so the harbor lint test skips")
        return
    else
        parts_folder
        "$python" -m venv "$WSP_HARBOR_VENV"
        "$WSP_HARBOR_VENV/bin/pip" install -q "harbor==$WSP_HARBOR_VERSION"
    fi
    WSP_REQUIRE_PARTS+=" harbor"
}

openenv_part() {
    if [[ -n "${WSP_OPENENV_PYTHON:-}" ]] && "$WSP_OPENENV_PYTHON" -c 'import openenv' 2>/dev/null; then
        echo "[ci] openenv: reusing $WSP_OPENENV_PYTHON"
    else
        if [[ ! -x "$WSP_OPENENV_VENV/bin/python" ]] || ! "$WSP_OPENENV_VENV/bin/python" -c 'import openenv' 2>/dev/null; then
            parts_folder
            "$WSP_PYTHON" -m venv "$WSP_OPENENV_VENV"
            "$WSP_OPENENV_VENV/bin/pip" install -q -e "$ROOT[openenv]"
        fi
        WSP_OPENENV_PYTHON="$WSP_OPENENV_VENV/bin/python"
    fi
    export WSP_OPENENV_PYTHON
    WSP_REQUIRE_PARTS+=" openenv"
}

chromium_part() {
    local found
    found="$(command -v "${WSP_CHROMIUM:-chromium}" || command -v chromium-browser || true)"
    if [[ -z "$found" ]]; then
        if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
            PARTS_MISSING+=("chromium: not installed, and apt-get as root is not available here (apt-get install -y\
 chromium, or set WSP_CHROMIUM), so the report render test skips")
            return
        fi
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null
        found="$(command -v chromium)"
    else
        echo "[ci] chromium: using $found"
    fi
    export WSP_CHROMIUM="$found"
    WSP_REQUIRE_PARTS+=" chromium"
}

bubblewrap_part() {
    if ! command -v bwrap >/dev/null; then
        if [[ "$(id -u)" != 0 ]] || ! command -v apt-get >/dev/null; then
            PARTS_MISSING+=("bubblewrap: not installed, and apt-get as root is not available here (apt-get install -y\
 bubblewrap), so the sandbox and agent tests skip")
            return
        fi
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap libseccomp2 >/dev/null
    fi
    echo "[ci] bubblewrap: using $(command -v bwrap)"
    WSP_REQUIRE_PARTS+=" bubblewrap"
}

timed() { # timed STEP COMMAND...: runs it and prints its wall time
    local started=$SECONDS
    "${@:2}"
    echo "[ci] $1: $((SECONDS - started)) s"
}

install_parts() { # install_parts [PART...]: those named, else all four
    local part parts=("$@")
    WSP_REQUIRE_PARTS=""
    PARTS_MISSING=()
    ((${#parts[@]})) || parts=(harbor openenv chromium bubblewrap)
    for part in "${parts[@]}"; do
        timed "$part" "${part}_part"
    done
    export WSP_REQUIRE_PARTS="${WSP_REQUIRE_PARTS# }"
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then # run alone: install, then say how to reuse
    install_parts "$@"
    [[ " $WSP_REQUIRE_PARTS " != *" harbor "* ]] || echo "export WSP_HARBOR_VENV='$WSP_HARBOR_VENV'"
    [[ -z "${WSP_OPENENV_PYTHON:-}" ]] || echo "export WSP_OPENENV_PYTHON='$WSP_OPENENV_PYTHON'"
    [[ -z "${WSP_CHROMIUM:-}" ]] || echo "export WSP_CHROMIUM='$WSP_CHROMIUM'"
    for reason in "${PARTS_MISSING[@]}"; do echo "[ci] missing: $reason"; done
fi
