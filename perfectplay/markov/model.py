"""The rules protocol of a Markov game: what a game module writes, and nothing else.

A state is an integer code (a canonical encoding chosen by the game). For a batch of
states the game returns its chance outcomes (integer weights, so probabilities are exact
rationals) and, after each outcome, the player's choices of next state with their cost.
"Roll, then choose" is one step; "choose, then chance" is a choice leading to a state
whose only content is the pending chance event (its outcomes each have one forced choice
of cost 0). Rules are written once, vectorised over the batch, and read by the solver,
the simulator and the advisor alike.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, ClassVar

import numpy as np

from ..errors import BadParameter, PerfectplayError, missing_rule
from ..game import Game
from .stage_model import Stages, game_over, staged_expansion, state_code

#: What a Markov game must define (named in the error when one is missing).
NEEDS = "a Markov game defines initial_state, and compiled_rules or is_terminal and expand"


class BadOutcome(PerfectplayError):
    """A chance outcome a person wrote that the game cannot read (``parse_outcome``)."""


@dataclass(frozen=True)
class CompiledRules:
    """A game's compiled rules (``compiled_rules``, written with ``compiled.rules_kernel``):
    its integer parameters, the padded sizes K (outcomes) and C (choices), and its three
    cached wrappers around ``compiled.expand_batch``, ``reach`` and ``fill``; a game with a
    ``cycle_span`` may add a fourth, around ``streamed.solve_blocks`` (solved as
    explored, no graph kept), and one around ``recomputed.solve_recomputed`` (solved with
    the rules evaluated again at every sweep, a few bytes a state, where the graph would
    not fit in memory)."""

    params: np.ndarray
    outcomes: int
    choices: int
    expand_batch: Callable
    reach: Callable
    fill: Callable
    solve_blocks: Callable | None = None
    solve_recomputed: Callable | None = None


@dataclass
class Expansion:
    """Outcomes and choices for a batch of B states, padded to K outcomes and C choices.

    weight[b, k]   chance weight of outcome k (0 = no such outcome); the probability is
                   weight / weight[b].sum().
    next[b, k, c]  state code after choice c following outcome k (-1 = no such choice).
    cost[b, k, c]  cost of that choice (a non-negative integer), or the points it pays
                   for a game that pays a score (``MarkovGame.pays``).
    """

    weight: np.ndarray
    next: np.ndarray
    cost: np.ndarray


class MarkovGame(Game):
    """Base class of Markov games (seed 001's dice and cards, seed 003's Tricky Trios)."""

    kind: ClassVar[str] = "markov"
    objectives: ClassVar[tuple[str, ...]] = ("expected", "probability")
    #: What ``state_family`` measures, for plots.
    family_label: ClassVar[str] = "state family"
    #: Names of the kinds of choice ``choice_kinds`` tells apart (empty: not labelled);
    #: ``show`` summarises a solved policy by kind.
    choice_kind_names: ClassVar[tuple[str, ...]] = ()

    def initial_state(self) -> int:
        st = self.stages()
        if st is not None:  # the start stage's first node
            return state_code(st, st.start, 0)
        raise missing_rule(self, "initial_state", NEEDS)

    def compiled_rules(self) -> CompiledRules | None:
        """The rules as one numba function per state (``markov/compiled.py``), or None.

        A game that gives them needs neither ``is_terminal`` nor ``expand``: both are
        derived from them, and the solver explores the game compiled end to end."""
        return None

    def is_terminal(self, states: np.ndarray) -> np.ndarray:
        """Boolean array: which of `states` end the game (the goal)."""
        st = self.stages()
        if st is not None:
            return np.asarray(states) == game_over(st)
        return self._compiled_batch(states, "is_terminal")[0]

    def expand(self, states: np.ndarray) -> Expansion:
        """Outcomes and choices of non-terminal `states` (an int64 array)."""
        st = self.stages()
        if st is not None:
            weight, nxt, cost = staged_expansion(st, states)
        else:
            _, weight, nxt, cost = self._compiled_batch(states, "expand")
        return Expansion(weight=weight, next=nxt, cost=cost)

    def _compiled_batch(self, states: np.ndarray, rule: str):
        rules = self.compiled_rules()
        if rules is None:
            raise missing_rule(self, rule, NEEDS)
        return rules.expand_batch(
            rules.params,
            np.ascontiguousarray(states, dtype=np.int64),
            rules.outcomes,
            rules.choices,
        )

    #: Whether visiting the states in decreasing code order is a good Gauss-Seidel order
    #: (states nearer the end first), vouched for by the game: the solver then sweeps in
    #: that order, over the states as explored (indexed in code order), and neither
    #: computes an order of its own nor renumbers the graph into one
    #: (``SpeedUps.code_order``: the same sweeps and policy rounds, the ordering and
    #: renumbering spared).
    ends_at_high_codes: ClassVar[bool] = False

    #: Codes c sharing c // cycle_span form a block, and the game vouches that every
    #: choice leads into its own block or to a lower code: its only cycles lie within
    #: blocks (0: no such promise). The solver then solves the blocks in increasing code
    #: order (``SpeedUps.blocks``) instead of seeking strong components: no depth-first
    #: walk and none of its four arrays per state; with a fourth compiled wrapper
    #: (``CompiledRules.solve_blocks``) a large game is solved as it is explored, no graph
    #: kept (``SpeedUps.streamed``). A choice found leading to a later block is an error
    #: naming the state.
    cycle_span: ClassVar[int] = 0

    #: Measured peak memory of a whole solve per state of ``state_bound()`` (bytes), for
    #: the up-front refusal of sizes that cannot fit; None: estimated from the choices of
    #: the start state instead.
    bytes_per_state: ClassVar[int | None] = None

    def stages(self) -> Stages | None:
        """The game's stages (``markov.stage_model``: turns of one shape, a template shared by
        all, an exit rule and the layers to solve), or None. A game that gives them is
        solved stage by stage, one value kept per stage, for the expected objective; it
        needs neither compiled rules, ``initial_state``, ``is_terminal`` nor ``expand``:
        they are derived from the stages (``stage_model.staged_expansion``), for the
        screens that walk a game's states."""
        return None

    def state_bound(self) -> int | None:
        """An upper bound on the number of reachable states, to refuse what cannot fit (by
        default, a game given by stages: every code of its stages and the end; else
        None, not known)."""
        st = self.stages()
        return None if st is None else game_over(st) + 1

    def code_bound(self) -> int | None:
        """One more than the largest state code, if known (lets exploration use a bitmap)."""
        return None

    def choice_kinds(self, states: np.ndarray, expansion: Expansion) -> np.ndarray:
        """The kind (an index into ``choice_kind_names``) of every choice of ``expansion``
        (the expansion of `states`), shape (B, K, C); only read where a choice exists."""
        raise NotImplementedError

    def describe_state(self, state: int) -> str:
        return str(state)

    def describe_outcome(self, state: int, k: int) -> str:
        return f"outcome {k}"

    def describe_choice(self, state: int, k: int, c: int) -> str:
        return f"choice {c}"

    def parse_outcome(self, state: int, text: str, outcomes: list[int]) -> int:
        """The chance outcome of `state` (one of `outcomes`) that a person wrote as `text`
        (``play --enter-chance``: what the dice of a game played at a table gave); by
        default the one whose ``describe_outcome`` reads the same (case and spaces aside).
        ``BadOutcome`` naming what may be written otherwise."""
        wanted = " ".join(text.lower().split())
        for k in outcomes:
            if " ".join(self.describe_outcome(state, k).lower().split()) == wanted:
                return k
        shown = ", ".join(repr(self.describe_outcome(state, k)) for k in outcomes[:4])
        more = ", ..." if len(outcomes) > 4 else ""
        raise BadOutcome(f"no outcome here reads {text!r} (they read {shown}{more})")

    def state_family(self, state: int) -> int:
        """A small integer grouping states for plots (e.g. cards still face up)."""
        return 0

    def parse_position(self, text: str) -> tuple[int, int]:
        """The state a person wrote (``play --position``: a game played elsewhere, advised
        from where it stands) and what the game paid or scored to get there; BadParameter
        (one line) where the game reads no position or `text` is not one."""
        raise BadParameter(f"{self.name} reads no position: it is played from its start")

    def turn(self, state: int, paid: int) -> int | None:
        """The turn a decision at `state` belongs to, as the game's players number their
        turns (Yahtzee: the boxes filled, plus one), `paid` being what the game paid (or
        scored) before it; None where the game numbers no turns (a review then numbers
        its decisions one by one)."""
        return None
