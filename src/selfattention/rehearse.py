"""``python -m selfattention.rehearse``: the same command as ``attention-rehearse``."""

from __future__ import annotations

if __name__ == "__main__":
    from selfattention.interview.cli import main

    raise SystemExit(main())
