"""`assay init`: a working starter eval in a directory."""

from __future__ import annotations

import shlex
from pathlib import Path

import click

from assay.cli.common import GIVEN_TEXT, GivenPath
from assay.wording import path_text

CONFIG = """\
# A starter eval. Run it with:  {run_it}
# Then point `target` at your own code (or a model) and grow cases.jsonl.
name: {name}

dataset:
  path: cases.jsonl

target:
  type: python
  function: agent:answer     # agent.py, function answer(case, condition, style=...)

conditions:
  terse: {{args: {{style: terse}}}}
  polite: {{args: {{style: polite}}}}

scorers:
  - type: contains
    value: "{{{{ expected }}}}"
  - type: token_f1
    threshold: 0.3

gates:
  - {{scorer: contains, min_pass_rate: 0.8}}
"""

CASES = """\
{"id": "capital-france", "input": "What is the capital of France?", "expected": "Paris", "tags": ["geography"]}
{"id": "capital-japan", "input": "What is the capital of Japan?", "expected": "Tokyo", "tags": ["geography"]}
{"id": "add", "input": "What is 2 + 2?", "expected": "4", "tags": ["arithmetic"]}
{"id": "author-hamlet", "input": "Who wrote Hamlet?", "expected": "Shakespeare", "tags": ["literature"]}
"""

AGENT = '''\
"""The code under test. Replace the body with a call to your app or agent."""

from assay import Case, Condition

FACTS = {
    "capital of france": "Paris",
    "capital of japan": "Tokyo",
    "2 + 2": "4",
    "hamlet": "William Shakespeare",
}


def answer(case: Case, condition: Condition, style: str = "terse") -> str:
    question = case.input_text.lower()
    fact = next((value for key, value in FACTS.items() if key in question), "I don't know")
    return fact if style == "terse" else f"Thanks for asking! The answer is {fact}."
'''


@click.command("init")
@click.argument("directory", default=".", type=GivenPath(file_okay=False))
@click.option("--name", type=GIVEN_TEXT,
              default=None, help="Experiment name (default: the directory's name).")
@click.option("--force", is_flag=True, help="Overwrite existing files.")
def command(directory: str, name: str | None, force: bool) -> None:
    """Write assay.yaml, cases.jsonl and agent.py into DIRECTORY (default: here)."""
    from assay.errors import UserError
    from assay.reports.atomic import ensure_writable_folder, write_text

    root = Path(directory)
    ensure_writable_folder(root, "DIRECTORY")
    experiment = name or root.resolve().name or "my-eval"
    config_path = root / "assay.yaml"
    run_it = f"assay run {shlex.quote(str(config_path))}"
    files = {
        config_path: CONFIG.format(name=yaml_scalar(experiment),
                                   run_it=" ".join(run_it.splitlines())),
        root / "cases.jsonl": CASES,
        root / "agent.py": AGENT,
    }
    folders = [str(p) for p in files if p.is_dir()]
    if folders:  # --force overwrites files; a folder in the way is not one to replace
        raise UserError(f"{', '.join(folders)}: a folder where assay init writes a file; "
                        "move it or choose another DIRECTORY")
    existing = [str(p) for p in files if p.exists()]
    if existing and not force:
        raise UserError(f"not overwriting {', '.join(existing)} (use --force)")
    for path, text in files.items():
        write_text(path, text)
        click.echo(f"wrote {path_text(path)}")
    click.echo(f"\nnext: {run_it}")


def yaml_scalar(text: str) -> str:
    """`text` as YAML that reads back as this same string: plain when it can be, else
    double-quoted (JSON's escapes are YAML's), so a name like `a: b`, `2024` or `null`
    stays a name."""
    import json

    import yaml

    from assay.yaml_core import CoreLoader

    try:
        if "\n" not in text and yaml.load(text, Loader=CoreLoader) == text:
            return text
    except yaml.YAMLError:
        pass
    return json.dumps(text, ensure_ascii=False)
