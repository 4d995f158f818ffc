"""`assay validate` locates every scorer problem: file, line and field, all at once, exit 2.

Syntax errors in templates are found when the config is read. A misspelt
variable depends on the dataset, so validate renders each scorer's templates
for the dataset's first case. Problems found while building a scorer (an
import, a schema file, a judge model) are located at its entry too.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .evalproject import assay


def project(root: Path, scorers: str, *, judge: bool = True) -> Path:
    """A config whose `scorers:` list is `scorers` (YAML, indented by two), from line 8 on."""
    (root / "agent.py").write_text("def answer(case):\n    return case.expected\n")
    (root / "questions.jsonl").write_text("".join(
        json.dumps({"id": f"q{i}", "input": f"question {i}", "expected": f"answer {i}",
                    "topic": "maths"}) + "\n" for i in range(3)))
    head = textwrap.dedent(f"""\
        name: templates
        dataset: {{path: questions.jsonl}}
        target: {{type: python, function: "agent.py:answer"}}
        {"judge: {model: openai/judge-model}" if judge else "judge: {}"}
        run: {{epochs: 1}}
        # the scorers start on line 8
        scorers:
        """)
    config = root / "assay.yaml"
    config.write_text(head + textwrap.indent(textwrap.dedent(scorers), "  "))
    assert config.read_text().splitlines()[7].startswith("  - type:")
    return config


def problem_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.startswith("  ")]


def test_a_template_syntax_error_names_file_line_and_field(capsys, tmp_path):
    config = project(tmp_path, """\
        - type: exact_match
        - type: contains
          value: "{{ expected }"
        - type: judge_score
          prompt: |
            Question: {{ input }}
            {% if %}
        """)
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    first, second = problem_lines(text)
    assert first.startswith(f"{config}:10 [scorers.1.value]: ")
    assert "template syntax error on line 1: unexpected '}'" in first
    assert second.startswith(f"{config}:12 [scorers.2.prompt]: ")
    assert "template syntax error on line 2" in second
    assert "Traceback" not in text


def test_a_list_of_values_names_the_item_with_the_error(capsys, tmp_path):
    config = project(tmp_path, """\
        - type: contains
          value:
            - "{{ expected }}"
            - "{{ topic }"
        """)
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    (problem,) = problem_lines(text)
    assert problem.startswith(f"{config}:9 [scorers.0.value]: ")
    assert "item 1: template syntax error" in problem


def test_an_unknown_variable_is_found_by_rendering_the_first_case(capsys, tmp_path):
    config = project(tmp_path, """\
        - type: contains
          value: "{{ expcted }}"
        - type: judge
          prompt: "Is {{ output }} right for {{ inptu }}? Topic {{ topic }}."
          output: {type: number, min: 0, max: 1, threshold: 1}
        - type: exact_match
          value: ["{{ expected }}", "{{ metadata.topic }}", "{{ nope }}"]
        """)
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    value, prompt, item = problem_lines(text)
    assert value.startswith(f"{config}:9 [scorers.0.value]: ")
    assert "'expcted' is undefined; did you mean 'expected'?" in value
    assert "(rendered for case 'q0')" in value
    assert prompt.startswith(f"{config}:11 [scorers.1.prompt]: ")
    assert "'inptu' is undefined; did you mean 'input'?" in prompt
    assert item.startswith(f"{config}:14 [scorers.2.value.2]: ")
    assert "'nope' is undefined" in item


def test_templates_using_case_fields_dataset_columns_and_the_output_pass(capsys, tmp_path):
    config = project(tmp_path, """\
        - type: contains
          value: ["{{ expected }}", "{{ topic }}", "{{ metadata.topic }}"]
        - type: judge
          system: "You grade {{ topic }} answers."
          prompt: "Question {{ input }}; reference {{ expected }}; answer {{ output }}."
          output: {type: label, labels: [right, wrong], pass: [right]}
        """)
    code, text = assay(capsys, "validate", str(config))
    assert (code, text.startswith("ok ")) == (0, True), text


def test_problems_building_scorers_are_located_and_reported_together(capsys, tmp_path):
    config = project(tmp_path, """\
        - type: judge_score
        - type: python
          function: "no_such_module:grade"
        - type: json_schema
          schema_file: missing.json
        """, judge=False)
    code, text = assay(capsys, "validate", str(config))
    assert code == 2
    model, function, schema = problem_lines(text)
    assert model.startswith(f"{config}:8 [scorers.0.model]: ")
    assert "needs a judge model" in model
    assert function.startswith(f"{config}:10 [scorers.1.function]: ")
    assert "No module named 'no_such_module'" in function
    assert schema.startswith(f"{config}:12 [scorers.2.schema_file]: ")
    assert "cannot read schema_file" in schema


@pytest.mark.parametrize("command", ["run", "validate"])
def test_run_reports_a_scorer_it_cannot_build_the_same_way(capsys, tmp_path, command):
    config = project(tmp_path, """\
        - type: python
          function: "grading.py:missing"
        """)
    (tmp_path / "grading.py").write_text("VALUE = 1\n")
    args = ["--store", str(tmp_path / "assay.db")] if command == "run" else []
    code, text = assay(capsys, command, *args, str(config))
    assert code == 2
    (problem,) = problem_lines(text)
    assert problem.startswith(f"{config}:9 [scorers.0.function]: ")
    assert "has no 'missing'" in problem


def test_a_valid_config_is_summed_up_in_counts_read_as_words(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = project(tmp_path, "- type: exact_match\n", judge=False)
    code, out = assay(capsys, "validate", str(config))
    assert code == 0, out
    assert "3 cases (" in out and "1 condition, 1 scorer, 3 trials" in out
