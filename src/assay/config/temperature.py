"""A sampling temperature as the providers take it: a finite number from 0 to 2, refused at
its line otherwise (`.nan` and `.inf` were taken, and sent with every call)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from assay.config.bounds import MAX_TEMPERATURE

Temperature = Annotated[float, Field(ge=0, le=MAX_TEMPERATURE, allow_inf_nan=False)]
"""The type of every temperature a config gives: a target's, a judge's, `judge:`'s."""
