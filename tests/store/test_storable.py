"""Values made storable: what no database can hold is replaced, and each change counted."""

from __future__ import annotations

import orjson

from assay.store.storable import MAX_JSON_DEPTH, REPLACEMENT, Replacements, Storable


def test_a_lone_surrogate_in_text_is_replaced_and_counted_under_its_field() -> None:
    notes = Replacements()
    text = Storable(nul_allowed=True).text("cut \ud83d and \udc00", "output_text", notes)
    assert text == f"cut {REPLACEMENT} and {REPLACEMENT}"
    assert notes.by_field == {"output_text": {"lone_surrogates": 2}}


def test_nul_is_replaced_only_where_the_database_refuses_it() -> None:
    kept, replaced = Replacements(), Replacements()
    assert Storable(nul_allowed=True).text("a\x00b", "error", kept) == "a\x00b"
    assert Storable(nul_allowed=False).text("a\x00b\x00", "error", replaced) == \
        f"a{REPLACEMENT}b{REPLACEMENT}"
    assert not kept and replaced.by_field == {"error": {"nul_characters": 2}}


def test_valid_text_and_json_pass_unchanged_with_no_note() -> None:
    notes = Replacements()
    storable = Storable(nul_allowed=False)
    assert storable.text("naïve 🙂", "input", notes) == "naïve 🙂"
    assert orjson.loads(storable.json({"a": [1, "🙂", None]}, "input", notes)) == \
        {"a": [1, "🙂", None]}
    assert not notes


def test_json_keeps_nul_escaped_and_fixes_surrogates_in_keys_and_values() -> None:
    notes = Replacements()
    stored = Storable(nul_allowed=False).json(
        {"k\ud800": ["v\udfff", {"deep": "ok\x00"}]}, "details", notes)
    assert stored is not None and "\x00" not in stored  # JSON writes it as \u0000
    assert orjson.loads(stored) == {f"k{REPLACEMENT}": [f"v{REPLACEMENT}", {"deep": "ok\x00"}]}
    assert notes.by_field == {"details": {"lone_surrogates": 2}}


def test_integers_past_64_bits_and_nesting_too_deep_become_text() -> None:
    nested: list[object] = []
    value: list[object] = nested
    for _ in range(MAX_JSON_DEPTH + 50):
        inner: list[object] = []
        value.append(inner)
        value = inner
    notes = Replacements()
    stored = Storable(nul_allowed=True).json({"big": 2**70, "nested": nested}, "output", notes)
    assert stored is not None
    assert orjson.loads(stored)["big"] == str(2**70)
    assert notes.by_field == {"output": {"integers_as_text": 1, "nesting_as_text": 1}}
