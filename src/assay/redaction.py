"""Secrets masked in everything assay prints or stores: one registry, one set of shapes.

A secret is known in two ways:
- by value: the environment's key variables (ANTHROPIC_API_KEY, OPENAI_API_KEY,
  any variable whose name says KEY, TOKEN, SECRET, PASSWORD, ...: `SEARCH_KEY` as much
  as `SEARCH_API_KEY`), and every
  value `${VAR}` put into a config where it is used as a credential (see
  `assay.config.interpolation`); these are masked wherever they appear,
  including in a service's reply that echoes a header back;
- by shape: a bearer token, an `api_key=...` or `Authorization: ...` pair,
  an `sk-...` key, masked in error text and logs; and in a URL, the password
  of `https://user:PASSWORD@host` and the value of a query parameter named like
  a secret (`?key=...`, `&access_token=...`, `&sig=...`), masked wherever the URL
  is printed or stored, a config's stored copy included.

`redact(text)` masks both in text (error messages, response bodies, server
stderr); `redact_known(text)` masks only the known values, for text whose
key-like shapes may be content (an agent's answer quoting `api_key=...`);
`redact_structure(value)` masks a config-like structure for storing, and
`literal_secrets(value)` finds the secrets it writes as they are (a value under a
secret-looking key, or after a secret-looking flag of a command line), which loading
a config registers so that an echo of them is masked too.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

MASK = "***"
MIN_SECRET_CHARS = 6
"""Shorter values are not masked: masking `abc` everywhere would garble text and hide
nothing worth hiding."""

SECRET_NAME = re.compile(
    r"(?i)(api[_-]?key|token(?!s)|secret|passw(or)?d|credential|private[_-]?key"
    r"|authori[sz]ation|(^|[^a-z])auth([^a-z]|$)|cookie|access[_-]?key|[_-]key$)")
"""A variable or config key whose value is a secret."""

_PUNCTUATION = ",:.)\\]>"
"""What a secret value in text does not end with: the punctuation of the sentence it is in
(`api_key=K: refused` and `cannot reach http://host/?key=K: refused` keep their `:`)."""
_BEARER = re.compile(rf"(?i)(bearer\s+)[^\s'\",}}&]*[^\s'\",}}&{_PUNCTUATION}]")
_KEY_FIELD = re.compile(
    rf"(?i)((?:x-api-key|api[_-]?key|authorization)['\"]?\s*[:=]\s*['\"]?)"
    rf"[^\s'\",}}&]*[^\s'\",}}&{_PUNCTUATION}]")
_KEY_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_\-]{6,}")
_URL_PASSWORD = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s/?#@:]*:)([^\s/?#]+)(?=@)")
"""A URL's password runs to the last `@` before its host, as URL parsers read it: an
unescaped `@` in `user:p@ss@host` is the password's, not its end."""
_URL_PARAMETER = re.compile(r"(?i)(\b[a-z][a-z0-9+.\-]*://[^\s?#]*\?[^\s#]*)")
_PARAMETER = re.compile(rf"([?&;])([^=&;#\s]+)=([^&;#\s'\"]+(?=[&;#])"
                        rf"|[^&;#\s'\"]*[^&;#\s'\"{_PUNCTUATION}])")
"""A query parameter: its value runs to the next `&`, or, at the URL's end, stops before
the punctuation of the sentence the URL is in (`?key=K: refused`)."""
URL_SECRET_PARAMETERS = frozenset({"key", "sig", "signature", "code", "pass", "pwd"})
"""Query parameters that carry a secret though `SECRET_NAME` would not say so
(`?key=` of Google's APIs, `&sig=` of a signed URL)."""
_SIGNATURE_PARAMETER = re.compile(r"(?i)(^|[-_.])(sig|signature)$")
"""A signed URL's signature under a vendor's prefix (`X-Amz-Signature`, `X-Goog-Signature`)."""
_DATA_KEY_NAME = re.compile(
    r"(?i)^(sort|order|primary|foreign|partition|range|hash|row|group|cache|lookup|index|unique"
    r"|object|idempotency|dedupe?|shard|routing|bucket)[_-]key$")
"""A `*_key` name that names a column or an ordering, not a credential (`?sort_key=created_at`,
`primary_key: id` in a request body): shown, so an error still says which URL failed and a
value such as `id` is not masked wherever it appears. Any other `*_key` (`user_key`,
`app_key`, `license_key`) stays masked, as a secret might."""
_REFERENCE = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^}]*)?\}")

_registered: set[str] = set()
_lock = threading.Lock()


def register(*values: str | None) -> None:
    """Treat these values as secrets from now on, in this process."""
    with _lock:
        _registered.update(v for v in values if v and len(v) >= MIN_SECRET_CHARS)


def is_secret_name(name: str) -> bool:
    """True for a variable or key name that holds a secret (`OPENAI_API_KEY`, `password`)."""
    return (bool(SECRET_NAME.search(name)) and not name.lower().endswith("_env")
            and not _DATA_KEY_NAME.match(name))


def known_secrets() -> list[str]:
    """Every secret known by value, longest first (so a key is masked before its prefix)."""
    found = {value for name, value in os.environ.items()
             if value and len(value) >= MIN_SECRET_CHARS and is_secret_name(name)}
    with _lock:
        found |= _registered
    return sorted(found, key=len, reverse=True)


def redact_known(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every known secret (and each of `extra`) replaced by `***`."""
    return _mask(text, known_secrets() + [v for v in extra if v and len(v) >= MIN_SECRET_CHARS])


def _mask(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, MASK)
    return text


def masker() -> Callable[[str], str] | None:
    """The function masking every known secret in a text about to be stored, or None when
    no secret is known (nothing to mask, nothing to pay per row).

    A target may echo a key it was given, a scorer may quote it in a reason: what is
    stored (and so every report rendered from the store) never holds it. Known values
    only, so an answer that talks about `api_key=...` stays as it was. One search for all
    the secrets at once tells whether a text needs masking at all.
    """
    secrets = known_secrets()
    anywhere = _search(secrets)
    if anywhere is None:
        return None

    def mask(text: str) -> str:
        return _mask(text, secrets) if anywhere(text) else text

    return mask


def secret_finder() -> Callable[[str], bool] | None:
    """The test of whether a text holds a known secret, in one search for all of them; None
    when no secret is known. For a text that is kept whole or not at all (`masker` masks)."""
    search = _search(known_secrets())
    if search is None:
        return None
    return lambda text: search(text) is not None


def _search(secrets: list[str]) -> Callable[[str], re.Match[str] | None] | None:
    """One search for any of `secrets` (None when there is none)."""
    if not secrets:
        return None
    return re.compile("|".join(re.escape(secret) for secret in secrets)).search


def redact_rows(rows: Iterable[dict[str, Any]], fields: Iterable[str]) -> None:
    """Mask every known secret in these text fields of rows about to be stored (see
    `masker`); nothing is looked at when no secret is known."""
    mask = masker()
    if mask is None:
        return
    names = tuple(fields)
    for row in rows:
        for name in names:
            value = row.get(name)
            if isinstance(value, str):
                row[name] = mask(value)


def redact(text: str, extra: Iterable[str | None] = ()) -> str:
    """`text` with every known secret and anything shaped like a key replaced by `***`."""
    text = _mask_url_secrets(redact_known(text, extra))
    text = _BEARER.sub(rf"\1{MASK}", text)
    text = _KEY_FIELD.sub(rf"\1{MASK}", text)
    return _KEY_SHAPE.sub(MASK, text)


_ASSIGNED = re.compile(r"""(?<![\w.-])([A-Za-z_][\w.-]*)(["']?\s*[:=]\s*["']?)([^\s"',;}#]+)""")
"""`NAME=value`, `name: value`, `"name": "value"`: a value given under a name, as a `.env`,
a YAML or a JSON file writes it."""


def redact_file_text(text: str) -> str:
    """`text` of a file as `redact` masks it, and every value given under a secret's name
    (`GITHUB_TOKEN=ghp_...`, `aws_secret_access_key: ...`, `"password": "..."`) masked
    too, whatever its shape: a `.env` or a settings file an agent read holds keys assay was
    never told of, and an excerpt of it written into a dataset draft is shared with it."""
    def masked(match: re.Match[str]) -> str:
        name, separator, value = match.groups()
        if len(value) < MIN_SECRET_CHARS or not is_secret_name(name):
            return match[0]
        return f"{name}{separator}{MASK}"

    return redact(_ASSIGNED.sub(masked, text))


def _is_secret_parameter(name: str) -> bool:
    """True for a query parameter named like a secret, as written or percent-encoded
    (`api%5Fkey` is `api_key` to the service that reads it)."""
    from urllib.parse import unquote  # not at import: `assay --help` reads no URL

    name = unquote(name)
    return (is_secret_name(name) or name.lower() in URL_SECRET_PARAMETERS
            or bool(_SIGNATURE_PARAMETER.search(name)))


def url_secrets(text: str) -> list[str]:
    """The secrets the URLs in `text` carry: a password before `@`, the value of a query
    parameter named like a secret. A `${VAR}` reference is not a secret yet."""
    return [text[start:end] for start, end in _url_secret_spans(text)]


def _mask_url_secrets(text: str) -> str:
    """`text` with each URL's password and secret query values replaced by `***`
    (`${VAR}` references kept, so a stored config still says where the secret comes from)."""
    parts, last = [], 0
    for start, end in _url_secret_spans(text):
        parts += [text[last:start], MASK]
        last = end
    return "".join(parts) + text[last:] if parts else text


def _url_secret_spans(text: str) -> Iterator[tuple[int, int]]:
    """Where the URLs in `text` hold a secret, in order: one search for the finder and the
    masker alike."""
    if "://" not in text:
        return
    spans = [match.span(2) for match in _URL_PASSWORD.finditer(text)]
    for url in _URL_PARAMETER.finditer(text):
        offset = url.start(1)
        spans += [(offset + parameter.start(3), offset + parameter.end(3))
                  for parameter in _PARAMETER.finditer(url.group(1))
                  if _is_secret_parameter(parameter.group(2))]
    for start, end in sorted(spans):
        if not _REFERENCE.fullmatch(text[start:end]):
            yield start, end


def redact_structure(value: Any) -> Any:
    """A copy safe to store: a value under a secret-looking key is masked (unless it is a
    `${VAR}` reference, which stays a reference), and known secrets and URLs' secrets
    anywhere in a string."""
    return _masked_structure(value, known_secrets())  # looked up once, not once per string


def _masked_structure(value: Any, secrets: list[str]) -> Any:
    masked = _with_strings_masked(value, secrets)
    for found in _secret_values(value):
        if not _REFERENCE.fullmatch(found.secret.strip()):
            _replace_at(masked, found.path, f"{found.flag}={MASK}" if found.flag else MASK)
    return masked


def _with_strings_masked(value: Any, secrets: list[str]) -> Any:
    """A copy of `value` with the known secrets masked in every string."""
    if isinstance(value, dict):
        return {key: _with_strings_masked(sub, secrets) for key, sub in value.items()}
    if isinstance(value, list):
        return [_with_strings_masked(sub, secrets) for sub in value]
    if isinstance(value, str):
        return _mask_url_secrets(_mask(value, secrets))
    return value


def _replace_at(value: Any, path: tuple[Any, ...], new: str) -> None:
    """Put `new` at `path` (keys and indexes from the top) of a structure of dicts and lists."""
    *above, last = path
    for step in above:
        value = value[step]
    value[last] = new


@dataclass(frozen=True, slots=True)
class _SecretValue:
    """A secret a config-like structure writes, and where."""

    path: tuple[Any, ...]
    """The keys and indexes that lead to it from the top."""
    secret: str
    flag: str | None
    """None for the value of a secret-looking key; for a command line's item, the flag kept
    before `=` (`--token=VALUE`), or "" when the whole item is the secret."""


def _secret_values(value: Any, path: tuple[Any, ...] = ()) -> Iterator[_SecretValue]:
    """Every value that a secret-looking key or command-line flag says is a secret, as
    written (a `${VAR}` reference too: each reader says what it does with one)."""
    if isinstance(value, dict):
        for key, sub in value.items():
            if isinstance(key, str) and isinstance(sub, str) and is_secret_name(key):
                yield _SecretValue((*path, key), sub, None)
            else:
                yield from _secret_values(sub, (*path, key))
    elif isinstance(value, list):
        for index, (flag, secret) in _flag_values(value).items():
            yield _SecretValue((*path, index), secret, flag)
        for index, sub in enumerate(value):
            yield from _secret_values(sub, (*path, index))


_FLAG = re.compile(r"(-{1,2}[A-Za-z][\w-]*)(?:=(.*))?", re.DOTALL)


def _flag_values(items: list[Any]) -> dict[int, tuple[str, str]]:
    """The items of a command line that hold a secret, by position: the value after a
    secret-looking flag, `--api-key VALUE` (no flag kept: the whole item is the secret) or
    `--token=VALUE` (the flag kept before `=`)."""
    found: dict[int, tuple[str, str]] = {}
    for index, item in enumerate(items):
        match = _FLAG.fullmatch(item) if isinstance(item, str) else None
        if match is None or not is_secret_name(match.group(1)):
            continue
        following = items[index + 1] if index + 1 < len(items) else None
        if match.group(2) is not None:
            found[index] = (match.group(1), match.group(2))
        elif isinstance(following, str) and not following.startswith("-"):
            found[index + 1] = ("", following)
    return found


def literal_secrets(value: Any) -> list[str]:
    """The secrets a config-like structure writes as they are, which `redact_structure` masks:
    a value under a secret-looking key (and the token of an `Authorization: Bearer TOKEN`),
    after a secret-looking flag of a command line, or in a URL (`url_secrets`). A value
    holding a `${VAR}` is left out: its variable becomes a secret when it is interpolated
    (`assay.config.interpolation`)."""
    found: list[str] = []
    for value_found in _secret_values(value):
        secret = value_found.secret
        if value_found.flag is not None:
            found.append(secret)
        elif secret.strip():
            found.extend([secret, secret.split()[-1]])
    found.extend(urls_secrets(value))
    return [secret for secret in found if "${" not in secret]


def command_line_secrets(value: Any) -> list[str]:
    """The values after a secret-looking flag in every command line of a config-like
    structure: a list (`[agent, --api-key, KEY]`, `--token=KEY`) or a `command:` string
    (`agent --api-key KEY`). Of a config once interpolated, they are the values `${VAR}` put
    after such a flag, whatever the variable's name: `--api-key ${GATEWAY}` sends a key."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            if key == "command" and isinstance(sub, str):
                found += [secret for _, secret in _flag_values(_words(sub)).values()]
            found += command_line_secrets(sub)
    elif isinstance(value, list):
        found += [secret for _, secret in _flag_values(value).values()]
        for sub in value:
            found += command_line_secrets(sub)
    return found


def _words(command: str) -> list[str]:
    """A command line's words as a shell splits them (none when it cannot: an unclosed quote
    is the command's own problem, said where it is run)."""
    import shlex  # not at import: `assay --help` splits no command

    try:
        return shlex.split(command)
    except ValueError:
        return []


def urls_secrets(value: Any) -> list[str]:
    """The secrets of every URL in a config-like structure (`url_secrets`). Of a config once
    interpolated, they are the values `${VAR}` put in a URL's password or key, whatever the
    variable's name: `https://me:${PW}@host` sends PW as a password."""
    return [secret for text in _strings(value) for secret in url_secrets(text)]


def _strings(value: Any) -> Iterator[str]:
    """Every string in a structure of dicts and lists, keys left out."""
    if isinstance(value, dict):
        for sub in value.values():
            yield from _strings(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from _strings(sub)
    elif isinstance(value, str):
        yield value
