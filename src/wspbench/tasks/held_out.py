"""Held-out episodes that a model cannot know (docs/validity.md, "Which episodes score").

The one-shot protocol and `wsp verify` grade on a task's fixed scoring episodes (the seed's contract: MinAtar
episode e = 0, 1, ... seeds its game with 1729 + e). Under feedback and agent a model learns from training
episodes, and the agent's kernel holds the game's source: with the seed rule it could replay the fixed scoring
episodes and fit an answer to them. So those protocols grade on episodes drawn from a secret made when the run
starts (`new_secret`). The secret stays on the host: the run directory keeps it (`SECRET_FILE`), never a prompt,
a kernel's folder or a record. Each task draws with its own key, HMAC-SHA256(secret, task id) (`task_key`), which
its record publishes once the task is graded, so that anyone can draw the same episodes again (`draw`, `wsp grade
--held-out-key`) and check the grade; one task's key tells nothing of another's.

A family declares where its drawn episodes come from (`Task.secret_episodes`): a range far from its scoring,
training and calibration episodes, so that no draw is an episode a model was ever shown. Scores on drawn and on
fixed episodes are comparable in distribution (the same game, seeded by the same rule), not episode by episode.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable

SECRET_FILE = "held-out.secret"  # in the run directory: the run's secret (hex), readable by its owner only
KEY = re.compile(r"[0-9a-f]{64}")


def new_secret() -> str:
    """A fresh secret: 32 random bytes, as hex."""
    return secrets.token_hex(32)


def task_key(secret: str, task_id: str) -> str:
    """The key that draws `task_id`'s held-out episodes under `secret` (hex)."""
    return hmac.new(bytes.fromhex(checked(secret)), task_id.encode(), hashlib.sha256).hexdigest()


def checked(key: str) -> str:
    """`key` if it is a secret or a task key (64 hex digits), else ValueError."""
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise ValueError("a held-out key is 64 hexadecimal digits (lower case)")
    return key


def draw(
    key: str, count: int, first: int, size: int, classes: int = 1, keep: Callable[[int], bool] | None = None
) -> list[int]:
    """`count` distinct episodes of first .. first + size - 1, drawn by `key`: from SHA-256(key:0), SHA-256(key:1),
    ... in turn (a repeat is skipped), so a draw of n is the first n of any longer draw. With `classes` > 1 the
    i-th episode is i modulo `classes`, counted from `first` (a family whose episodes take turns at a kind, as
    superbeam/extended's difficulties do). With `keep`, an episode it rejects is skipped too (superbeam/hard keeps
    a drawn level only as it keeps a fixed one)."""
    checked(key)
    slots = size // classes
    if count > slots // 2:
        raise ValueError(f"cannot draw {count:,} episodes from {size:,}")
    found: list[int] = []
    seen: set[int] = set()
    index = 0
    while len(found) < count:
        digest = hashlib.sha256(f"{key}:{index}".encode()).digest()
        episode = first + int.from_bytes(digest[:8], "big") % slots * classes + len(found) % classes
        index += 1
        if episode not in seen:
            seen.add(episode)
            if keep is None or keep(episode):
                found.append(episode)
    return found
