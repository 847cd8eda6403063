"""Token counts for `wsp run --dry-run` and `--max-prompt-tokens`: tiktoken when it is installed and its encoding
loads (it downloads encodings on first use, so offline it may fail or stall: the load has a deadline), else an
estimate that says it is one: the pieces that tiktoken's encodings split text into before merging (runs of at most
3 digits, words with their leading space, runs of other symbols), or characters / 4, whichever is larger. Each
piece is at least one token, so for the weight listings of the reading tasks (mostly 3-digit numbers) the
estimate is close, where characters / 4 would count half of them. When tiktoken is installed but its encoding
cannot be loaded, the estimate comes with a one-line note that says why (never the raw network error)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

CHARS_PER_TOKEN = 4
_PIECE = re.compile(r"\d{1,3}| ?[^\W\d_]+| ?[^\w\s]+|\s+")
DEFAULT_ENCODING = "o200k_base"  # the encoding of current OpenAI models; others only approximate it
LOAD_WAIT_S = 10.0


def token_counter(model: str, wait_s: float = LOAD_WAIT_S) -> tuple[Callable[[str], int], str, str | None]:
    """(count, label, note): a function from text to its token count, a label that says how it counts, and a
    one-line note when tiktoken is installed but could not be used (else None)."""
    try:
        import tiktoken
    except ImportError:
        return _estimate, _estimate_label("tiktoken is not installed"), None
    try:
        name, note = tiktoken.encoding_name_for_model(model), ""
    except (KeyError, ValueError):  # not an OpenAI model: its own tokenizer differs
        name, note = DEFAULT_ENCODING, f", approximate: tiktoken does not know {model[:60]}"
    loaded: dict = {}

    def load() -> None:
        try:
            loaded["encoding"] = tiktoken.get_encoding(name)
        except Exception as error:  # noqa: BLE001 - no network, a broken cache: fall back to the estimate
            loaded["error"] = type(error).__name__  # its text can be a whole HTTPSConnectionPool dump

    thread = threading.Thread(target=load, daemon=True, name="wsp-tiktoken")
    thread.start()
    thread.join(wait_s)
    encoding = loaded.get("encoding")
    if encoding is None:
        reason = loaded.get("error") or f"no answer within {wait_s:g} s"
        note = (
            f"note: tiktoken could not load its {name} encoding ({reason}; it downloads it on first use, so offline "
            "it needs TIKTOKEN_CACHE_DIR holding a copy): token counts are the offline estimate"
        )
        return _estimate, _estimate_label(f"tiktoken could not load {name}"), note
    return (lambda text: len(encoding.encode(text, disallowed_special=()))), f"tiktoken {name}{note}", None


def _estimate(text: str) -> int:
    return max(-(-len(text) // CHARS_PER_TOKEN), sum(1 for _ in _PIECE.finditer(text)))


def _estimate_label(reason: str) -> str:
    return f"estimated: pre-tokenizer pieces or characters / {CHARS_PER_TOKEN}, the larger ({reason})"
