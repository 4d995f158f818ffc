"""Test helpers that ship with assay: a fake LLM server speaking the real wire protocols.

Besides scripted rules, the server can play the parts of an eval itself: the
model under test (`FakeAnswerer`, answering from the context it is shown) and
the judge (`FakeJudge`, giving a plausible verdict in whatever format a judge
asks for, with optional planted biases: `JudgeBiases`). `python -m
assay.testing -- COMMAND` runs a command against it (see `launcher`). May
import config, the store and the viewer (to serve a seeded store in tests).
"""

from assay.testing.answerer import FakeAnswerer
from assay.testing.biases import JudgeBiases
from assay.testing.fake_llm import FakeLLM
from assay.testing.judge import FakeJudge
from assay.testing.script import FakeRequest, Fault, Reply, Rule

__all__ = ["FakeAnswerer", "FakeJudge", "FakeLLM", "FakeRequest", "Fault", "JudgeBiases",
           "Reply", "Rule"]
