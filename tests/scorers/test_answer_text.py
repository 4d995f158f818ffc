"""An unannotated scorer argument is the answer's text that also carries its Output."""

from __future__ import annotations

import copy
import pickle

from assay.output import Output, ToolCall, Usage
from assay.scorers.answer_text import AnswerText


def test_it_is_the_text_for_every_string_operation() -> None:
    text = AnswerText(Output(text="Paris, France"))
    assert text == "Paris, France" and isinstance(text, str)
    assert "Paris" in text and len(text) == 13 and text.lower() == "paris, france"
    assert {"Paris, France": 1}[text] == 1  # hashes as its text


def test_it_carries_the_outputs_fields() -> None:
    call = ToolCall(name="search", arguments={"q": "capital"})
    output = Output(text="Paris", tool_calls=[call], usage=Usage(input_tokens=3),
                    metadata={"k": "v"})
    text = AnswerText(output)
    assert text.text == "Paris" and text.tool_calls == [call]
    assert text.usage.input_tokens == 3 and text.metadata == {"k": "v"}
    assert text.output is output


def test_a_copy_or_a_pickle_is_the_same_text_and_output() -> None:
    text = AnswerText(Output(text="Paris", metadata={"k": "v"}))
    for again in (copy.copy(text), copy.deepcopy(text), pickle.loads(pickle.dumps(text))):
        assert again == "Paris" and again.metadata == {"k": "v"}
