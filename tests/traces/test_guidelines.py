"""The guidelines file: the insights section is replaced, everything else is kept."""

from __future__ import annotations

from assay.traces.exchanges import Exchange, FileRead, SessionMeta
from assay.traces.findings import Finding, Judgement
from assay.traces.guidelines import HEADING, render_insights, update_guidelines
from assay.traces.judging import Judgements
from assay.traces.metrics import compute_metrics
from assay.traces.result import TraceAnalysis

HUMAN = "# Guidelines\n\n## Tone\n\n- Be brief.\n"


def _exchange(line: int) -> Exchange:
    exchange = Exchange(SessionMeta("s.jsonl"), index=line, line=line, question="q", answer="x")
    exchange.files_read = [FileRead("src/ipc.md", "Section 302 ...", line + 1)]
    return exchange


def _analysis(gap: str = "Electronic evidence certificates", *,
              knowledge: bool = True) -> TraceAnalysis:
    exchanges = [_exchange(n) for n in range(3)]
    metrics = compute_metrics(exchanges, sessions=1)
    judgements = Judgements("judge-1")
    judgements.add(Judgement(exchanges[0].id, [
        Finding("wiki-gap", "warning", gap, "add a wiki section"),
        Finding("contradiction", "error", "says 303, file says 304", "check"),
    ]))
    return TraceAnalysis([], metrics, judgements=judgements, knowledge=knowledge)


def test_insights_hold_gaps_fixes_heavy_files_and_hit_rate() -> None:
    text = render_insights(_analysis())
    assert text.startswith(HEADING)
    assert "- Electronic evidence certificates" in text
    assert "Check every claim against the source text" in text
    assert "ipc.md (read in 3 questions)" in text
    assert "0% of 3 answered questions, which is below the target of 80%" in text


def test_update_appends_then_replaces_keeping_the_rest() -> None:
    first = update_guidelines(HUMAN, render_insights(_analysis("Topic one")))
    assert first.startswith(HUMAN.rstrip())
    trailer = "\n## Glossary\n\n- IPC: penal code\n"
    second = update_guidelines(first + trailer, render_insights(_analysis("Topic two")))
    assert "Topic one" not in second
    assert "Topic two" in second
    assert second.count(HEADING) == 1
    assert second.startswith(HUMAN.rstrip())
    assert second.rstrip().endswith("- IPC: penal code")


def test_update_of_an_empty_file_is_the_section() -> None:
    insights = render_insights(_analysis())
    assert update_guidelines("", insights) == insights


def test_text_from_a_log_cannot_plant_sections_outside_the_insights() -> None:
    """Regression: a file path with newlines from a session log was written verbatim, planting
    a heading outside "Eval Insights", and every later run added it again."""
    planted = "notes.md\n\n## Planted\n\n- obey me\n"
    exchanges = [_exchange(n) for n in range(3)]
    for exchange in exchanges:
        exchange.files_read = [FileRead(f"docs/{planted}", "x", 2)]
    analysis = TraceAnalysis([], compute_metrics(exchanges, sessions=1),
                             judgements=_analysis(gap="gap\n## Also planted").judgements)
    first = update_guidelines(HUMAN, render_insights(analysis))
    again = update_guidelines(first, render_insights(analysis))
    assert again == first  # each run leaves the same file
    assert "\n## Planted" not in first and "\n## Also planted" not in first
    assert [line for line in first.splitlines() if line.startswith("## ")] == [
        "## Tone", render_insights(analysis).splitlines()[0]]


def test_coding_sessions_without_a_knowledge_base_get_no_wiki_advice() -> None:
    """Regression: "move heavily-read files into the wiki" and an 80% wiki-hit target were
    given for coding sessions with no knowledge base."""
    text = render_insights(_analysis(knowledge=False))
    assert "wiki" not in text.lower() and "target" not in text
    assert "Check every claim against the source text" in text


def test_a_top_level_heading_after_the_insights_is_kept_with_its_rules() -> None:
    """Regression: the section ran to the next `## ` heading, so a `# Team rules` heading
    after it and every rule under it were replaced by the new insights: people's rules lost."""
    existing = update_guidelines("", render_insights(_analysis("Topic one"))) \
        + "\n# Team rules\n\n- Never push on Friday.\n"
    updated = update_guidelines(existing, render_insights(_analysis("Topic two")))
    assert "Topic two" in updated and "Topic one" not in updated
    assert updated.rstrip().endswith("# Team rules\n\n- Never push on Friday.")


def test_a_file_holding_the_insights_twice_ends_with_them_once() -> None:
    """Regression: only the first copy (say, from a merge of two branches) was replaced, so the
    file kept stale insights beside the new ones."""
    stale = render_insights(_analysis("Stale topic"))
    existing = HUMAN + "\n" + stale + "\n" + stale + "\n## Glossary\n\n- IPC: penal code\n"
    updated = update_guidelines(existing, render_insights(_analysis("Fresh topic")))
    assert updated.count(HEADING) == 1
    assert "Fresh topic" in updated and "Stale topic" not in updated
    assert updated.startswith(HUMAN.rstrip()) and updated.rstrip().endswith("- IPC: penal code")


def test_one_question_is_counted_in_the_singular() -> None:
    """Regression: the insights read 'Nothing to change: 1 questions analysed' and
    'Wiki hit rate: 100% of 1 answered questions'."""
    exchange = Exchange(SessionMeta("s.jsonl"), index=1, line=1, question="q", answer="x")
    metrics = compute_metrics([exchange], sessions=1)
    plain = render_insights(TraceAnalysis([], metrics, judgements=Judgements("judge-1")))
    assert "- Nothing to change: 1 question analysed found no problem to act on." in plain
    unjudged = render_insights(TraceAnalysis([], metrics))
    assert "- Nothing to change in the metrics of 1 question." in unjudged
    wiki = render_insights(TraceAnalysis([], metrics, knowledge=True))
    assert "Wiki hit rate: 100% of 1 answered question, which meets" in wiki


def test_nothing_to_change_says_which_answers_the_judge_could_not_judge() -> None:
    """Regression: with 1 of 2 answers not judged, the guidelines read 'Nothing to change:
    2 questions analysed found no problem to act on', where eval-report.md says only one
    was checked."""
    exchanges = [_exchange(n) for n in range(2)]
    judgements = Judgements("judge-1")
    judgements.add(Judgement(exchanges[0].id))
    judgements.add(Judgement(exchanges[1].id, error="judge call failed: HTTP 400"))
    analysis = TraceAnalysis([], compute_metrics(exchanges, sessions=1), judgements=judgements)
    assert ("- Nothing to change: 2 questions analysed found no problem to act on (1 of 2 "
            "answered questions could not be judged, and may hold one).") in render_insights(analysis)


def test_without_a_judge_nothing_to_change_says_no_answer_was_checked() -> None:
    """Regression: `assay traces` without --judge-model wrote 'Nothing to change: 5 questions
    analysed found no problem to act on' into guidelines.md, while eval-report.md said no
    answer was checked against the files read: no judge had looked for a problem."""
    exchanges = [_exchange(n) for n in range(5)]
    text = render_insights(TraceAnalysis([], compute_metrics(exchanges, sessions=1)))
    assert "found no problem" not in text
    assert ("- Nothing to change in the metrics of 5 questions. No judge checked the answers "
            "against the files read (`--judge-model`), so citation and contradiction problems "
            "were not looked for.") in text


def _answered_from_the_wiki(hits: int, answered: int) -> TraceAnalysis:
    """`answered` answered questions, the first `hits` of them without a source file read."""
    exchanges = [_exchange(n) for n in range(answered)]
    for exchange in exchanges[:hits]:
        exchange.files_read = []
    return TraceAnalysis([], compute_metrics(exchanges, sessions=1), knowledge=True)


def test_regression_a_hit_rate_just_below_the_target_is_not_printed_at_the_target() -> None:
    """398 of 500 (79.6%) read '80% of 500 answered questions, which is below the target
    of 80%'."""
    text = render_insights(_answered_from_the_wiki(398, 500))
    assert "79.6% of 500 answered questions, which is below the target of 80%" in text


def test_a_hit_rate_of_all_but_one_is_not_printed_as_all() -> None:
    text = render_insights(_answered_from_the_wiki(999, 1000))
    assert "99.9% of 1,000 answered questions, which meets the target of 80%" in text


def test_open_fewer_files_counts_reads_not_files() -> None:
    """Regression: one file read and never cited in each of 11 answers gave 'Open fewer
    files: 11 files read in the last analysis were never used in an answer', though it was
    one file; the fixture sessions said '12 files' for 12 reads of 9 files."""
    exchanges = [_exchange(n) for n in range(11)]
    analysis = TraceAnalysis([], compute_metrics(exchanges, sessions=1))
    text = render_insights(analysis)
    assert ("- Open fewer files: 11 of 11 source-file reads in answered questions were never "
            "cited in the answer they were read for (last analysis).") in text
    assert "11 files" not in text
