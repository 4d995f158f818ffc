"""Test helpers that ship with assay: a fake LLM server speaking the real wire protocols."""

from assay.testing.fake_llm import FakeLLM
from assay.testing.script import FakeRequest, Fault, Reply, Rule

__all__ = ["FakeLLM", "FakeRequest", "Fault", "Reply", "Rule"]
