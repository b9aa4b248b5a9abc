"""An exported Markov policy in columns: compact enough for millions of states.

A policy used to be written as one JSON object per state; a million states made a file
of gigabytes that took minutes to read. It is now a handful of arrays (numpy's
compressed ``.npz``, base64 inside the JSON document, so one file still holds the whole
solution and is written atomically):

    code     int64[N]      game code of every state, the start first
    n_out    int32[N]      chance outcomes of each state (0: terminal)
    outcome  int32[O]      the game's outcome number k, state after state
    choose   int32[R, O]   the game's choice number after each outcome; R = 1, or one
                           row per budget h = 0..H for the horizon objective
    value    float64[N]    every state's value in floats
    exact    uint8[...]    optional: the exact values as text ``p/q``, one per line
                           (compressed like the rest; any number of digits)

A compressed column of zeros expands a thousandfold, so a column is read only once its
header (shape and type) agrees with the number of states the strategy says it lists
(``states``), and that number and the header with what the game allows (`Limits`: its
bound on states, outcomes a state may have, the horizon, the length of exact values).
"""

from __future__ import annotations

import base64
import io
import math
import zlib
from dataclasses import dataclass
from typing import Any
from zipfile import BadZipFile, ZipFile

import numpy as np

from ..errors import PerfectplayError
from ..memory import available, size_text

FORMAT = "columns-npz-base64"


class BadPolicy(PerfectplayError):
    """A file that is not a valid policy for its game."""


@dataclass
class PolicyColumns:
    """The arrays of an exported policy (see the module docstring), already checked for
    shape and consistency (not yet against the game's rules)."""

    code: np.ndarray
    n_out: np.ndarray
    outcome: np.ndarray
    choose: np.ndarray
    value: np.ndarray
    exact: list[str] | None
    by_budget: bool

    @property
    def out_ptr(self) -> np.ndarray:
        ptr = np.zeros(len(self.n_out) + 1, dtype=np.int64)
        np.cumsum(self.n_out, out=ptr[1:])
        return ptr


def segments(ptr: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Indices ptr[r]:ptr[r+1] of every r in `rows`, concatenated (the outcomes of a set
    of states, in the columns or in a Graph)."""
    lengths = ptr[rows + 1] - ptr[rows]
    starts = np.repeat(ptr[rows] - np.concatenate(([0], np.cumsum(lengths)[:-1])), lengths)
    return starts + np.arange(int(lengths.sum()))


def encode_policy(columns: PolicyColumns) -> dict[str, Any]:
    """The ``strategy`` object of a solution document."""
    arrays = {
        "code": columns.code.astype(np.int64),
        "n_out": columns.n_out.astype(np.int32),
        "outcome": columns.outcome.astype(np.int32),
        "choose": np.atleast_2d(columns.choose).astype(np.int32),
        "value": columns.value.astype(np.float64),
    }
    if columns.exact is not None:
        arrays["exact"] = np.frombuffer("\n".join(columns.exact).encode("ascii"), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return {
        "kind": "markov-policy",
        "by_budget": columns.by_budget,
        "states": len(columns.code),
        "encoding": FORMAT,
        "columns": base64.b64encode(buffer.getvalue()).decode("ascii"),
    }


@dataclass(frozen=True)
class Limits:
    """The most a policy's columns may hold, from its game and its document (None: not
    known), checked on each column's header before it is expanded; besides, the columns
    of the states must have one entry for each state the strategy lists, and all of
    them together expand to no more than the memory available."""

    #: The game's bound on its states (``MarkovGame.state_bound``).
    states: int | None = None
    #: Chance outcomes of one state at most (the game's compiled rules pad to this).
    outcomes: int | None = None
    #: Rows of choices: 1, or the horizon + 1 for a policy by budget left.
    budgets: int | None = None
    #: Characters of one exact value at most.
    value_chars: int | None = None


#: The columns every policy has: each one's number of dimensions and kind of number.
COLUMNS = {
    "code": (1, "i"),
    "n_out": (1, "i"),
    "outcome": (1, "i"),
    "choose": (2, "i"),
    "value": (1, "f"),
}
#: What a damaged column raises as it is read (base64, zip, deflate, the .npy header).
_UNREADABLE = (ValueError, OSError, EOFError, RuntimeError, KeyError, BadZipFile, zlib.error)


def decode_policy(strategy: Any, limits: Limits = Limits()) -> PolicyColumns:
    """The columns of a document's ``strategy``, each checked against `limits` and the
    states the strategy says it lists before it is expanded; BadPolicy (one line) if
    malformed."""
    if not isinstance(strategy, dict) or strategy.get("kind") != "markov-policy":
        raise BadPolicy("the file holds no Markov policy")
    if strategy.get("encoding") != FORMAT or not isinstance(strategy.get("columns"), str):
        raise BadPolicy("the policy's columns are missing or in an unknown encoding")
    states = strategy.get("states")
    if isinstance(states, bool) or not isinstance(states, int) or states < 1:
        raise BadPolicy("the policy does not say how many states it lists")
    if limits.states is not None and states > limits.states:
        listed = f"{states:,}" if states < 10**15 else f"a {len(str(states))}-digit number of"
        raise BadPolicy(
            f"the policy lists {listed} states, more than its game has ({limits.states:,})"
        )
    by_budget = strategy.get("by_budget") is True
    try:
        data = base64.b64decode(strategy["columns"], validate=True)
        with ZipFile(io.BytesIO(data)) as z:
            present = set(z.namelist())
            shapes = {n: _header(z, n) for n in (*COLUMNS, "exact") if f"{n}.npy" in present}
            _check_shapes(shapes, states, by_budget, limits)
            n_out = _read(z, "n_out")
            if (n_out < 0).any() or int(n_out.sum()) != shapes["outcome"][0][0]:
                raise BadPolicy("the policy's outcomes and choices are malformed")
            arrays = {n: _read(z, n) for n in shapes if n != "n_out"}
    except _UNREADABLE as err:
        raise BadPolicy(f"the policy's columns cannot be read ({err.__class__.__name__})") from None
    code, outcome, choose, value = (arrays[k] for k in ("code", "outcome", "choose", "value"))
    if (code < 0).any() or (code >= 2**62).any():
        raise BadPolicy("a state has no valid integer code")
    if not np.isfinite(value.astype(np.float64)).all():
        raise BadPolicy("a state's value is not a finite number")
    exact = None
    if "exact" in arrays:
        exact = arrays["exact"].tobytes().decode("ascii", errors="replace").split("\n")
        if len(exact) != states:
            raise BadPolicy("the policy's exact values disagree on the number of states")
    return PolicyColumns(
        code.astype(np.int64),
        n_out.astype(np.int64),
        outcome.astype(np.int64),
        choose.astype(np.int64),
        value.astype(np.float64),
        exact,
        by_budget,
    )


def _header(z: ZipFile, name: str) -> tuple[tuple[int, ...], np.dtype]:
    """The shape and type that column `name`'s header declares, nothing expanded yet."""
    with z.open(f"{name}.npy") as handle:
        version = np.lib.format.read_magic(handle)
        if version not in ((1, 0), (2, 0)):
            raise ValueError(f"a .npy header of version {version}")
        read = np.lib.format.read_array_header_1_0
        if version == (2, 0):
            read = np.lib.format.read_array_header_2_0
        shape, _, dtype = read(handle)
    return shape, dtype


def _read(z: ZipFile, name: str) -> np.ndarray:
    """Column `name`, expanded (its header checked first: `_check_shapes`)."""
    with z.open(f"{name}.npy") as handle:
        return np.lib.format.read_array(handle, allow_pickle=False)


def _check_shapes(
    shapes: dict[str, tuple[tuple[int, ...], np.dtype]],
    states: int,
    by_budget: bool,
    limits: Limits,
) -> None:
    """Refuse columns whose headers are malformed or declare more than `states` states
    and `limits` allow (see `Limits`), before any is expanded."""
    for name, (ndim, kind) in COLUMNS.items():
        if name not in shapes or len(shapes[name][0]) != ndim or shapes[name][1].kind != kind:
            raise BadPolicy(f"the policy's column {name!r} is missing or malformed")
    if "exact" in shapes and (len(shapes["exact"][0]) != 1 or shapes["exact"][1] != np.uint8):
        raise BadPolicy("the policy's column 'exact' is malformed")
    for name in ("code", "n_out", "value"):
        if shapes[name][0] != (states,):
            raise BadPolicy(
                f"the policy's column {name!r} holds {math.prod(shapes[name][0]):,} entries, "
                f"not one for each of the {states:,} states it lists"
            )
    (outcomes,), (rows, chosen) = shapes["outcome"][0], shapes["choose"][0]
    budgets = limits.budgets if by_budget else 1
    if chosen != outcomes or (budgets is not None and rows != budgets):
        raise BadPolicy("the policy's outcomes and choices are malformed")
    if limits.outcomes is not None and outcomes > states * limits.outcomes:
        raise BadPolicy(
            f"the policy lists {outcomes:,} chance outcomes, more than its {states:,} "
            f"states have ({limits.outcomes} each at most)"
        )
    if "exact" in shapes and limits.value_chars is not None:
        written, room = shapes["exact"][0][0], states * (limits.value_chars + 1)
        if written > room:
            raise BadPolicy(
                f"the policy's exact values take {written:,} characters, more than "
                f"{states:,} values of at most {limits.value_chars:,} each"
            )
    expanded = sum(math.prod(shape) * dtype.itemsize for shape, dtype in shapes.values())
    free = available()
    if expanded > free:
        raise BadPolicy(
            f"the policy's columns expand to {size_text(expanded)}, more than the "
            f"{size_text(free)} of memory available"
        )
