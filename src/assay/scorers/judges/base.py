"""What every LLM judge shares: its model, its prompt, asking, re-asking and recording.

A judge kind supplies its judgement format, its instructions and its message
template; this module asks the judge model (with structured output where
the provider has it), retries a reply that holds no readable judgement a
bounded number of times, repeats the question `repeats` times and reduces
the judgements, and writes into the Score everything needed to trust or
distrust it later: the judge model, the prompt hash, the provider's system
fingerprint, token usage and cost, every judgement, and whether the judgements
disagreed across the pass line.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from pydantic import Field, field_validator

from assay.case import Case
from assay.config.temperature import Temperature
from assay.config.templates import (
    case_variables,
    render,
    template_hash,
    templates_compile,
    validate_template,
)
from assay.errors import AssayError
from assay.output import Output, Usage
from assay.providers.base import ChatRequest, ChatResponse, Provider
from assay.score import Score
from assay.scorers.base import Scorer, ScorerParams, param_error
from assay.scorers.judges.formats import ReplyFormat
from assay.scorers.judges.judgement import Judgement, Reduction, ReplyParseError, agreement
from assay.services import Services
from assay.wording import plural


class JudgeParams(ScorerParams):
    """Keys every LLM judge accepts."""

    model: str | None = None
    """Judge model as `provider/model`, e.g. `openai/gpt-4.1`; defaults to the config's
    `judge.model`."""

    temperature: Temperature | None = None
    """Sampling temperature (0 to 2, Claude 0 to 1); else the config's `judge.temperature` (0)."""

    max_tokens: int = Field(default=1024, ge=16)
    """Longest reply the judge may give."""

    repeats: int = Field(default=1, ge=1, le=25)
    """Ask the judge this many times and reduce the judgements. Each ask is cached under its
    own key, so the 2nd and later asks are real re-asks, yet a resumed run pays for none."""

    reduce: Reduction | None = None
    """How repeated judgements become one: mean, median or majority (the most common
    judgement; a tie goes to the failing side). Default: mean for scores, majority for
    labels and pass/fail judgements (which reduce by majority only)."""

    parse_retries: int = Field(default=2, ge=0, le=5)
    """Re-asks after a reply with no readable judgement, before it is recorded as a judge error."""

    structured_output: bool = True
    """Ask the provider for JSON matching the judgement's schema. Turn off for servers that
    reject a response format; replies are then read tolerantly."""

    system: str | None = None
    """Replace the judge's instructions (the reply format is still appended)."""

    prompt: str | None = None
    """Replace the judge's message template (sandboxed; case fields plus `output`)."""

    template_fields: ClassVar[tuple[str, ...]] = ("system", "prompt")

    _templates_compile = field_validator("system", "prompt")(templates_compile)


@dataclass(slots=True)
class Ask:
    """One asking of the judge, with the replies it took to get a judgement (or not)."""

    judgement: Judgement | None = None
    error: str | None = None
    replies: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    fingerprints: list[str] = field(default_factory=list)
    cached: bool = False

    def record(self) -> dict[str, Any]:
        """This asking as stored in the Score's details."""
        out: dict[str, Any] = self.judgement.to_dict() if self.judgement else {"error": self.error}
        if self.judgement is None:
            out["raw_replies"] = list(self.replies)
        out["attempts"] = len(self.replies)
        out["cached"] = self.cached
        if self.fingerprints:
            out["system_fingerprint"] = self.fingerprints[-1]
        out["usage"] = self.usage.to_dict()
        return out

    def failure(self) -> str:
        """Why this asking gave no judgement, with how many replies it took."""
        attempts = len(self.replies)
        if not attempts:
            return str(self.error)
        return f"{self.error} (after {plural(attempts, 'attempt')})"


class JudgeScorer(Scorer):
    """Base of the judge kinds. Subclasses build `reply_format`, instructions and template."""

    Params: ClassVar[type[ScorerParams]] = JudgeParams
    params: JudgeParams
    default_system: ClassVar[str] = ""
    default_prompt: ClassVar[str] = ""

    def __init__(self, params: JudgeParams, services: Services) -> None:
        super().__init__(params, services)
        self.reply_format = self.build_format()
        self.reduction = self.reply_format.reduction(params.reduce)
        self.model = judge_model(params.model, services, scorer_name=self.name)
        warn_if_self_grading(self.name, self.model, services)  # validate says it, as run does
        self.temperature = _judge_temperature(params.temperature, services)
        self.system = self.instructions()
        self.reply_instructions = self.reply_format.instructions()
        self.template = params.prompt or self.default_prompt
        validate_template(self.system)
        validate_template(self.template)
        self.prompt_hash = template_hash(
            f"{self.system}\n\x1e\n{self.reply_instructions}\n\x1e\n{self.template}")
        self.response_schema = (self.reply_format.response_schema()
                                if params.structured_output else None)
        self.rubric_version = rubric_version(params)
        self.cache_namespace: str | None = None
        """Set to judge again for real (`assay rejudge`): every ask gets a fresh cache tag."""
        self._provider: Provider | None = None
        self._model_name = ""

    def build_format(self) -> ReplyFormat:
        raise NotImplementedError

    def instructions(self) -> str:
        """The judge's system text before the reply format; `system:` replaces it."""
        return self.params.system or self.default_system

    @property
    def compares_with_reference(self) -> bool:
        """A judge kind that needs a field of the case says why in its `reference_problem`."""
        return type(self).reference_problem is not JudgeScorer.reference_problem

    def reference_problem(self, case: Case) -> str | None:
        """Why this judge cannot grade `case` (a field it needs is absent), or None."""
        return None

    def identity(self) -> dict[str, Any]:
        return {"type": self.params.type, "model": self.model, "prompt_hash": self.prompt_hash,
                "rubric_version": self.rubric_version}

    def template_variables(self, case: Case) -> dict[str, Any]:
        return case_variables(case, output="")

    async def setup(self) -> None:
        if self._provider is not None:
            return
        from assay.providers.pool import get_pool

        self._provider, self._model_name = get_pool(self.services).resolve(self.model)

    async def score(self, case: Case, output: Output) -> Score:
        problem = self.reference_problem(case)
        if problem is not None:
            return Score.failure(problem, details=self._base_details())
        await self.setup()
        variables = case_variables(case, output=output.text)
        request = ChatRequest(
            model=self._model_name,
            messages=[{"role": "user", "content": render(self.template, variables)}],
            system=render(self.system, variables) + "\n\n" + self.reply_instructions,
            temperature=self.temperature,
            max_tokens=self.params.max_tokens,
            response_schema=self.response_schema,
        )
        repeats = self.params.repeats
        asks = await asyncio.gather(*(
            self._ask(request, repeat=index + 1) for index in range(repeats)))
        return self._score(list(asks))

    async def _ask(self, request: ChatRequest, *, repeat: int) -> Ask:
        """Ask once; re-ask while the reply holds no judgement.

        Every repeat and every retry carries its own cache tag: it is never
        answered from another's cached reply (so it is a real re-ask), yet
        it is cached itself, so a resumed or repeated run pays for none of
        them twice. `--no-cache` makes them all fresh.
        """
        ask = Ask()
        for attempt in range(1 + self.params.parse_retries):
            tagged = replace(request, cache_tag=ask_tag(repeat, attempt, self.cache_namespace))
            try:
                response = await self._provider.chat(  # type: ignore[union-attr]
                    tagged, use_cache=self.services.use_cache)
            except AssayError:
                raise  # a run-stopping condition (bad key, budget spent) is not a judgement
            except Exception as exc:  # noqa: BLE001 - the provider already retried
                ask.error = f"judge call failed: {type(exc).__name__}: {exc}"
                return ask
            _account(ask, response)
            reply = reply_text(response)
            ask.replies.append(reply)
            if str(response.stop_reason).lower() in CUT_AT_MAX_TOKENS:  # any part may be missing
                ask.error = (f"unreadable judge reply: cut at max_tokens ({request.max_tokens}); "
                             "raise the scorer's max_tokens")
                continue
            try:
                ask.judgement = self.reply_format.parse(reply)
                ask.error = None
                return ask
            except ReplyParseError as exc:
                ask.error = f"unreadable judge reply: {exc}"
        return ask

    def _score(self, asks: list[Ask]) -> Score:
        details = self._base_details()
        usage = Usage()
        for ask in asks:
            usage.add(ask.usage)
        details["usage"] = usage.to_dict()
        fingerprints = sorted({fp for ask in asks for fp in ask.fingerprints})
        if fingerprints:
            details["system_fingerprint"] = (fingerprints[0] if len(fingerprints) == 1
                                             else fingerprints)
        failed = [ask for ask in asks if ask.judgement is None]
        if len(asks) > 1 or failed:
            details["judgements"] = [ask.record() for ask in asks]
        if failed:
            details["judge_errors"] = len(failed)
            return Score.failure(failed[0].failure(), details=details, usage=usage)
        judgements = [ask.judgement for ask in asks if ask.judgement is not None]
        if len(judgements) == 1:
            final = judgements[0]
            details["cached"] = asks[0].cached
        else:
            final = self.reply_format.reduce(judgements, self.reduction)
            details.update(repeats=len(judgements), reduce=self.reduction,
                           **agreement(judgements))
        record = final.to_dict()
        for key in ("passed", "value", "reason"):
            record.pop(key, None)
        details.update(record)
        return Score(value=final.value, scale=self.reply_format.scale, passed=final.passed,
                     reason=final.reason, details=details, usage=usage)

    def _base_details(self) -> dict[str, Any]:
        return {"judge_model": self.model, "prompt_hash": self.prompt_hash,
                "rubric_version": self.rubric_version}


def ask_tag(repeat: int, attempt: int, namespace: str | None = None) -> str | None:
    """The cache tag of one asking: none for the first ask, `repeat-2`, `repeat-1/retry-1`...;
    under a namespace (a rejudge) every ask, the first too, is tagged `NAMESPACE/repeat-1`."""
    if repeat == 1 and attempt == 0 and namespace is None:
        return None
    tag = f"repeat-{repeat}" + (f"/retry-{attempt}" if attempt else "")
    return tag if namespace is None else f"{namespace}/{tag}"


VERSION_EXCLUDED = frozenset({"type", "name", "model", "temperature", "max_tokens",
                              "parse_retries", "structured_output", "system", "prompt",
                              "repeats"})
"""Params that do not decide what a verdict means (the model and prompt are hashed apart)."""


def rubric_version(params: JudgeParams) -> str:
    """A short hash of what turns a reply into a verdict: thresholds, metrics, the pass rule,
    the output spec, the reduction. Changing a pass line changes it; rewording does not."""
    import hashlib

    shaping = params.model_dump(mode="json", exclude=set(VERSION_EXCLUDED))
    text = json.dumps(shaping, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


CUT_AT_MAX_TOKENS = frozenset({"length", "max_tokens"})
"""Stop reasons (OpenAI, Anthropic, Gemini's `MAX_TOKENS` lowered) of a reply cut short."""


def reply_text(response: ChatResponse) -> str:
    """The judge's reply as text; a structured reply given as a tool call becomes its JSON."""
    if response.text.strip() or not response.tool_calls:
        return response.text
    return json.dumps(response.tool_calls[0].arguments)


def _account(ask: Ask, response: ChatResponse) -> None:
    usage = response.usage
    ask.usage.add(Usage(input_tokens=usage.input_tokens, output_tokens=usage.output_tokens,
                        cost_usd=usage.cost_usd, calls=1, cache_hits=int(response.cached),
                        shared_cost_usd=usage.shared_cost_usd))
    ask.cached = response.cached
    if response.system_fingerprint:
        ask.fingerprints.append(response.system_fingerprint)


def _setting(obj: Any, name: str) -> Any:
    """`obj.name` or `obj[name]`, None when absent: the config may be a model or a mapping."""
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(name)
    return getattr(obj, name, None)


def judge_model(explicit: str | None, services: Services, *, scorer_name: str) -> str:
    """The judge's model: its own `model:`, else the config's `judge.model`, else an error."""
    model = explicit or _setting(_setting(services.config, "judge"), "model")
    if not model:
        raise param_error("model", f"scorer '{scorer_name}' needs a judge model: give it "
                          "`model:` or set `judge: {model: provider/model}` in the config")
    return str(model)


def _judge_temperature(explicit: float | None, services: Services) -> float:
    if explicit is not None:
        return explicit
    configured = _setting(_setting(services.config, "judge"), "temperature")
    return float(configured) if configured is not None else 0.0


def target_models(config: Any) -> set[str]:
    """Every model the target answers with, across conditions (for the self-grading check)."""
    models = set()
    base = _setting(_setting(config, "target"), "model")
    if base:
        models.add(str(base))
    conditions = _setting(config, "conditions") or {}
    for condition in (conditions.values() if isinstance(conditions, dict) else conditions):
        overrides = condition.overrides() if hasattr(condition, "overrides") else condition
        model = _setting(overrides, "model")
        if model:
            models.add(str(model))
    return models


def warn_if_self_grading(scorer_name: str, model: str, services: Services) -> None:
    """Warn when the judge is the model under test: a model tends to favour its own answers."""
    bare = model.split("/", 1)[-1]
    for target_model in sorted(target_models(services.config)):
        if target_model == model or target_model.split("/", 1)[-1] == bare:
            services.warn(f"scorer '{scorer_name}': the judge model {model} is also the target "
                          f"model ({target_model}); a model grading its own answers tends to "
                          "favour them; consider a judge from another family")
            return
