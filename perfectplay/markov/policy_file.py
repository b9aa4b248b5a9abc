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
"""

from __future__ import annotations

import base64
import io
import zipfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import PerfectplayError

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


def decode_policy(strategy: Any) -> PolicyColumns:
    """The columns of a document's ``strategy``; BadPolicy (one line) if malformed."""
    if not isinstance(strategy, dict) or strategy.get("kind") != "markov-policy":
        raise BadPolicy("the file holds no Markov policy")
    if strategy.get("encoding") != FORMAT or not isinstance(strategy.get("columns"), str):
        raise BadPolicy("the policy's columns are missing or in an unknown encoding")
    try:
        with np.load(
            io.BytesIO(base64.b64decode(strategy["columns"], validate=True)), allow_pickle=False
        ) as npz:
            arrays = {name: npz[name] for name in npz.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise BadPolicy(f"the policy's columns cannot be read ({err.__class__.__name__})") from None
    need = {"code": 1, "n_out": 1, "outcome": 1, "choose": 2, "value": 1}
    for name, ndim in need.items():
        a = arrays.get(name)
        if a is None or a.ndim != ndim or a.dtype.kind not in ("i" if name != "value" else "f"):
            raise BadPolicy(f"the policy's column {name!r} is missing or malformed")
    code, n_out, outcome, choose, value = (arrays[k] for k in need)
    n = len(code)
    if n == 0 or len(n_out) != n or len(value) != n:
        raise BadPolicy("the policy's columns disagree on the number of states")
    if (n_out < 0).any() or int(n_out.sum()) != len(outcome) or choose.shape[1] != len(outcome):
        raise BadPolicy("the policy's outcomes and choices are malformed")
    by_budget = strategy.get("by_budget") is True
    if not by_budget and len(choose) != 1:
        raise BadPolicy("the policy's outcomes and choices are malformed")
    if (code < 0).any() or (code >= 2**62).any():
        raise BadPolicy("a state has no valid integer code")
    exact = None
    if "exact" in arrays:
        exact = arrays["exact"].tobytes().decode("ascii", errors="replace").split("\n")
        if len(exact) != n:
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
