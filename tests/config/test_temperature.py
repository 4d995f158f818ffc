"""A temperature in a config, a target's or a judge's, is a finite number from 0 to 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.evalproject import assay

CONFIG = """\
name: t
dataset: {{path: cases.jsonl}}
target: {{type: {target}, model: openai/m{target_temperature}}}
conditions:
  hot: {{{condition_temperature}}}
judge:
  model: openai/j{judge_temperature}
scorers:
  - type: judge_score{scorer_temperature}
"""

PLACES = {
    "target_temperature": ("3", "target.temperature"),  # lines with the value in place
    "condition_temperature": ("5", "conditions.hot.temperature"),
    "judge_temperature": ("8", "judge.temperature"),
    "scorer_temperature": ("10", "scorers.0.temperature"),
}


def write_config(tmp_path: Path, target: str, place: str, value: str) -> Path:
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": "q", "expected": "x"}\n',
                                          encoding="utf-8")
    given = {name: "" for name in PLACES}
    given[place] = (f"temperature: {value}" if place == "condition_temperature"
                    else f", temperature: {value}" if place == "target_temperature"
                    else f"\n  temperature: {value}" if place == "judge_temperature"
                    else f"\n    temperature: {value}")
    path = tmp_path / "c.yaml"
    path.write_text(CONFIG.format(target=target, **given), encoding="utf-8")
    return path


@pytest.mark.parametrize("target", ["model", "agent"])
@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize(("value", "why"), [
    (".nan", "Input should be a finite number (got nan)"),
    (".inf", "Input should be a finite number (got inf)"),
    ("2.5", "Input should be less than or equal to 2 (got 2.5)"),
    ("-1", "Input should be greater than or equal to 0 (got -1)"),
])
def test_a_temperature_no_provider_takes_is_refused_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], target: str, place: str,
        value: str, why: str) -> None:
    """Regression: `judge.temperature: .nan` (or .inf, or 1e9, in a target, a condition or a
    scorer) was taken, `assay validate` said ok, and every call sent it."""
    config = write_config(tmp_path, target, place, value)
    line, field = PLACES[place]
    code, text = assay(capsys, "validate", str(config))
    assert code == 2, text
    assert f"{config}:{line} [{field}]: {why}" in text, text
    assert "Traceback" not in text


@pytest.mark.parametrize("place", list(PLACES))
def test_a_temperature_from_0_to_2_is_taken(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], place: str) -> None:
    for value in ("0", "2"):
        code, text = assay(capsys, "validate", str(write_config(tmp_path, "model", place, value)))
        assert code == 0, text
