"""Symmetries a deduction game's rules keep but the game does not declare, found.

A game that declares no symmetry (``DeductionGame.symmetry``: the trivial group) is
searched guess by guess: Bagels (3 distinct digits of 10, 720 codes) ran for more than
1,200 s where its declared symmetry takes 3 s. For a game of more than FIND_ABOVE
guesses that declares none, the transpositions of two positions and of two adjacent
symbols are tried: each must map the guesses onto the guesses and the secrets onto the
secrets (every code, at once) and keep the feedback of a sample of SAMPLE guesses
against SAMPLE secrets; those that pass are then checked on the whole feedback table
the engine builds anyway. The group they generate (every permutation within each set
of positions the position transpositions connect; every relabelling of the symbols when
every adjacent symbol transposition passes) is a symmetry of the table: the engine uses
it (``feedback.build_table``) when the game has no hard mode and the search's other
assumptions hold (``_usable``), and the solve names it either way through the command
line's notes, with the first guesses it leaves to try (``note``).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from .contract import rows
from .declared import Element, first_breach, image, index_of
from .model import DeductionGame, Symmetry

#: The engine's feedback of guesses against secrets (``feedback.compute_feedback``),
#: handed in by the engine, which imports this module (no import back).
Feedback = Callable[[DeductionGame, np.ndarray, np.ndarray], np.ndarray]

#: Games of more guesses than this that declare no symmetry are searched for one.
FIND_ABOVE = 500
#: Guesses (and secrets) of the sample every transposition is tried on first.
SAMPLE = 40
#: Most position permutations a found group may hold (``Symmetry`` lists them all).
MAX_GROUP = 5040


@dataclass(frozen=True)
class Candidates:
    """What the sample left: the sets of positions whose transpositions passed
    (connected: each set's positions are all interchangeable), and whether every adjacent
    transposition of symbols passed."""

    orbits: tuple[tuple[int, ...], ...]
    symbols: bool

    def generators(self, length: int, n_symbols: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """(position permutation, symbol map) pairs generating the group: each
        transposition of a position with the next of its set, each adjacent symbol
        transposition (when `symbols`)."""
        out = []
        for orbit in self.orbits:
            for a, b in zip(orbit, orbit[1:]):
                out.append((_transposed(length, a, b), np.arange(n_symbols)))
        if self.symbols:
            for a in range(n_symbols - 1):
                out.append((np.arange(length), _transposed(n_symbols, a, a + 1)))
        return out

    def group(self, length: int) -> np.ndarray:
        """Every position permutation of the group (identity first), as ``Symmetry``
        lists them."""
        parts = [list(itertools.permutations(orbit)) for orbit in self.orbits]
        perms = []
        for choice in itertools.product(*parts):
            perm = np.arange(length)
            for orbit, moved in zip(self.orbits, choice):
                perm[list(orbit)] = moved
            perms.append(perm)
        return np.array(perms, dtype=np.int8).reshape(-1, length)

    def size(self) -> int:
        """Position permutations in the group."""
        return math.prod(math.factorial(len(orbit)) for orbit in self.orbits)


@dataclass(frozen=True)
class Found:
    """A symmetry found for a game that declares none: the group (``Symmetry``; its
    position permutations those within each of `orbits`), whether the engine uses it,
    and the first guesses the search tries with it (one per class) against every guess
    without it."""

    symmetry: Symmetry
    orbits: tuple[tuple[int, ...], ...]
    used: bool
    classes: int
    guesses: int

    def described(self) -> str:
        """The symmetry in words: which positions may be permuted, whether the symbols
        may be relabelled."""
        length = self.symmetry.positions.shape[1]
        parts = []
        if len(self.orbits) == 1 and len(self.orbits[0]) == length:
            parts.append(f"every permutation of the {length} positions")
        elif self.orbits:
            sets = " and of ".join(
                "positions " + ", ".join(str(p + 1) for p in orbit) for orbit in self.orbits
            )
            parts.append(f"every permutation of {sets}")
        if self.symmetry.symbols:
            parts.append("every relabelling of the symbols")
        return " and ".join(parts)

    def declaration(self) -> str:
        """How the game would declare it (``symmetry()`` returning this)."""
        length = self.symmetry.positions.shape[1]
        if len(self.orbits) == 1 and len(self.orbits[0]) == length:
            return f"Symmetry.full({length}, symbols={self.symmetry.symbols})"
        if not self.orbits:
            return f"Symmetry(Symmetry.trivial({length}).positions, symbols=True)"
        return f"Symmetry(<those position permutations>, symbols={self.symmetry.symbols})"


def _transposed(n: int, a: int, b: int) -> np.ndarray:
    """The identity of 0..n-1 with a and b exchanged."""
    perm = np.arange(n)
    perm[[a, b]] = perm[[b, a]]
    return perm


def _keys(codes: np.ndarray, n_symbols: int) -> np.ndarray:
    """Each code as one int64 (its symbols as digits in base n_symbols): the codes
    listed in lexicographic order give increasing keys."""
    weights = n_symbols ** np.arange(codes.shape[1] - 1, -1, -1, dtype=np.int64)
    return codes.astype(np.int64) @ weights


@lru_cache(maxsize=8)
def candidates(game: DeductionGame, compute_feedback: Feedback) -> Candidates | None:
    """The transpositions of a game that declares no symmetry that pass on the sample
    (its feedbacks by `compute_feedback`), or None (the game declares one, is small, or
    none passes)."""
    declared = game.symmetry()
    if len(np.asarray(declared.positions)) > 1 or declared.symbols:
        return None
    G, S = game.guesses(), game.secrets()
    L, n = game.length(), game.n_symbols()
    if len(G) <= FIND_ABOVE or L * math.log2(max(n, 2)) >= 62:
        return None
    g_rows, s_rows = rows(G), rows(S)
    rng = np.random.default_rng(0)
    picked = np.sort(rng.choice(len(G), min(SAMPLE, len(G)), replace=False))
    cols = np.sort(rng.choice(len(S), min(SAMPLE, len(S)), replace=False))
    sample: list[np.ndarray] = []  # the sample's feedbacks, once a transposition needs them

    def passes(perm: np.ndarray, tau: np.ndarray) -> bool:
        if index_of(g_rows, image(G, perm, tau)) is None:
            return False
        if index_of(s_rows, image(S, perm, tau)) is None:
            return False
        if not sample:
            sample.append(compute_feedback(game, G[picked], S[cols]))
        moved = compute_feedback(game, image(G[picked], perm, tau), image(S[cols], perm, tau))
        return bool(np.array_equal(moved, sample[0]))

    ident_p, ident_s = np.arange(L), np.arange(n)
    parent = list(range(L))  # the position transpositions that pass, joined into sets

    def root(p: int) -> int:
        while parent[p] != p:
            p = parent[p]
        return p

    for a, b in itertools.combinations(range(L), 2):
        if root(a) != root(b) and passes(_transposed(L, a, b), ident_s):
            parent[root(b)] = root(a)
    sets: dict[int, list[int]] = {}
    for p in range(L):
        sets.setdefault(root(p), []).append(p)
    orbits = tuple(tuple(s) for s in sets.values() if len(s) > 1)
    symbols = n > 1 and all(passes(ident_p, _transposed(n, a, a + 1)) for a in range(n - 1))
    if not orbits and not symbols:
        return None
    return Candidates(orbits, symbols)


def _holds_on_table(game: DeductionGame, sampled: Candidates, fb: np.ndarray) -> bool:
    """Whether every generator of `sampled` keeps the whole feedback table `fb`."""
    same = np.arange(game.n_feedbacks())
    elements = [Element(p, t, same) for p, t in sampled.generators(game.length(), game.n_symbols())]
    return first_breach(game.guesses(), game.secrets(), fb, elements) is None


@lru_cache(maxsize=8)
def _usable(game: DeductionGame, sampled: Candidates) -> Candidates:
    """What of `sampled` the search may use: nothing under a hard mode of per-position
    rules (not known to be symmetric; guessing only possible secrets is), no relabelling
    of symbols whose costs differ, no group larger than MAX_GROUP or whose permutations
    the game would act on the feedbacks by. Kept per game, as `candidates` is: the
    table's symmetry (``used_symmetry``) and the note naming it (``found``) ask both."""
    rule = game.restriction()
    if rule is not None and rule.per_position:  # (only possible guesses: symmetric)
        return Candidates((), False)
    costs = np.asarray(game.symbol_costs())
    symbols = sampled.symbols and bool((costs == costs[0]).all())
    orbits = sampled.orbits
    if sampled.size() > MAX_GROUP or (
        orbits and game.feedback_action(sampled.group(game.length())) is not None
    ):
        orbits = ()
    return Candidates(orbits, symbols)


def used_symmetry(
    game: DeductionGame, fb: np.ndarray | None, compute_feedback: Feedback
) -> Symmetry | None:
    """The symmetry the engine uses for `game` (`fb`: its feedback table, None where it
    is too large to build; `compute_feedback`: the engine's feedback), or None: what the sample found, where it holds on the whole
    table and ``_usable`` keeps some of it."""
    sampled = candidates(game, compute_feedback)
    if sampled is None or fb is None or not _holds_on_table(game, sampled, fb):
        return None
    usable = _usable(game, sampled)
    if not usable.orbits and not usable.symbols:
        return None
    return Symmetry(usable.group(game.length()), usable.symbols)


def found(game: DeductionGame, used: bool, compute_feedback: Feedback) -> Found | None:
    """What was found for `game`, to be named: the part the engine uses (`used`), else
    what the sample found (its position permutations only where its group is small
    enough to list); None if nothing was found."""
    sampled = candidates(game, compute_feedback)
    if sampled is None:
        return None
    shown = _usable(game, sampled) if used else sampled
    if shown.size() > MAX_GROUP:
        shown = Candidates((), shown.symbols)
        if not shown.symbols:
            return None
    symmetry = Symmetry(shown.group(game.length()), shown.symbols)
    G = game.guesses()
    return Found(symmetry, shown.orbits, used, _classes(G, game.n_symbols(), symmetry), len(G))


def _classes(codes: np.ndarray, n_symbols: int, symmetry: Symmetry) -> int:
    """The classes of `codes` under `symmetry` (the first guesses the search tries: one
    per class): each code's least image, its symbols renamed in order of first
    appearance where the symbols may be relabelled, counted once."""
    rows = np.arange(len(codes))
    least = None
    for perm in np.asarray(symmetry.positions, dtype=np.int64):
        image = codes[:, perm].astype(np.int64)
        if symmetry.symbols:
            name = np.full((len(codes), n_symbols), -1, dtype=np.int64)
            named = np.zeros(len(codes), dtype=np.int64)
            for p in range(image.shape[1]):
                s = image[:, p]
                new = name[rows, s] < 0
                name[rows[new], s[new]] = named[new]
                named[new] += 1
                image[:, p] = name[rows, s]
        keys = _keys(image, n_symbols)
        least = keys if least is None else np.minimum(least, keys)
    return len(np.unique(least))


def note(
    game: DeductionGame,
    symmetry: Symmetry,
    say: Callable[[str], None],
    compute_feedback: Feedback,
) -> None:
    """Say, in one line, what symmetry `game`, which declares none, was found to have
    (`symmetry`: the one its table uses, the found one where the engine uses it), and
    what declaring it saves; nothing for a game that declares one, is small, or has
    none."""
    what = found(game, len(symmetry.positions) > 1 or symmetry.symbols, compute_feedback)
    if what is None:
        return
    saving = (
        f"{what.classes:,} first guess{'es' if what.classes != 1 else ''} to try "
        f"instead of {what.guesses:,}"
    )
    if what.used:
        say(
            f"{game} declares no symmetry, but its rules keep {what.described()} (checked "
            f"on every guess and secret): the search uses it, {saving}; declaring it "
            f"(symmetry() returning {what.declaration()}) skips this search"
        )
    else:
        say(
            f"{game} declares no symmetry, but its feedback looks unchanged by "
            f"{what.described()} on a sample (not used: not checked on a whole table, or "
            f"a hard mode, costs or feedback_action may not keep it); if its rules keep "
            f"it, declaring it (symmetry() returning {what.declaration()}) leaves {saving}"
        )
