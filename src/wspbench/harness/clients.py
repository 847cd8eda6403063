"""Chat clients: any OpenAI-compatible chat-completions endpoint (hosted routers, vLLM, Ollama) through
the `openai` package, and the built-in offline models, which answer through the same protocol code.

The API key is read from an environment variable whose *name* is configured; the key itself is kept in
the client only, and every error message is scrubbed of it before it can reach a log or a record.
Retries are ours (the SDK's are off) so that each try, its wait and its error are visible: rate limits,
server errors, timeouts and dropped connections are retried with exponential backoff (honouring
Retry-After); other errors (bad request, wrong key, unknown model) fail at once.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import asdict, dataclass
from typing import Callable
from urllib.parse import urlsplit

import openai

OFFLINE_MODELS = ("reference", "zero")
RETRY_STATUSES = (408, 409, 429)
MAX_WAIT_S = 60.0
Status = Callable[[str], None]


class ModelError(RuntimeError):
    """The endpoint gave no usable reply after every try; the message says what went wrong."""


@dataclass
class Reply:
    """One model reply and what it cost."""

    content: str
    reasoning: str | None
    finish_reason: str | None
    usage: dict | None
    latency_s: float
    attempts: int
    model: str | None

    def record(self) -> dict:
        return asdict(self)


class OfflineClient:
    """`reference` answers each task with its shipped program; `zero` with the all-zero network."""

    kind = "offline"

    def __init__(self, name: str):
        if name not in OFFLINE_MODELS:
            raise ValueError(f"unknown offline model {name!r} (offline models: {', '.join(OFFLINE_MODELS)})")
        self.name = name

    def describe(self) -> dict:
        return {"kind": self.kind, "model": self.name, "endpoint": None, "api_key_env": None, "request_params": {}}

    def complete(self, messages: list[dict], task, status: Status | None = None) -> Reply:
        started = time.perf_counter()
        content = task.offline_answer(self.name)
        return Reply(content, None, "stop", None, round(time.perf_counter() - started, 6), 1, self.name)


class OpenAIClient:
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    kind = "openai"

    def __init__(self, model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY",
                 timeout_s: float = 600.0, max_tries: int = 4, backoff_s: float = 2.0,
                 max_tokens: int | None = None, temperature: float | None = None,
                 sleep: Callable[[float], None] = time.sleep):
        key = os.environ.get(api_key_env, "")
        if not key:
            if base_url is None:
                raise ModelError(f"no API key: set the environment variable {api_key_env} "
                                 "(or name another one with --api-key-env)")
            key = "none"  # local servers (vLLM, Ollama) ignore it; the SDK wants one
        self.name, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.max_tries, self.backoff_s, self.timeout_s, self.sleep = max(1, max_tries), backoff_s, timeout_s, sleep
        self.params = {k: v for k, v in (("max_tokens", max_tokens), ("temperature", temperature)) if v is not None}
        self._secret = key
        self._client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout_s, max_retries=0)

    def describe(self) -> dict:
        return {"kind": self.kind, "model": self.name, "endpoint": safe_endpoint(self.base_url),
                "api_key_env": self.api_key_env, "request_params": dict(self.params)}

    def complete(self, messages: list[dict], task=None, status: Status | None = None) -> Reply:
        last = "no try made"
        for attempt in range(1, self.max_tries + 1):
            started = time.perf_counter()
            try:
                response = self._client.chat.completions.create(model=self.name, messages=messages, **self.params)
                latency = time.perf_counter() - started
                if not getattr(response, "choices", None) or response.choices[0].message is None:
                    raise _Retryable("the endpoint returned no message")
                return _reply(response, latency, attempt)
            except (openai.APIConnectionError, _Retryable) as error:  # APITimeoutError is one
                last = self._describe(error)
                wait = self._wait(attempt, None)
            except openai.APIStatusError as error:
                last = self._describe(error)
                if error.status_code not in RETRY_STATUSES and error.status_code < 500:
                    raise ModelError(f"{self.name}: {last} (not retried)") from None
                wait = self._wait(attempt, error.response.headers.get("retry-after"))
            except openai.OpenAIError as error:
                raise ModelError(f"{self.name}: {self._describe(error)}") from None
            if attempt < self.max_tries:
                if status:
                    status(f"try {attempt} failed ({last[:60]}); retrying in {wait:.1f} s")
                self.sleep(wait)
        raise ModelError(f"{self.name}: no reply after {self.max_tries} tries; last error: {last}")

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        try:
            if retry_after is not None:
                return min(max(float(retry_after), 0.0), MAX_WAIT_S)
        except ValueError:
            pass
        return min(self.backoff_s * 2 ** (attempt - 1) * random.uniform(0.8, 1.2), MAX_WAIT_S)

    def _describe(self, error: Exception) -> str:
        if isinstance(error, openai.APITimeoutError):
            text = f"timed out after {self.timeout_s:g} s"
        elif isinstance(error, openai.APIStatusError):
            text = f"HTTP {error.status_code}: {error.message}"
        else:
            text = f"{type(error).__name__}: {error}"
        return scrub(text[:500], self._secret)


class _Retryable(Exception):
    pass


def _reply(response, latency: float, attempt: int) -> Reply:
    choice = response.choices[0]
    message = choice.message
    reasoning = None
    for name in ("reasoning_content", "reasoning"):  # vLLM/DeepSeek, OpenRouter/HF router
        value = getattr(message, name, None)
        if isinstance(value, str) and value:
            reasoning = value
            break
    usage = response.usage.model_dump(exclude_none=True) if response.usage else None
    return Reply(message.content or "", reasoning, choice.finish_reason, usage, round(latency, 3), attempt,
                 response.model)


def scrub(text: str, secret: str) -> str:
    """`text` without the secret or any 8-character piece of it (servers echo keys, sometimes masked)."""
    if len(secret) < 8:
        return text.replace(secret, "***") if secret else text
    for start in range(len(secret) - 7):
        piece = secret[start:start + 8]
        if piece in text:
            text = text.replace(piece, "***")
    return text


def safe_endpoint(base_url: str | None) -> str | None:
    """The endpoint without credentials or query: scheme://host[:port]/path."""
    if base_url is None:
        return "https://api.openai.com/v1"
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


def make_client(model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY", **options):
    """An offline model for `reference` and `zero`, an OpenAI-compatible client for any other name."""
    if model in OFFLINE_MODELS:
        return OfflineClient(model)
    return OpenAIClient(model, base_url, api_key_env, **options)
