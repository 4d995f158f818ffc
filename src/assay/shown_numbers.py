"""Numbers as text that say what the numbers say: a share is not rounded onto 0% or 100%
when it is not there, and a value beside the bound it is held to gets the digits that show
which side of the bound it is on.

Reports, gates, calibration and `assay traces` all print a rate beside a bar; rounded to
the usual digits, an agreement of 84.96% read `85.0%` beside the `85%` it fell short of.

Every figure is rounded by `fixed`, one rule for every view: a tie goes away from zero,
as people round by hand (9 of 16 is `56.3%`, a mean of 0.5625 `0.563`, +6.25pp `+6.3pp`).
Python's own formatting rounds a tie to even (`56.2%`), and the views that used it
disagreed with those that did not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Context, Decimal

MAX_DECIMALS = 8
"""Digits added at most to keep a number off an end it is not at."""
FAITHFUL_DIGITS = 15
"""Significant digits a float holds faithfully; those past them are arithmetic's noise
(0.9 / 8 is 0.11249999999999999, a tie at three places read as under it)."""
AT_END = 1e-9
"""How near an end a number is at it: a Wilson bound of 0 passes comes out as 1e-17."""


def fixed(value: float | Decimal, decimals: int, *, signed: bool = False) -> str:
    """`value` to `decimals` places (`signed`: with its sign, `+6.3`), a tie rounded away
    from zero. The value is read as a person writes it (`_written`): 0.285 is the 0.285 a
    person sees, not the binary fraction a hair below it that Python's format rounds down.

    A float clearly off a tie rounds the same either way, so Python's format writes it at a
    third of the cost (a scorer's reason is written per trial)."""
    if type(value) is float and not _near_a_tie(value, decimals):
        return f"{value:{'+' if signed else ''}.{decimals}f}"
    number = value if isinstance(value, Decimal) else _written(value)
    if not number.is_finite():
        return f"{value:{'+' if signed else ''}.{decimals}f}"
    rounded = number.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{rounded:{'+' if signed else ''}.{decimals}f}"


def _near_a_tie(value: float, decimals: int) -> bool:
    """`value` may be read as halfway between two values at `decimals` places (or is too large
    or not finite to tell): far wider a margin than a float's error or `_written`'s reading."""
    if not math.isfinite(value):
        return True
    scaled = abs(value) * 10.0**decimals
    return abs(scaled - math.floor(scaled) - 0.5) <= 1e-9 * (scaled + 1)


def _written(value: float) -> Decimal:
    """The float as a person writes it: to the `FAITHFUL_DIGITS` it holds (`0.1` is
    Decimal('0.1'), and a mean of 0.2, 0.7 and six zeros, 0.11249999999999999, is 0.1125)."""
    if not math.isfinite(value):
        return Decimal(str(value))
    return Decimal(f"{float(value):.{FAITHFUL_DIGITS}g}")


def count(number: int) -> str:
    """A count as every view writes it, with a thousands separator: `1,500`. report.md's
    run line read `trials: 13,500` above a table of `4500` trials per condition."""
    return f"{number:,}"


def percent(share: float, decimals: int = 1) -> str:
    """A share (0..1) as a percentage that reads 0% or 100% only when it is exactly that.

    At one decimal, 1,999 passes in 2,000 read `100.0%`, as if none had failed: digits
    are added until the text leaves the end it was rounded onto (`99.95%`, `0.05%`).
    """
    text = percent_at(share, decimals)
    while off_ends(share, (0.0, 1.0)) and float(text[:-1]) in (0.0, 100.0) \
            and decimals < MAX_DECIMALS:
        decimals += 1
        text = percent_at(share, decimals)
    return text


def percent_at(share: float, decimals: int) -> str:
    """A share (0..1) as a percentage at exactly `decimals` places (`fixed`'s rounding)."""
    number = _written(share)
    return f"{fixed(number.scaleb(2) if number.is_finite() else share, decimals)}%"


def points(delta_pp: float, decimals: int = 1) -> str:
    """A difference of percentages in points, signed: `+6.3pp` (`fixed`'s rounding)."""
    return f"{fixed(delta_pp, decimals, signed=True)}pp"


def off_ends(value: float, scale: tuple[float, float]) -> bool:
    """Inside the scale and not at either end (within float noise, `AT_END` of the span)."""
    low, high = scale
    margin = AT_END * (high - low)
    return low + margin < value < high - margin


def beside_bound(value: float, bound: float, *, share: bool = False, at_most: bool = False,
                 signed: bool = False, decimals: int = 1) -> tuple[str, str]:
    """`value` and the `bound` it is held to, as text, with the digits that show which
    side of the bound the value is on (`share`: both are shares, shown as percentages).

    Rounded to the usual digits, a pass rate of 79.996% reads `80.0%` beside the `min 80.0%`
    it failed, and a mean of 12.345 `12.3` beside the `min 12.34` it passed: digits are
    added until the shown numbers compare as the true ones do. A percentage and its bound
    get the same decimals (`decimals` at least, and those the bound was set with: a bar of
    0.9495 reads `94.95%`, never `95.0%` beside a gate at 0.95); otherwise the bound reads as it was given,
    and the value gets three significant digits or more (`signed`: `decimals` or more,
    signed).
    """
    holds = value <= bound if at_most else value >= bound
    if share:  # never fewer decimals than the bound was set with: 94.95% is not `95.0%`
        decimals = max(decimals, min(len(bound_percent(bound)[:-1].partition(".")[2]),
                                     MAX_DECIMALS))
    for extra in range(12):
        if share:
            text, limit = percent(value, decimals + extra), percent(bound, decimals + extra)
        else:
            text = fixed(value, decimals + extra, signed=True) if signed \
                else significant(value, 3 + extra)
            limit = f"{bound:g}"
        shown, shown_bound = _parsed(text), _parsed(limit)
        if (shown <= shown_bound if at_most else shown >= shown_bound) == holds:
            return text, limit
    return repr(value), repr(bound)


def percent_beside(share: float, bar: float | None, decimals: int = 1) -> str:
    """`share` as a percentage, with the digits that show which side of `bar` (a share it
    is held to at least) it is on: 84.96% is not `85.0%` beside a bar of 85% it missed."""
    if bar is None:
        return percent(share, decimals)
    return beside_bound(share, bar, share=True, decimals=decimals)[0]


def bound_percent(bar: float, decimals: int = 0) -> str:
    """A bar set in a config as a share, as a percentage with the digits it was given:
    `85%`, `85.5%` (never rounded to `86%`); `decimals` at least (`85.0%`)."""
    text = f"{bar * 100:g}"
    places = len(text.partition(".")[2])
    return f"{text}%" if "e" in text or places >= decimals else percent_at(bar, decimals)


def fixed_beside(value: float, bar: float | None, decimals: int = 2) -> str:
    """`value` to `decimals` places, more where those would put it on the other side of
    `bar` (a bound it is held to at least): a kappa of 0.5996 is not `0.60` beside 0.6."""
    if bar is None:
        return fixed(value, decimals)
    for places in range(decimals, decimals + 12):
        text = fixed(value, places)
        if (float(text) >= bar) == (value >= bar):
            return text
    return repr(value)


def _parsed(text: str) -> float:
    return float(text[:-1]) / 100 if text.endswith("%") else float(text)


def adding_up(text_a: Callable[[int], str], text_b: Callable[[int], str], delta: float,
              digits: int) -> tuple[str, str, str, int]:
    """A, B and the delta, shown so that B minus A as shown is the delta shown, or rounds to
    it; the last value is the delta's digits. `77.4% → 70.2%` beside `-7.1pp` reads as a
    slip. The fewest digits that agree, first:

    - all at `digits`, when B minus A is the delta exactly (`20.0% → 100.0%`, `+80.0pp`);
    - else A and B one digit more, the delta at `digits` (`77.38% → 70.24%`, `-7.1pp`;
      `33.33% → 66.67%`, `+33.3pp`, where thirds add up at no length). Spelling the
      delta out to match (`53.846% → 46.154%`, `-7.692pp` for 7 and 6 of 13) would give
      a 13-case comparison digits it does not have;
    - else all one or two digits more, where that double rounding slips, or where B
      minus A as shown is a tie (`99.95% → 100.00%` reads `+0.05pp`, not `+0.1pp`).
    """
    a, b, d = text_a(digits), text_b(digits), fixed(delta, digits, signed=True)
    if _difference(a, b) == Decimal(d):
        return a, b, d, digits
    a, b = text_a(digits + 1), text_b(digits + 1)
    difference = _difference(a, b)
    if fixed(difference, digits, signed=True) == d and not _tie(difference, digits):
        return a, b, d, digits
    for shown in (digits + 1, digits + 2):
        a, b, d = text_a(shown), text_b(shown), fixed(delta, shown, signed=True)
        if _difference(a, b) == Decimal(d):
            return a, b, d, shown
    return text_a(digits), text_b(digits), fixed(delta, digits, signed=True), digits


def _tie(number: Decimal, digits: int) -> bool:
    """`number` lies halfway between two values at `digits` places (6.25 at one)."""
    return abs(number.scaleb(digits) % 1) == Decimal("0.5")


def _difference(a: str, b: str) -> Decimal:
    """B minus A as they read (`66.67%` less `33.33%`)."""
    return Decimal(b.rstrip("%")) - Decimal(a.rstrip("%"))


def significant(value: float, digits: int, *, signed: bool = False) -> str:
    """`value` to `digits` significant digits, as `{:g}` writes it (`12.3`, `0.000123`,
    `1.23e+06`; `signed`: `+0.0013`), a tie rounded away from zero as `fixed` rounds it."""
    sign = "+" if signed else ""
    number = _written(value)
    if not number.is_finite() or number.is_zero():
        return f"{value:{sign}.{digits}g}"
    exponent = number.adjusted()
    rounded = number.quantize(Decimal(1).scaleb(exponent - digits + 1), rounding=ROUND_HALF_UP)
    return f"{float(rounded):{sign}.{digits}g}"


COST_DIGITS = 4
"""Decimals of a dollar amount, unless more are needed to add up or to show a cent's
hundredth above zero."""
MAX_COST_DIGITS = 8
"""Past this, prices per million tokens leave nothing to round."""
SUM_NOISE_DIGITS = 12
"""Decimals of a dollar past which a float sum holds only rounding noise."""


def dollars(cost: float, digits: int = COST_DIGITS) -> str:
    """`$0.0123`; a cost above zero gets digits until it stops reading `$0.0000`."""
    while 0 < cost and dollar_amount(cost, digits) == 0 and digits < MAX_COST_DIGITS:
        digits += 1
    return f"${dollar_amount(cost, digits)}"


def dollar_amount(cost: float, digits: int) -> Decimal:
    """`cost` to `digits` decimals, half up, as the amount it stands for: one amount summed
    in two orders (the run's ledger, the store) differs in its last binary digits, and
    $0.0052499999999999995 read `$0.0052` beside the same $0.00525 read `$0.0053`."""
    if not math.isfinite(cost):  # no cost a finite price gives: shown as it is
        return Decimal(cost)
    text = f"{cost:.{SUM_NOISE_DIGITS}f}"
    # every digit kept: past decimal's 28 ($1e16 and up) quantize raised InvalidOperation
    return Decimal(text).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP,
                                  context=Context(prec=len(text) + digits))
