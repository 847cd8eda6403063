"""Chat clients: any OpenAI-compatible chat-completions endpoint (hosted routers, vLLM, Ollama) through
the `openai` package, and the built-in offline models, which answer through the same protocol code.

The API key is read from an environment variable whose *name* is configured; the key itself is kept in
the client only. A reply is handed on as the model sent it (it is graded as sent); the client's
`redactor` (`harness/redaction.py`) holds the key and every other credential of the request, and what a
run stores or prints passes through it; error messages are scrubbed here, where they are made.

Retries are ours (the SDK's are off) so that each try, its wait and its error are visible: rate limits,
server errors, timeouts and dropped connections are retried with exponential backoff (honouring a usable
Retry-After); other errors (bad request, wrong key, unknown model, a reply over the size cap) fail at once.

A server is not trusted to end its reply: each try has one deadline for the whole request (a server that
trickles a byte a second cannot stretch it), and the reply body is read as a stream and abandoned past
MAX_REPLY_BYTES instead of being buffered whole.

Request options (`wsp run --top-p --seed --reasoning-effort --extra-body --header`) go with every request
and into the run's config (`request_params`), where every header value but a public one's, and every
--extra-body value under a credential-like key, is REDACTED; like the key, and like the userinfo and
credential query parameters of the base URL, those values are secrets of the redactor.
"""

from __future__ import annotations

import difflib
import email.utils
import functools
import importlib
import json
import math
import os
import random
import threading
import time
from collections.abc import Callable
from contextlib import suppress
from datetime import UTC, datetime

import openai

from wspbench.harness.record import Reply
from wspbench.harness.redaction import (
    Redactor,
    body_secrets,
    public_header,
    recorded_body,
    recorded_headers,
    safe_endpoint,
    url_secrets,
)
from wspbench.tasks.spec import OFFLINE_MODELS

RETRY_STATUSES = (408, 409, 429)
MAX_WAIT_S = 60.0
MAX_REPLY_BYTES = 8 * 1024 * 1024  # a 1,000,000-character answer plus reasoning fits many times over
Status = Callable[[str], None]


class Notice(str):
    """A status text worth keeping on the console (a retry, a truncated reply), not only in the live line:
    the display (`harness/display.py`) prints it as a line of its own."""


class ModelError(RuntimeError):
    """The endpoint gave no usable reply after every try; the message says what went wrong, `retries` the
    error of each try."""

    def __init__(self, message: str, retries: list[str] | None = None):
        super().__init__(message)
        self.retries = list(retries or [])


class OfflineClient:
    """`reference` answers each task with its shipped program, `zero` with the all-zero network, `trained`
    with the shipped network trained by PPO (`wspbench/baselines/ppo.py`) and `reference-agent` plays and submits
    the shipped program through the agent protocol's blocks (`reference_agent`)."""

    kind = "offline"
    redactor = Redactor()  # no secrets

    def __init__(self, name: str):
        if name not in OFFLINE_MODELS:
            raise ValueError(f"unknown offline model {name!r} (offline models: {', '.join(OFFLINE_MODELS)})")
        self.name = name

    def describe(self) -> dict:
        return {"kind": self.kind, "model": self.name, "endpoint": None, "api_key_env": None, "request_params": {}}

    def complete(self, messages: list[dict], task, status: Status | None = None, sample: int = 0) -> Reply:
        started = time.perf_counter()
        if self.name == "reference-agent":
            content = reference_agent(task, messages)
        else:
            answer = task.offline_reply(self.name)
            content = answer or f"No {self.name} answer is shipped for {task.id}."
        return Reply(content, None, "stop", None, round(time.perf_counter() - started, 6), 1, self.name)


def reference_agent(task, messages: list[dict]) -> str:
    """The offline agent (`--protocol agent`): it lists its files in Python, writes the shipped reference into
    answer.txt and plays it once; once told the result, it submits it. Its score is the one-shot reference's."""
    if any(message["role"] == "assistant" for message in messages):
        return "I submit the program I played.\n\n```submit\nfile answer.txt\n```\n"
    answer = task.offline_answer("reference") or ""
    return f"""I look at my files, keep the reference program in answer.txt and play it once.

````python
import os

import numpy as np

for name in sorted(os.listdir(".")):
    shape = np.load(name).shape if name.endswith(".npy") else ""
    print(name, os.path.getsize(name), shape)
with open("answer.txt", "w") as file:
    file.write({answer!r})
````

```play
file answer.txt
```
"""


class OpenAIClient:
    """A model behind an OpenAI-compatible `/chat/completions` endpoint."""

    kind = "openai"

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout_s: float = 600.0,
        max_tries: int = 4,
        backoff_s: float = 2.0,
        max_tokens: int | None = None,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        reasoning_effort: str | None = None,
        extra_body: dict | None = None,
        headers: dict[str, str] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ):
        key = os.environ.get(api_key_env, "")
        secrets = [key]  # the local placeholder below is no secret
        if not key:
            if base_url is None:
                raise ModelError(
                    f"no API key: set the environment variable {api_key_env} (or name another one with --api-key-env)"
                )
            key = "none"  # local servers (vLLM, Ollama) ignore it; the SDK wants one
        self.name, self.base_url, self.api_key_env = model, base_url, api_key_env
        self.max_tries, self.backoff_s, self.timeout_s, self.sleep = max(1, max_tries), backoff_s, timeout_s, sleep
        self.max_reply_bytes = max_reply_bytes
        sent = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "top_p": top_p,
            "seed": seed,
            "reasoning_effort": reasoning_effort,
        }
        self.params = {k: v for k, v in sent.items() if v is not None}
        self.extra_body = dict(extra_body or {})
        self.headers = dict(headers or {})
        secrets += [v for k, v in self.headers.items() if not public_header(k)]
        self.redactor = Redactor([*secrets, *body_secrets(self.extra_body), *url_secrets(base_url)])
        self._key = key
        self._local = threading.local()  # one SDK client per calling thread: an abandoned one is closed alone

    def describe(self) -> dict:
        return {
            "kind": self.kind,
            "model": self.name,
            "endpoint": safe_endpoint(self.base_url),
            "api_key_env": self.api_key_env,
            "request_params": self.request_params(),
        }

    def request_params(self) -> dict:
        """What is sent with each request, as the run's config records it: credentials redacted."""
        params = dict(self.params)
        if self.extra_body:
            params["extra_body"] = recorded_body(self.extra_body)
        if self.headers:
            params["headers"] = recorded_headers(self.headers)
        return params

    def complete(self, messages: list[dict], task=None, status: Status | None = None, sample: int = 0) -> Reply:
        """The reply to `messages`; reply `sample` of a task (`--samples`) sends the run's seed plus `sample`."""
        params = dict(self.params)
        if "seed" in params:
            params["seed"] += sample
        last = "no try made"
        failed: list[str] = []  # each failed try's error, kept with the reply (or the error) in the record
        for attempt in range(1, self.max_tries + 1):
            started = time.perf_counter()
            try:
                data = self._request(messages, params)
                reply = _reply(data, time.perf_counter() - started, attempt)
                reply.retries = failed
                return reply
            except _TooLarge as error:
                failed.append(self.redactor.text(str(error))[:500])
                raise ModelError(f"{self.name}: {error} (not retried)", failed) from None
            except (openai.APIConnectionError, _Retryable) as error:  # APITimeoutError is one
                last = self._describe(error)
                wait = self._wait(attempt, None)
            except openai.APIStatusError as error:
                last = self._describe(error)
                if error.status_code not in RETRY_STATUSES and error.status_code < 500:
                    raise ModelError(f"{self.name}: {last} (not retried)", [*failed, last]) from None
                wait = self._wait(attempt, error.response.headers.get("retry-after"))
            except openai.OpenAIError as error:
                raise ModelError(f"{self.name}: {self._describe(error)}", [*failed, self._describe(error)]) from None
            failed.append(last)
            if attempt < self.max_tries:
                if status:
                    status(Notice(f"try {attempt} of {self.max_tries} failed ({last[:200]}); retrying in {wait:.1f} s"))
                self.sleep(wait)
        raise ModelError(f"{self.name}: no reply after {self.max_tries} tries; last error: {last}", failed)

    def _request(self, messages: list[dict], params: dict) -> dict:
        """One request under one deadline: it runs in a helper thread; past the deadline its connection
        is closed (which ends a trickling read) and the try counts as timed out."""
        client = getattr(self._local, "client", None)
        if client is None:
            http = openai.DefaultHttpxClient(event_hooks={"response": [self._cap_body]})
            client = self._local.client = openai.OpenAI(
                api_key=self._key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0, http_client=http
            )
        deadline = time.monotonic() + self.timeout_s
        outcome: dict = {}
        finished = threading.Event()

        def fetch() -> None:
            try:
                outcome["data"] = self._fetch(client, messages, deadline, params)
            except BaseException as error:  # noqa: BLE001 - handed to the caller, never lost with the thread
                outcome["error"] = error
            finally:
                finished.set()

        threading.Thread(target=fetch, daemon=True, name="wsp-request").start()
        if not finished.wait(self.timeout_s + 1.0):
            self._local.client = None
            with suppress(Exception):  # best effort: the thread also checks the deadline between chunks
                client.close()
            raise _Retryable(f"timed out: no complete reply within {self.timeout_s:g} s")
        if "error" in outcome:
            raise outcome["error"]
        return outcome["data"]

    def _cap_body(self, response) -> None:
        """Every response body, error replies included (the SDK reads those whole), stops at the size cap."""
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_reply_bytes:
            raise _TooLarge(f"the reply is {int(length):,} bytes, over the cap of {self.max_reply_bytes:,}")
        response.stream = _capped_stream(response.stream, self.max_reply_bytes)

    def _fetch(self, client: openai.OpenAI, messages: list[dict], deadline: float, params: dict) -> dict:
        """The reply body as JSON, read in chunks: past the size cap or the deadline it is abandoned."""
        create = client.chat.completions.with_streaming_response.create
        extra = {"extra_body": self.extra_body} if self.extra_body else {}
        if self.headers:
            extra["extra_headers"] = self.headers
        with create(model=self.name, messages=messages, **params, **extra) as response:
            length = response.headers.get("content-length", "")
            if length.isdigit() and int(length) > self.max_reply_bytes:
                raise _TooLarge(f"the reply is {int(length):,} bytes, over the cap of {self.max_reply_bytes:,}")
            body = bytearray()
            try:
                for chunk in response.iter_bytes():
                    body += chunk
                    if len(body) > self.max_reply_bytes:
                        raise _TooLarge(f"the reply is over the cap of {self.max_reply_bytes:,} bytes")
                    if time.monotonic() > deadline:
                        raise _Retryable(f"timed out: no complete reply within {self.timeout_s:g} s")
            except _http_library().HTTPError as error:  # the body broke off, stalled or could not be decoded
                text = self.redactor.text(str(error))[:200]
                raise _Retryable(f"the reply broke off: {type(error).__name__}: {text}") from None
        try:
            data = json.loads(bytes(body))
        except (ValueError, RecursionError):
            raise _Retryable("the endpoint returned a reply that is not JSON") from None
        if not isinstance(data, dict):
            raise _Retryable("the endpoint returned a reply that is not a JSON object")
        return data

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        """Retry-After when it is a usable number of seconds or an HTTP date, else exponential backoff;
        always a finite wait in [0, MAX_WAIT_S]."""
        wait = _retry_after_seconds(retry_after)
        if wait is None:
            wait = self.backoff_s * 2 ** min(attempt - 1, 30) * random.uniform(0.8, 1.2)
        return min(max(wait, 0.0), MAX_WAIT_S)

    def _describe(self, error: Exception) -> str:
        if isinstance(error, openai.APITimeoutError):
            text = f"timed out after {self.timeout_s:g} s"
        elif isinstance(error, openai.APIStatusError):
            text = f"HTTP {error.status_code}: {error.message}"
        elif isinstance(error, openai.APIConnectionError):  # nothing answered: say where, and what to check
            cause = error.__cause__ or error
            text = (
                f"cannot connect to {safe_endpoint(self.base_url)} ({type(cause).__name__}: {cause}); check that the "
                "server runs and that --base-url is its address (an OpenAI-compatible one usually ends in /v1)"
            )
        elif isinstance(error, _Retryable):
            text = str(error)
        else:
            text = f"{type(error).__name__}: {error}"
        return self.redactor.text(text)[:500]


class _Retryable(Exception):
    pass


class _TooLarge(Exception):
    pass


@functools.cache
def _http_library():
    """The HTTP library the SDK is built on (httpx or a fork of it), from its client class."""
    name = next(c.__module__ for c in openai.DefaultHttpxClient.__mro__ if not c.__module__.startswith("openai"))
    return importlib.import_module(name.split(".")[0])


def _capped_stream(stream, cap: int):
    """`stream` (the HTTP library's response stream) that raises _TooLarge once more than `cap` bytes came."""

    class Capped(_http_library().SyncByteStream):
        def __iter__(self):
            total = 0
            for chunk in stream:
                total += len(chunk)
                if total > cap:
                    raise _TooLarge(f"the reply is over the cap of {cap:,} bytes")
                yield chunk

        def close(self) -> None:
            stream.close()

    return Capped()


def _retry_after_seconds(value: str | None) -> float | None:
    """Seconds from a Retry-After header (a number or an HTTP date), or None when it is unusable
    (missing, nan, infinite, negative, garbage)."""
    if not value or len(value) > 100:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - datetime.now(UTC)).total_seconds()
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def _reply(data: dict, latency: float, attempt: int) -> Reply:
    """A Reply from the raw JSON, taking only fields of the expected types, as sent (it is graded as sent;
    the run directory scrubs what it stores)."""
    choices = data.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else {}
    message = choice.get("message")
    if not isinstance(message, dict):
        raise _Retryable("the endpoint returned no message")
    reasoning = None
    for name in ("reasoning_content", "reasoning"):  # vLLM/DeepSeek, OpenRouter/HF router
        value = message.get(name)
        if isinstance(value, str) and value:
            reasoning = value
            break
    finish, model = choice.get("finish_reason"), data.get("model")
    return Reply(
        _text(message.get("content")),
        reasoning,
        finish[:100] if isinstance(finish, str) else None,
        _usage(data.get("usage")),
        round(latency, 3),
        attempt,
        model[:200] if isinstance(model, str) else None,
    )


def _text(content) -> str:
    """Message content: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))
    return ""


def _usage(usage) -> dict | None:
    """The token counts of `usage`: numbers, and dicts of numbers one level down; anything else is dropped."""
    if not isinstance(usage, dict):
        return None

    def number(value) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)

    kept = {}
    for key, value in list(usage.items())[:50]:
        if number(value):
            kept[str(key)[:100]] = value
        elif isinstance(value, dict):
            inner = {str(k)[:100]: v for k, v in list(value.items())[:50] if number(v)}
            if inner:
                kept[str(key)[:100]] = inner
    return kept or None


def make_client(model: str, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY", **options):
    """An offline model for `reference`, `zero` and `trained`, an OpenAI-compatible client for any other name."""
    if model in OFFLINE_MODELS:
        return OfflineClient(model)
    near = difflib.get_close_matches(model, OFFLINE_MODELS, n=1, cutoff=0.8)
    if near and base_url is None:  # a typo of an offline model, not a model of OpenAI's endpoint
        raise ModelError(
            f"no model {model!r:.60}: did you mean {near[0]!r}? The offline models are {', '.join(OFFLINE_MODELS)}; "
            "any other name is a model at an OpenAI-compatible endpoint (--base-url)"
        )
    return OpenAIClient(model, base_url, api_key_env, **options)
