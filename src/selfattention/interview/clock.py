"""The rehearsal clock: now, or the time ``ATTENTION_REHEARSE_NOW`` pins (tests, demos). Its own module so
that ``schedule`` and ``optimize`` both read it without importing each other."""

from __future__ import annotations

import os
from datetime import datetime

from .store import parse_now

__all__ = ["ENV_NOW", "now"]

ENV_NOW = "ATTENTION_REHEARSE_NOW"


def now() -> datetime:
    """The current time (timezone-aware), or the one ``ATTENTION_REHEARSE_NOW`` names."""
    return parse_now(os.environ.get(ENV_NOW))
