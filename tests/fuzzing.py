"""A seeded mutator for fuzz tests: real inputs, damaged the ways real files get damaged.

Structural mutations change a parsed JSON/YAML value (a field of another type, a key
dropped or added, a list emptied or repeated, very deep nesting, a huge integer, a lone
surrogate, text with newlines and Markdown); byte mutations damage the serialised text
(cut short, a byte flipped or inserted, invalid UTF-8, a chunk repeated). The same seed
gives the same inputs, so a failure is reproduced by its seed and index.

`within(seconds)` bounds one input: a hang is reported as a failure of that input, not
as a test that never ends.
"""

from __future__ import annotations

import csv
import datetime
import io
import json
import random
import signal
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import yaml

ODD_VALUES: list[Any] = [
    None, True, 0, -1, 1.5, float("nan"), 10**30, 10**400, datetime.date(2024, 1, 1), "", "x",
    "hello", "\ud800",
    "line one\n## planted heading\n- item", "a|b`c*d<script>", "${", "${UNSET_VAR}",
    "{{ nope }}", "../../etc/passwd", "a/../b", [], [1, "two", None], {}, {"k": "v"},
    {"type": ["user"]}, ["2024"], "9" * 5000, "é" * 300,
]
"""Values real files get wrong: every JSON type, edge numbers (an integer past a float's
range), a date (unquoted in YAML), hostile text."""


class Mutator:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)

    def value(self) -> Any:
        choice = self.random.random()
        if choice < 0.08:
            deep: Any = []
            for _ in range(self.random.choice([50, 200, 500])):
                deep = [deep]
            return deep
        return self.random.choice(ODD_VALUES)

    def mutate(self, data: Any, rounds: int = 1) -> Any:
        """`data` (a parsed JSON/YAML value) with `rounds` structural changes."""
        for _ in range(rounds):
            data = self._mutate_somewhere(data)
        return data

    def _mutate_somewhere(self, data: Any) -> Any:
        paths = list(_paths(data))
        path = self.random.choice(paths)
        return _replace(data, path, self._mutate_node(_get(data, path)))

    def _mutate_node(self, node: Any) -> Any:
        roll = self.random.random()
        if isinstance(node, dict) and node and roll < 0.3:
            node = dict(node)
            key = self.random.choice(list(node))
            if self.random.random() < 0.5:
                del node[key]
            else:
                node[self.random.choice(["type", "message", "data", "id", "role", "content",
                                         str(key) + "_x"])] = self.value()
            return node
        if isinstance(node, list) and node and roll < 0.3:
            node = list(node)
            if self.random.random() < 0.5:
                node.append(self.random.choice(node))
            else:
                node.pop(self.random.randrange(len(node)))
            return node
        return self.value()

    def damage(self, text: bytes) -> bytes:
        """`text` with one byte-level change."""
        if not text:
            return b"\xff"
        at = self.random.randrange(len(text))
        kind = self.random.randrange(6)
        if kind == 5:  # nesting deeper than any parser's recursion
            return text[:at] + b"[" * 5000 + b"]" * 5000 + text[at:]
        if kind == 0:
            return text[:at]
        if kind == 1:
            return text[:at] + bytes([self.random.randrange(256)]) + text[at + 1:]
        if kind == 2:
            return text[:at] + self.random.choice([b"\xff\xfe", b"\xc3", b"\x00", b'"', b"{",
                                                   b"\n", b"\\u", b"\x07", b" !!int x",
                                                   b" !!python/name:x "]) + text[at:]
        if kind == 3:
            end = min(len(text), at + self.random.randrange(1, 200))
            return text[:end] + text[at:end] * self.random.randrange(1, 4) + text[end:]
        return text[:at] + text[at + self.random.randrange(1, 50):]


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data[:50]):
            yield from _paths(value, (*prefix, index))


def _get(data: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        data = data[part]
    return data


def _replace(data: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(data, dict):
        return {**data, head: _replace(data[head], rest, new)}
    copy = list(data)
    copy[head] = _replace(data[head], rest, new)
    return copy


def dump_json(value: Any) -> str:
    """JSON text of `value`, lone surrogates and NaN included (as real files may hold)."""
    return json.dumps(value, ensure_ascii=True, allow_nan=True, default=str)


class Hang(Exception):
    """One input took longer than its time budget."""


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Raise `Hang` in this (main) thread if the block runs longer than `seconds`."""
    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no result within {seconds:g}s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def describe_failure(exc: BaseException) -> str:
    """The exception and where in assay it was raised, for a fuzz test's failure list."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/assay/" in f.filename]
    where = f" at {frames[-1].filename.split('/assay/')[-1]}:{frames[-1].lineno}" if frames else ""
    return f"{type(exc).__name__}: {str(exc)[:200]}{where}"


@dataclass(frozen=True)
class Ended:
    """How one fuzz input ended: with a result, refused clearly, or failed (and why)."""

    result: Any = None
    refused: Exception | None = None
    """The clear error the input was refused with."""
    failure: str | None = None


def run_input(refused: type[Exception], work: Callable[..., Any], *args: Any,
              seconds: float = 10) -> Ended:
    """`work(*args)` on one input within `seconds`: raising `refused` is the clear error a
    user should get; a hang or any other exception is a failure, described."""
    try:
        with within(seconds):
            return Ended(result=work(*args))
    except refused as exc:
        return Ended(refused=exc)
    except Hang as exc:
        return Ended(failure=str(exc))
    except Exception as exc:  # noqa: BLE001 - whatever else escapes is what a fuzz test finds
        return Ended(failure=describe_failure(exc))


@dataclass
class Tally:
    """What a fuzz test's inputs came to: each way an input ended, counted, and each failure
    described with its input, so one assertion shows the first of them."""

    inputs: int
    accepted: str
    """What an input that gave a result is counted as ("loaded", "measured", ...)."""
    refused: str = "clear error"
    """What an input refused with the clear error is counted as."""
    failures: list[str] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)

    def record(self, label: str, ended: Ended) -> bool:
        """Count how input `label` ended; True when it gave a result (to check further)."""
        if ended.failure:
            self.failures.append(f"{label}: {ended.failure}")
            return False
        self.outcomes[self.refused if ended.refused is not None else self.accepted] += 1
        return ended.refused is None

    def fail(self, label: str, why: str) -> None:
        """A failure found by checking an input's result or its error."""
        self.failures.append(f"{label}: {why}")

    def check(self, more_than: Mapping[str, int], *, shown: int = 20) -> None:
        """No input failed, and each outcome in `more_than` came up more often than given (so
        the inputs reached both sides, not only one)."""
        assert not self.failures, (f"{len(self.failures)} of {self.inputs} inputs failed:\n"
                                   + "\n".join(self.failures[:shown]))
        short = {name: self.outcomes[name] for name, floor in more_than.items()
                 if self.outcomes[name] <= floor}
        assert not short, f"too few {short} (wanted more than {dict(more_than)})"


def records_text(records: list[Any], form: str) -> bytes:
    """`records` written as a file of the form `form` (jsonl, json, yaml or csv), damaged
    values and all: a CSV cell holds a value that is not text as JSON."""
    if form == "csv":
        out = io.StringIO()
        keys = sorted({k for r in records if isinstance(r, dict) for k in r}) or ["id"]
        writer = csv.DictWriter(out, fieldnames=keys)
        writer.writeheader()
        for record in records:
            if isinstance(record, dict):
                writer.writerow({k: v if isinstance(v, str) else dump_json(v)
                                 for k, v in record.items()})
        return out.getvalue().encode("utf-8", errors="surrogatepass")
    if form == "json":
        return dump_json(records).encode()
    if form == "yaml":
        return yaml.safe_dump(records, allow_unicode=False).encode()
    return "".join(dump_json(r) + "\n" for r in records).encode()
