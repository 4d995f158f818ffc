"""Serve the fake LLM, alone or around one command.

    python -m assay.testing -- assay run examples/knowledge-packs/assay.yaml
    python -m assay.testing --latency 0.05

With a command after `--`, the server runs while the command does, with the
OpenAI and Anthropic SDKs pointed at it and placeholder keys, and exits with
the command's exit code. Without one it prints its base URL on the first
line of stdout and serves until interrupted (point `OPENAI_BASE_URL` /
`ANTHROPIC_BASE_URL` at it).

It plays the judge for every request that asks for a structured verdict,
and the model under test for the rest: answering from the context in its
prompt or from tool results, or with `--reply` text. The judge can carry
planted biases: `--first-position-rate`, `--label-agreement` with
`--labels`, `--score-noise`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys

from assay.testing.answerer import FakeAnswerer, load_answers
from assay.testing.biases import JudgeBiases
from assay.testing.fake_llm import FAULT_KINDS, FakeLLM, checked_fault_rates
from assay.testing.judge import FakeJudge
from assay.testing.labels import load_labels
from assay.testing.launcher import run_against
from assay.testing.script import ReplySource


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m assay.testing", usage="%(prog)s [options] [-- COMMAND ...]",
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--reply", default=None,
                        help="the text every non-judge request gets (default: answer from "
                             "the context in the prompt)")
    parser.add_argument("--answers", metavar="FILE",
                        help="scripted answers: JSON {question: answer}, or a dataset-like "
                             "JSON/JSONL/CSV file (input or question, and answer or expected)")
    parser.add_argument("--fault", action="append", default=[], metavar="KIND=RATE",
                        help="inject a fault at a rate, e.g. rate_limit=0.1 (repeatable); "
                        f"kinds: {', '.join(FAULT_KINDS)}")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the faults, latencies and the judge's planted biases")
    parser.add_argument("--no-judge", action="store_true",
                        help="do not play the judge: judge requests get the --reply text too")
    biases = parser.add_argument_group("planted judge biases")
    biases.add_argument("--first-position-rate", type=float, default=0.5, metavar="Q",
                        help="share of pairwise verdicts naming the first answer (0.5: none)")
    biases.add_argument("--labels", metavar="FILE",
                        help="true labels: JSON {key: label}, or JSON/JSONL/CSV records with "
                             "a key (key, input, question, output, id) and a label field")
    biases.add_argument("--label-agreement", type=float, default=1.0, metavar="P",
                        help="probability that a verdict gives the true label (default 1)")
    biases.add_argument("--score-noise", type=float, default=0.0, metavar="SD",
                        help="standard deviation of Gaussian noise on the judge's scores")
    return parser


def build_server(args: argparse.Namespace) -> FakeLLM:
    """The FakeLLM the options describe (not started)."""
    rates = checked_fault_rates(dict(fault_rate(item) for item in args.fault))
    judge = None
    if not args.no_judge:
        labels = load_labels(args.labels) if args.labels else {}
        judge = FakeJudge(JudgeBiases(
            first_position_rate=args.first_position_rate, label_agreement=args.label_agreement,
            labels=labels, score_noise=args.score_noise, seed=args.seed))
    answers = load_answers(args.answers) if args.answers else {}
    default: ReplySource = FakeAnswerer(answers) if args.reply is None else args.reply
    return FakeLLM(default=default, judge=judge, latency=args.latency, fault_rates=rates,
                   seed=args.seed, record=False)


def fault_rate(option: str) -> tuple[str, float]:
    """`(kind, rate)` of one `--fault KIND=RATE`; a ValueError that quotes the option when it
    is not of that form (the kind itself is checked by `FakeLLM`)."""
    kind, equals, rate = option.partition("=")
    try:
        if not equals:
            raise ValueError
        return kind.strip(), float(rate)
    except ValueError:
        raise ValueError(f"--fault {option}: give KIND=RATE, e.g. rate_limit=0.1") from None


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else list(argv)
    command: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, command = argv[:at], argv[at + 1:]
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        llm = build_server(args)
    except (OSError, ValueError) as exc:
        parser.error(str(exc))
    if command:
        sys.exit(run_against(llm, command))

    async def serve() -> None:
        async with llm:
            print(llm.base_url, flush=True)
            await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


if __name__ == "__main__":
    main()
