"""Check a solution file: every number it states, and its claim of optimality.

``perfectplay verify`` and ``perfectplay show`` read a file through `check_document`.
The strategy is replayed by the rules (a deduction tree secret by secret; a Markov
policy state by state, its values recomputed), and then every number the file states at
its top level or in its strategy (value, totals, histogram, worst case, wins, secrets)
must equal what the replay gives: a file that disagrees is refused (``verdict.py``).
"""

from __future__ import annotations

from typing import Any

from .catalogue import load_strategy
from .errors import BadFile
from .verdict import Verdict

__all__ = ["BadFile", "Verdict", "check_document"]


def check_document(doc: Any, *, resolve: bool = True) -> Verdict:
    """Replay the strategy in `doc`, check every number it states, and check (or say we
    did not) its claim of optimality; BadFile (or the engine's own error) if anything is
    wrong."""
    return load_strategy(doc).verify(resolve)
