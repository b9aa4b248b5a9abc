"""A compiled rule that numba cannot compile, said in one line a person can act on: the
line of their own file numba stopped at (not the package's loop that called it), numba's
reason, and what compiled rules may do (``markov.compiled.rules_kernel``: read ``params``,
write into the three arrays handed to them; no allocation, since they are compiled
without numba's reference counting, and no Python objects)."""

from __future__ import annotations

import re
from pathlib import Path

#: What compiled rules may do, said with every compile failure of theirs.
MAY = (
    "compiled rules may not allocate (np.empty, np.zeros, lists, dicts) nor use Python "
    "objects: they read params and write into the weight, next and cost arrays they are "
    "handed (docs/custom-games.md, 'Compiled rules')"
)
#: The package's own folder: numba's trace through it is not the user's line.
PACKAGE = Path(__file__).resolve().parent
#: Terminal colour codes numba writes into its messages.
COLOURS = re.compile(r"\x1b\[[0-9;]*m")
#: Where numba says it stopped: ``File "rules.py", line 17:``.
PLACE = re.compile(r'^File "([^"]+)", line (\d+):', re.M)


def compile_failure(err: BaseException) -> str | None:
    """One line for numba's compile error `err` (None: not one): the user's file and line
    where typing failed, with its source, numba's first reason and ``MAY``."""
    if not any(c.__module__.startswith("numba") for c in type(err).__mro__[:-2]):
        return None
    if type(err).__name__ not in ("TypingError", "LoweringError", "UnsupportedError"):
        return None
    text = COLOURS.sub("", str(err))
    lines = [line.strip() for line in text.splitlines()]
    reason = next(
        (line for line in lines if line and not line.startswith(("Failed in", "During:"))), ""
    )
    where = ""
    for place in PLACE.finditer(text):
        path = Path(place[1])
        if PACKAGE in path.resolve().parents:
            continue
        after = text[place.end() :].splitlines()
        caret = next((i for i, line in enumerate(after) if line.strip() == "^"), None)
        source = after[caret - 1].strip() if caret else ""
        where = f" at {path.name} line {place[2]}" + (f" ({source})" if source else "")
        break
    return f"the rules do not compile{where}: {reason[:160].rstrip(':')}; {MAY}"
