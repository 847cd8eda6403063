"""Credentials kept out of everything a run stores or prints (records, manifest, summary, console, errors),
and never out of what is graded: the client hands a reply on exactly as the model sent it, and only the
run directory's writer and the live display pass text through a Redactor.

Two ways, one per kind of place:
- By name, where a credential has a known place, whatever its length (`wsp run`'s config,
  `request_params`): every header value except those of PUBLIC_HEADERS (a custom header may carry a
  token whatever its name), --extra-body values under a credential-like key at any depth
  (`credential_name`: api_key, access_token, password, secret, session...), and a base URL's userinfo
  and query (`safe_endpoint` keeps neither). They are recorded as REDACTED.
- By value, in free text (replies, server errors that echo a request back): the API key and every value
  named above is a secret when it has at least MIN_SECRET_CHARS (8) characters. A shorter value is not a
  secret and is never scrubbed from anything: with `MYKEY=2`, scrubbing "2" would write `b3[***] = 9`
  for `b3[2] = 9`, and a credential that short protects nothing anyway.

A secret is replaced by `***` whole, in the forms a server echoes it: as is, JSON- and Python-escaped,
URL-encoded, and base64 at each of the three byte alignments (the `Basic` header that `user:password@` in
a base URL becomes, or a secret inside a larger encoded blob). A piece of a secret is replaced too when
it has at least half the secret's characters (and at least 8): servers echo keys masked, such as
`sk-test-DUMMY-7f3a...60aa`, and half a key is worth hiding. A shorter piece is left: a provider's own
mask (a shared prefix such as `sk-proj-` and the last 4 characters) identifies no key, and replacing every
8-character window would rewrite any text that shares a prefix with a key.
"""

from __future__ import annotations

import base64
import json
import math
import re
from urllib.parse import quote, quote_plus, unquote, unquote_plus, urlsplit

MIN_SECRET_CHARS = 8
MARK = "***"
REDACTED = "<redacted>"
PUBLIC_HEADERS = frozenset(  # values that identify no one; every other header's value is redacted
    {
        "accept",
        "accept-language",
        "content-type",
        "user-agent",
        "referer",
        "http-referer",
        "x-title",
        "openai-beta",
        "anthropic-version",
        "anthropic-beta",
    }
)
CREDENTIAL_WORDS = frozenset({"pwd", "pass", "jwt", "signature", "bearer", "otp"})
CREDENTIAL_PARTS = ("auth", "secret", "passw", "passphrase", "credential", "cookie", "session", "apikey")


def credential_name(name: str) -> bool:
    """Whether a body key or query parameter names a credential: a word that ends in `key` or `token`
    (api_key, accessToken; not max_tokens) or holds auth, secret, password, cookie, session, credential."""
    words = re.findall(r"[a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", str(name)).lower())
    return any(
        w in CREDENTIAL_WORDS or w.endswith(("key", "token")) or any(part in w for part in CREDENTIAL_PARTS)
        for w in words
    )


def public_header(name: str) -> bool:
    return name.strip().lower() in PUBLIC_HEADERS


def recorded_headers(headers: dict[str, str]) -> dict[str, str]:
    """Headers as a run's config records them: only public headers keep their values."""
    return {name: value if public_header(name) else REDACTED for name, value in headers.items()}


def recorded_body(value):
    """--extra-body as a run's config records it: values under credential-like keys redacted, at any depth."""
    if isinstance(value, dict):
        return {k: REDACTED if credential_name(k) else recorded_body(v) for k, v in value.items()}
    if isinstance(value, list):
        return [recorded_body(v) for v in value]
    return value


def body_secrets(value, under_credential: bool = False) -> list[str]:
    """The values (as text) under credential-like keys of --extra-body, at any depth."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in body_secrets(v, under_credential or credential_name(k))]
    if isinstance(value, list):
        return [s for v in value for s in body_secrets(v, under_credential)]
    if under_credential and isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return [str(value)]
    return []


def url_secrets(url: str | None) -> list[str]:
    """A URL's credentials: its userinfo (user, password, and `user:password` and its base64, the Basic
    credential that the HTTP library sends) and the values of credential-like query parameters, as written
    and URL-decoded."""
    if not url:
        return []
    parts = urlsplit(url)
    found = [s for value in (parts.username, parts.password) if value for s in (value, unquote(value))]
    if parts.username is not None and parts.password is not None:
        basic = f"{unquote(parts.username)}:{unquote(parts.password)}"
        found += [basic, base64.b64encode(basic.encode()).decode()]
    for item in parts.query.split("&"):
        name, _, value = item.partition("=")
        if credential_name(unquote_plus(name)):
            found += [value, unquote(value), unquote_plus(value)]
    return list(dict.fromkeys(found))


def safe_endpoint(base_url: str | None) -> str | None:
    """The endpoint without credentials or query: scheme://host[:port]/path."""
    if base_url is None:
        return "https://api.openai.com/v1"
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}"


class Redactor:
    """Replaces the secrets among `values` (those of MIN_SECRET_CHARS characters or more) with MARK, in text
    (`text`) and in JSON data, keys included (`tree`). With no secret it returns what it is given."""

    def __init__(self, values=()):
        self.secrets = sorted(
            {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_CHARS}, key=len, reverse=True
        )
        forms = {form for secret in self.secrets for form in _encodings(secret)}
        self.forms = sorted(forms, key=len, reverse=True)  # a whole value before any piece of it

    def __bool__(self) -> bool:
        return bool(self.secrets)

    def text(self, text: str) -> str:
        if not self.secrets or not isinstance(text, str) or len(text) < MIN_SECRET_CHARS:
            return text
        for form in self.forms:
            if form in text:
                text = text.replace(form, MARK)
        for secret in self.secrets:
            text = _pieces(text, secret)
        return text

    def tree(self, data):
        if not self.secrets:
            return data
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, dict):
            return {self.text(k) if isinstance(k, str) else k: self.tree(v) for k, v in data.items()}
        if isinstance(data, (list, tuple)):
            return [self.tree(v) for v in data]
        return data


def _encodings(secret: str) -> set[str]:
    """The forms in which a server may echo `secret`: as is, escaped, URL-encoded, and each of these in
    base64 (a JSON text encoded whole holds a secret JSON-escaped)."""
    texts = {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        quote(secret, safe=""),
        quote(secret),
        quote_plus(secret),
    }
    forms = set(texts)
    for text in texts:
        raw = text.encode("utf-8", "surrogatepass")
        forms |= {base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()}
        for skip in range(3):  # inside a longer base64 text the secret starts at one of three byte alignments
            core = raw[skip:]
            core = core[: len(core) // 3 * 3]
            if len(core) >= 6:  # 8 base64 characters
                forms |= {base64.b64encode(core).decode(), base64.urlsafe_b64encode(core).decode()}
    return forms


def _pieces(text: str, secret: str) -> str:
    """`text` with every piece of `secret` of at least half its length (and MIN_SECRET_CHARS) replaced,
    each piece as long as it matches."""
    size = max(MIN_SECRET_CHARS, math.ceil(len(secret) / 2))
    for start in range(len(secret) - size + 1):
        piece = secret[start : start + size]
        found = text.find(piece)
        while found != -1:
            low, high, first, last = found, found + size, start, start + size
            while low > 0 and first > 0 and text[low - 1] == secret[first - 1]:
                low, first = low - 1, first - 1
            while high < len(text) and last < len(secret) and text[high] == secret[last]:
                high, last = high + 1, last + 1
            text = text[:low] + MARK + text[high:]
            found = text.find(piece, low + len(MARK))
    return text
