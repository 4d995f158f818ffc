"""What a target had done when its deadline cut it short."""

from __future__ import annotations

from assay.output import Output, Usage
from assay.targets.unfinished import Unfinished, report_so_far


def test_a_target_that_reports_nothing_is_cut_short_with_the_error_alone() -> None:
    with Unfinished() as watch:
        pass
    output = watch.cut_short("timeout: no answer within 5s", Usage(3, 1, None, 1))
    assert (output.error, output.text, output.usage.calls) == (
        "timeout: no answer within 5s", "", 1)


def test_what_a_target_reports_is_kept_and_its_wait_follows_the_error() -> None:
    with Unfinished() as watch:
        report_so_far(lambda: Output(text="half", error="the agent was waiting on tool 'x'"))
    output = watch.cut_short("timeout: no answer within 5s", Usage(3, 1, None, 1))
    assert output.text == "half"
    assert output.error == "timeout: no answer within 5s; the agent was waiting on tool 'x'"
    assert output.usage.input_tokens == 3  # the meter's count, not the target's


def test_reporting_outside_a_watched_trial_does_nothing() -> None:
    report_so_far(lambda: Output(text="unused"))
    with Unfinished() as watch:
        pass
    assert watch.so_far is None
