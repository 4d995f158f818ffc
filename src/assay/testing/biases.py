"""Planted judge biases, and the seeded draws that realise them.

A measuring instrument is trusted once it is known to find a flaw that is
there. `JudgeBiases` plants three flaws of known size in the fake judge, so
a test can check that assay measures them:

- `first_position_rate`: in a pairwise request the judge names the first
  answer at this rate over pairs asked in both orders (whose answers differ):
  a share `|2q - 1|` of verdicts goes to the favoured position whatever the
  answers say, the rest on merit. 0.5 is an unbiased judge.
- `label_agreement` with `labels`: where a true label is known for a request
  (see `labels`), the judge gives it with this probability and another
  verdict otherwise (a pass becomes a fail, a label another label drawn
  evenly, a score another score of the scale drawn evenly).
- `score_noise`: Gaussian noise of this standard deviation added to the
  judge's own score (not to a labelled one), then clipped to the scale and
  rounded as the scale asks.

Draws are seeded by `seed` and the request's content (with a count of how
often that same content was seen), never by arrival order: the same run
gets the same verdicts however its requests interleave, and repeats of one
question are still independent draws.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from assay.testing.labels import load_labels


@dataclass
class JudgeBiases:
    """The flaws planted in a fake judge. The defaults plant none."""

    first_position_rate: float = 0.5
    label_agreement: float = 1.0
    labels: Mapping[str, Any] = field(default_factory=dict)
    """True labels by key; a key applies to requests whose message contains it."""
    score_noise: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        for name in ("first_position_rate", "label_agreement"):
            rate = getattr(self, name)
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1, not {rate}")
        if self.score_noise < 0:
            raise ValueError(f"score_noise must be 0 or more, not {self.score_noise}")
        self._keys = sorted(self.labels, key=len, reverse=True)
        self._seen: Counter[str] = Counter()

    @classmethod
    def from_file(cls, labels_path: str, **settings: Any) -> JudgeBiases:
        return cls(labels=load_labels(labels_path), **settings)

    def true_label(self, message: str) -> Any:
        """The true label of the longest key found in `message`, or None."""
        key = next((key for key in self._keys if key in message), None)
        return None if key is None else self.labels[key]

    def draws(self, content: str) -> random.Random:
        """A generator for one request, fixed by the seed, the content and its repeat count."""
        self._seen[content] += 1
        digest = hashlib.sha256(
            f"{self.seed}\x00{self._seen[content]}\x00{content}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    def positional_override(self, draws: random.Random) -> Literal["first", "second"] | None:
        """"first" or "second" when this pairwise verdict ignores the answers, else None."""
        lean = 2 * self.first_position_rate - 1
        if lean != 0 and draws.random() < abs(lean):
            return "first" if lean > 0 else "second"
        return None

    def agrees(self, draws: random.Random) -> bool:
        """Whether this verdict gives the true label."""
        return self.label_agreement >= 1.0 or draws.random() < self.label_agreement

    def noisy(self, value: float, draws: random.Random) -> float:
        """`value` with the planted noise added (unclipped)."""
        return value + draws.gauss(0.0, self.score_noise) if self.score_noise else value
