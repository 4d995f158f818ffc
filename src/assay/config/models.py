"""The config file, as pydantic models. Field docstrings become the JSON Schema.

The `target`, `scorers`, `providers`, `mcp_servers` and `packs` sections are
kept as plain mappings here and validated by the model their kind registers
(see `loading.py`), so adding a kind never means editing this file.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from assay.case import CASE_FIELDS
from assay.config.bounds import MAX_CONCURRENCY, MAX_COUNT, MAX_EPOCHS, MAX_SECONDS
from assay.config.calibration import CalibrationSpec
from assay.config.config_model import ConfigModel
from assay.config.temperature import Temperature
from assay.config.yaml_source import MAX_INT_DIGITS


def name_problem(name: str) -> str | None:
    """What is wrong with a condition's name (it names files, rows and report columns)."""
    if not name.strip():
        return "is empty"
    if name != name.strip():
        return "starts or ends with a space"
    if name in (".", "..") or any(c in name for c in "/\\") or not name.isprintable():
        return "may not be '.' or '..' or hold a slash, a backslash or a control character"
    if len(name) > 100:
        return "is longer than 100 characters"
    return None


MAX_INT = 10**MAX_INT_DIGITS - 1
"""The largest integer a config file may hold (see `yaml_source.MAX_INT_DIGITS`): a bound the
schema gives must be one the file can be written with."""


URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
"""How a URL starts (`https://`, `s3://`): a Windows path (`C:\\data`) does not."""


def _or_null(schema: dict[str, Any], key: str) -> None:
    """Let `schema[key]` be null too, where the loader reads a key given no value as `{}`
    (a condition written `baseline:` alone)."""
    schema[key] = {"anyOf": [schema[key], {"type": "null"}]}


def _or_path(schema: dict[str, Any]) -> None:
    """Let the dataset be written as its file's path alone."""
    mapping = {key: value for key, value in schema.items() if key not in ("description", "title")}
    for key in mapping:
        del schema[key]
    schema["anyOf"] = [mapping, {"type": "string", "minLength": 1}]


class DatasetConfig(ConfigModel):
    path: str | None = None
    """The dataset file, relative to the config file: JSONL (default), JSON array, YAML, CSV
    (or `.tsv`; cells separated by commas, or by `;`, tabs or `|` as its header shows) or
    Parquet (the `parquet` extra)."""

    hf: str | None = None
    """A Hugging Face dataset instead of a file (the `hf` extra): a Hub name such as
    `rajpurkar/squad`, or a folder written by `save_to_disk` or holding data files."""

    split: str | None = None
    """The Hugging Face split to read (`train`, `test`, ...); needed when there are several."""

    revision: str | None = None
    """The Hugging Face revision (a branch, tag or commit); recorded with the run."""

    subset: str | None = None
    """The Hugging Face configuration (subset) name, for datasets that have several."""

    format: Literal["auto", "jsonl", "json", "yaml", "csv", "parquet"] = "auto"
    """File format; `auto` decides by extension."""

    fields: dict[str, str] = Field(default_factory=dict)
    """Map Case fields to the file's keys, e.g. `{input: question, expected: ground_truth}`.
    Known formats (Knowledge Packs questions, k-eval, agent-suite cases) need no mapping."""

    sample: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    """Evaluate a seeded, stable sample of this many cases (see also `run.sample`)."""

    tags: list[str] = Field(default_factory=list)
    """Only cases carrying at least one of these tags."""

    @field_validator("fields")
    @classmethod
    def _case_fields(cls, fields: dict[str, str]) -> dict[str, str]:
        """A name that is no Case field (`expeted: answer`) was read and dropped unsaid: the
        cases had no expected answer, and the key's values went nowhere."""
        for name in fields:
            if name not in CASE_FIELDS:
                hint = difflib.get_close_matches(name, CASE_FIELDS, n=1)
                raise PydanticCustomError(
                    "case_field", "'{name}' is no field of a case{hint} (fields: {known})",
                    {"name": name, "hint": f"; did you mean '{hint[0]}'?" if hint else "",
                     "known": ", ".join(CASE_FIELDS)})
        return fields

    @field_validator("path")
    @classmethod
    def _a_file_here(cls, path: str | None) -> str | None:
        if path is not None and not path.strip():
            raise PydanticCustomError("dataset_empty", "the dataset's path is empty")
        if path is not None and URL.match(path):  # else a path "https:/host/x" not found
            raise PydanticCustomError(
                "dataset_url", "a URL, and a dataset is read from a file on this machine: "
                "download it first, or name a Hugging Face dataset with `hf:`")
        return path

    @model_validator(mode="after")
    def _one_source(self) -> DatasetConfig:
        if (self.path is None) == (self.hf is None):
            raise ValueError("give the dataset either `path:` (a file) or `hf:` "
                             "(a Hugging Face dataset)")
        hub_keys = [key for key in ("split", "revision", "subset")
                    if getattr(self, key) is not None]
        if self.path is not None and hub_keys:
            raise ValueError(f"`{hub_keys[0]}:` belongs to a Hugging Face dataset (`hf:`)")
        return self


class RunSettings(ConfigModel):
    concurrency: int = Field(default=8, ge=1, le=MAX_CONCURRENCY)
    """Trials in flight at once."""

    epochs: int = Field(default=1, ge=1, le=MAX_EPOCHS)
    """How many times every case runs under every condition."""

    sample: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    """Evaluate a seeded, stable sample of this many cases."""

    seed: int = Field(default=0, ge=-MAX_INT, le=MAX_INT)
    """Seed for sampling and anything else random in the run."""

    timeout: float | None = Field(default=300.0, gt=0, le=MAX_SECONDS)
    """Seconds a target may take on one trial before it is recorded as a timeout error;
    the trial's scorers get as long again. `null`: no deadline."""

    max_output_bytes: int = Field(default=1_000_000, ge=1_000, le=1 << 30)
    """The longest answer kept, in bytes of UTF-8: a longer one is cut, and the trial's
    output metadata says so (`truncated`). A command or HTTP body is read no further. The
    answer's metadata, tool calls and transcript are each kept to about as much
    (`truncated_parts`)."""

    max_errors: int | None = Field(default=None, ge=1, le=MAX_COUNT)
    """Stop the run (exit 3) once this many trials have ended in an error."""

    max_consecutive_errors: int | None = Field(default=20, ge=1, le=MAX_COUNT)
    """Stop the run (exit 3) once this many trials in a row have failed: the provider is
    unreachable or the target is down, and going on would only record errors. `null` never stops."""

    max_cost_usd: float | None = Field(default=None, gt=0, le=1e9)
    """Stop the run once its LLM spending reaches this many US dollars: no call is made
    after that (the calls made just before can take it past by their own cost)."""

    batch_size: int = Field(default=200, ge=1, le=100_000)
    """Finished trials committed to the store per transaction."""


PACE_SETTINGS = frozenset({"concurrency", "batch_size", "max_errors", "max_consecutive_errors",
                           "max_cost_usd"})
"""The `run:` settings that decide how fast a run goes and when it stops, never what a trial
answers or scores: the config hash leaves them out, so a stopped run is resumed with more or
fewer trials in flight, or a raised error or cost budget. `timeout` and `max_output_bytes`
are not among them: they decide whether an answer is cut, so a resume that changed them
would mix trials held to two limits."""


class ConditionConfig(ConfigModel):
    """A named variant of the target. Any key the target accepts (model, system,
    args, env, command, ...) may be given here to override it for this condition."""

    model_config = ConfigDict(extra="allow")

    description: str | None = None
    """What this condition changes, for reports."""

    mcp_servers: list[str] = Field(default_factory=list)
    """Names from the top-level `mcp_servers:` (or `pack:NAME`) the agent gets under this condition."""

    context: dict[str, Any] | None = None
    """Retrieved context to inject, e.g. `{pack: go-docs, top_k: 5}`."""

    require_mcp_tool_use: bool = False
    """A trial that calls no MCP tool is retried, then recorded as breaking this requirement."""

    require_mcp_tool_success: bool = False
    """A trial whose MCP tool calls all failed is retried, then recorded as breaking this requirement."""

    target: dict[str, Any] = Field(default_factory=dict)
    """Target overrides for this condition (same as giving the keys directly)."""

    def overrides(self) -> dict[str, Any]:
        """Target keys this condition overrides (explicit `target:` plus extra keys)."""
        extra = dict(self.model_extra or {})
        system_prompt = extra.pop("system_prompt", None)
        if system_prompt is not None and "system" not in extra:
            extra["system"] = system_prompt  # k-eval's name for it
        return {**self.target, **extra}


class JudgeDefaults(ConfigModel):
    model: str | None = None
    """Default model for judged scorers, e.g. `openai/gpt-4.1`."""

    temperature: Temperature = 0.0
    """Judges run at temperature 0 unless told otherwise (0 to 2, Claude 0 to 1)."""

    require_calibration: bool = False
    """Refuse to run (exit 2) a judged scorer whose judge model, prompt or rubric has no
    passing calibration (`assay calibrate`), saying what changed since the last one."""


class GateConfig(ConfigModel):
    """Fail when this run misses a threshold: a pass rate, a mean or an error rate."""

    scorer: str
    """The scorer (by name) the gate reads."""

    condition: str | None = None
    """The condition it applies to; every condition when omitted."""

    min_pass_rate: float | None = Field(default=None, ge=0, le=1)
    """Fail when the share of passed trials is below this (0..1)."""

    min_mean: float | None = Field(default=None, allow_inf_nan=False)
    """Fail when the mean score is below this (on the scorer's own scale)."""

    max_error_rate: float | None = Field(default=None, ge=0, le=1)
    """Fail when more than this share of trials ended in an error for this scorer."""

    @model_validator(mode="after")
    def _one_threshold(self) -> GateConfig:
        if self.min_pass_rate is None and self.min_mean is None and self.max_error_rate is None:
            raise ValueError("a gate needs min_pass_rate, min_mean or max_error_rate")
        return self


class RegressionSpec(ConfigModel):
    scorer: str | None = None
    """The scorer (by name) to watch; every scorer when omitted."""

    condition: str | None = None
    """The condition to watch; every condition when omitted."""

    max_drop_pp: float = Field(default=0.0, ge=0)
    """Largest tolerated drop in percentage points: of the pass rate, or of the mean as a
    share of the scorer's scale when it gives no verdicts."""

    significant: bool = True
    """Only fail when the drop is also statistically significant (paired test, Holm-adjusted)."""

    baseline: str | None = None
    """Run to compare with (id, id prefix or `latest~N`, counted with this run as `latest`:
    `latest~1` is the run before it); the previous completed run of the experiment when
    omitted."""


class RegressionGateConfig(ConfigModel):
    """Fail when a metric dropped against the previous run (or a named baseline run)."""

    regression: RegressionSpec
    """What counts as a regression."""

    @property
    def scorer(self) -> str | None:
        return self.regression.scorer

    @property
    def condition(self) -> str | None:
        return self.regression.condition


def _gate_kind(value: Any) -> str:
    if isinstance(value, RegressionGateConfig) or (isinstance(value, dict)
                                                   and "regression" in value):
        return "gate[regression]"
    return "gate[threshold]"


GateItem = Annotated[
    Annotated[GateConfig, Tag("gate[threshold]")]
    | Annotated[RegressionGateConfig, Tag("gate[regression]")],
    Discriminator(_gate_kind)]
"""A gate: a threshold on this run's results, or a regression against an earlier run."""


class EvalConfig(ConfigModel):
    name: str = Field(min_length=1, max_length=200)
    """The experiment: history and compare-to-previous group runs by it."""

    description: str | None = None
    """What this eval is for."""

    dataset: DatasetConfig = Field(json_schema_extra=lambda schema: _or_path(schema))
    """The golden cases: `{path: questions.jsonl, ...}`, or the file's path alone."""

    target: dict[str, Any]
    """What is under test: `type` is python, command, model, agent or http; other keys depend on it."""

    conditions: dict[str, ConditionConfig] = Field(
        default_factory=lambda: {"default": ConditionConfig()}, min_length=1,
        json_schema_extra=lambda schema: _or_null(schema, "additionalProperties"))
    """Named variants of the target; every case runs under every condition."""

    scorers: list[dict[str, Any]] = Field(min_length=1)
    """How answers are scored; each item has a `type` and that scorer's keys."""

    judge: JudgeDefaults = Field(default_factory=JudgeDefaults)
    """Defaults for LLM-judged scorers."""

    providers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Named LLM endpoints (kind, base_url, api_key_env, headers, max_connections, prices)."""

    mcp_servers: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """MCP servers, declared once and referenced by name from conditions."""

    packs: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Knowledge packs: folders of documents indexed for retrieval."""

    run: RunSettings = Field(default_factory=RunSettings)
    """How the run is scheduled."""

    gates: list[GateItem] = Field(default_factory=list)
    """Thresholds and regression checks that decide the exit code (1 when one fails)."""

    calibration: CalibrationSpec | None = None
    """People's labels to calibrate the judge against (`assay calibrate CONFIG`)."""

    @field_validator("dataset", mode="before")
    @classmethod
    def _path_alone(cls, dataset: Any) -> Any:
        """`dataset: questions.jsonl` is `dataset: {path: questions.jsonl}`."""
        if isinstance(dataset, str):
            return {"path": dataset}
        if dataset is not None and not isinstance(dataset, dict | DatasetConfig):
            raise PydanticCustomError(
                "dataset_type", "a dataset is a file's path, or a mapping with `path:` or "
                "`hf:`")
        return dataset

    @field_validator("conditions")
    @classmethod
    def _condition_names(cls, conditions: dict[str, ConditionConfig]
                         ) -> dict[str, ConditionConfig]:
        for name in conditions:
            problem = name_problem(name)
            if problem:
                raise ValueError(f"condition name {name!r} {problem}")
        return conditions

    @model_validator(mode="before")
    @classmethod
    def _conditions_may_be_null(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("conditions"), dict):
            data = dict(data)
            data["conditions"] = {k: (v if v is not None else {})
                                  for k, v in data["conditions"].items()}
        return data
