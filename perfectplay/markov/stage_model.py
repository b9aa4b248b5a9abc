"""The rules protocol of a game solved by stages (``MarkovGame.stages``): what such a
game declares, as the engine's staged solver (``markov/stages.py``) reads it.

A staged game declares a **turn template** (`Template`): one small acyclic Markov graph
shared by every stage, given once as arrays: chance nodes with integer weights and
decision nodes with choices, node 0 first, every edge leading to a later node or to an
**exit slot** (for Yahtzee the 252 final rolls); its edges may pay points of their own.
And a vectorised **exit rule** ``exits(stages) -> (points, next)``: for a batch of B
stage codes, arrays (B, slots, options) of the points of each option at each exit slot
and the stage it leads to (``END``: the game ends with those points; ``NONE``: no such
option). And the **layers** of the stages to solve (arrays of stage codes, solved first
to last: every exit of a stage leads to a stage of an earlier layer, back to the stage
itself (a bust: its value is then its turn's fixed point), or ends the game).

A game whose stages come in **groups** that share everything but a few numbers (Yahtzee:
the 64 upper totals of one set of filled boxes) may say so (``lanes``: stage codes
``group * lanes + lane``) and give a compiled **exit-value rule** ``exit_values(groups,
firsts, values, sign, out)``: for each block b, lanes ``firsts[b]`` to ``firsts[b] + 63``
of group ``groups[b]`` side by side, every slot's best option (``out[b, slot, i]`` for
lane ``firsts[b] + i``: the option's points times `sign` plus the value of the stage it
leads to in `values`, ``-inf`` where a slot has no option; any finite number for a lane
past the group's last). The engine then solves a block's 64 lanes side by side, each
template edge read once for all of them, and holds the rule to ``exits`` on the first
and the last block of every layer (``markov/stages.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Callable

import numpy as np

from ..errors import IncompleteRules

#: Template node kinds.
CHANCE = 0
DECISION = 1
#: ``next`` of an exit option: the game ends with the option's points; no such option.
END = -1
NONE = -2
#: The most stages whose exits ``staged_expansion`` asks the rule for at once (Yahtzee's:
#: 252 slots x 13 options of 16 bytes a stage, 13 MB).
EXIT_BATCH = 256


@dataclass(frozen=True)
class Template:
    """The turn every stage shares: nodes 0..N-1 (node 0 the turn's start), each a chance
    node (``CHANCE``) or a decision node (``DECISION``), its edges ``start[i]`` to
    ``start[i + 1]`` of ``target``, ``weight`` and ``points``. A target below N is a node,
    and must be later than its own node (the template is acyclic, in order); a target N + s
    is exit slot s. A chance node's edges have positive integer weights (the chance of an
    edge is its weight over the node's total); a decision node's weights are not read.
    ``points`` are what an edge pays (or costs) on its own, in the game's terms."""

    kind: np.ndarray
    start: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    points: np.ndarray
    slots: int

    @property
    def nodes(self) -> int:
        return len(self.kind)

    def check(self) -> None:
        """Refuse, in one line, a template whose arrays do not describe an acyclic turn."""
        n, edges = self.nodes, len(self.target)
        if n == 0 or len(self.start) != n + 1 or self.start[0] != 0 or self.start[-1] != edges:
            raise IncompleteRules("stage template: start must hold N + 1 edge offsets, 0 to E")
        if len(self.weight) != edges or len(self.points) != edges:
            raise IncompleteRules("stage template: target, weight and points differ in length")
        owner = np.repeat(np.arange(n), np.diff(self.start))
        if np.any(np.diff(self.start) <= 0):
            raise IncompleteRules(
                f"stage template: node {int(np.argmin(np.diff(self.start)))} has no edge"
            )
        bad = (self.target <= owner) | (self.target >= n + self.slots)
        if bad.any():
            i = int(np.argmax(bad))
            raise IncompleteRules(
                f"stage template: node {owner[i]}'s edge to {self.target[i]} leads neither to a "
                f"later node nor to one of the {self.slots} exit slots"
            )
        chance = self.kind[owner] == CHANCE
        if np.any(chance & (self.weight <= 0)):
            raise IncompleteRules("stage template: a chance edge's weight is not positive")

    @cached_property
    def flat(self) -> tuple[dict[tuple[int, int], int], ...]:
        """Each node as a person sees it (``staged_expansion``): a decision node's choices
        are the nodes or slots its decisions lead to through further decisions that no
        chance leads to (Yahtzee: every keep within a roll, where the template removes one
        die at a time; keeping all five leads to the next roll's decision), a chance
        node's outcomes those its chances lead to through further chances, with their
        weights multiplied out (the roll of five dice, where the template rolls one at a
        time); only through edges that pay nothing. Node -> {(target, points): weight}
        (a decision's weights 1)."""
        flat: list[dict[tuple[int, int], int]] = [{}] * self.nodes
        totals = [1] * self.nodes
        owner = np.repeat(np.arange(self.nodes), np.diff(self.start))
        by_chance = set(self.target[self.kind[owner] == CHANCE].tolist())
        for i in range(self.nodes - 1, -1, -1):
            edges = range(self.start[i], self.start[i + 1])
            paid = [int(round(self.points[e])) for e in edges]
            to = [int(self.target[e]) for e in edges]
            inner = [
                t < self.nodes and p == 0 and self.kind[t] == self.kind[i] for t, p in zip(to, paid)
            ]
            if self.kind[i] == DECISION:
                inner = [x and t not in by_chance for x, t in zip(inner, to)]
                choices: dict[tuple[int, int], int] = {}
                for t, p, x in zip(to, paid, inner):
                    choices.update(flat[t] if x else {(t, p): 1})
                flat[i] = choices
                continue
            scale = math.lcm(*(totals[t] for t, x in zip(to, inner) if x))
            weights: dict[tuple[int, int], int] = {}
            for e, t, p, x in zip(edges, to, paid, inner):
                w = int(self.weight[e])
                if x:
                    for leaf, wl in flat[t].items():
                        weights[leaf] = weights.get(leaf, 0) + w * wl * (scale // totals[t])
                else:
                    weights[t, p] = weights.get((t, p), 0) + w * scale
            common = math.gcd(*weights.values())
            flat[i] = {leaf: w // common for leaf, w in weights.items()}
            totals[i] = sum(flat[i].values())
        return tuple(flat)

    @cached_property
    def rows(self) -> tuple[np.ndarray, int]:
        """Where a backward pass keeps each node's and exit slot's values: ``row[x]`` for
        node or slot x (slot s is N + s), rows used again once their last reader is
        computed, and how many rows that takes (Yahtzee's turn: 463, not 1,597: a
        pass's working set a quarter as large, kept in the processor's cache)."""
        n = self.nodes
        owner = np.repeat(np.arange(n), np.diff(self.start))
        last = np.full(n + self.slots, n)  # the first node, in order, to read x
        np.minimum.at(last, self.target, owner)
        row = np.full(n + self.slots, -1, dtype=np.int64)
        free: list[int] = []
        used = 0
        freed_at: dict[int, list[int]] = {}
        for x in [*range(n, n + self.slots), *range(n - 1, -1, -1)]:
            if free:
                row[x] = free.pop()
            else:
                row[x], used = used, used + 1
            freed_at.setdefault(int(last[x]), []).append(x)
            if x < n:
                free += [int(row[y]) for y in freed_at.pop(x, [])]
        return row, used

    def chances(self) -> np.ndarray:
        """Each edge's probability (chance nodes) or 0 (decision nodes)."""
        totals = np.add.reduceat(self.weight, self.start[:-1]).astype(np.float64)
        owner = np.repeat(np.arange(self.nodes), np.diff(self.start))
        return np.where(self.kind[owner] == CHANCE, self.weight / totals[owner], 0.0)


@dataclass(frozen=True)
class Stages:
    """A game's stages (``MarkovGame.stages``): how many stage codes there are (0 to
    count - 1), the layers to solve in order, the start stage, the turn template, how many
    options an exit slot has, and the exit rule (see the module docstring)."""

    count: int
    layers: tuple[np.ndarray, ...]
    start: int
    template: Template
    options: int
    exits: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    #: Stage codes per group (``group * lanes + lane``), when ``exit_values`` is given.
    lanes: int = 1
    #: The compiled exit-value rule of a whole group (module docstring), or None: the
    #: engine then computes each stage's from ``exits``.
    exit_values: Callable[[np.ndarray, np.ndarray, np.ndarray, float, np.ndarray], None] | None = (
        None
    )

    #: The options at one exit slot of each stage, ``exit_options(stages, slots) ->
    #: (points, next)`` of shape (B, options), as ``exits`` gives them there; or None:
    #: read from ``exits`` (``options_at``). A game may give it where its whole exit
    #: arrays cost much more than one slot's (the simulation asks a slot a turn).
    exit_options: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]] | None = None

    def options_at(self, stages: np.ndarray, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The points and next stage of every option at exit slot slots[b] of stage
        stages[b] (arrays (B, options)): ``exit_options``, or the exit rule's arrays of
        each stage asked once."""
        stages = np.asarray(stages, dtype=np.int64)
        slots = np.asarray(slots, dtype=np.int64)
        if self.exit_options is not None:
            points, nxt = self.exit_options(stages, slots)
        else:
            asked, which = np.unique(stages, return_inverse=True)
            points = np.empty((len(stages), self.options))
            nxt = np.empty((len(stages), self.options), dtype=np.int64)
            for a in range(0, len(asked), EXIT_BATCH):
                p, n = self.exits(asked[a : a + EXIT_BATCH])
                rows = (which >= a) & (which < a + EXIT_BATCH)
                points[rows] = p[which[rows] - a, slots[rows]]
                nxt[rows] = n[which[rows] - a, slots[rows]]
        return np.asarray(points, dtype=np.float64), np.asarray(nxt, dtype=np.int64)

    @property
    def width(self) -> int:
        """State codes per stage: the template's nodes and its exit slots."""
        return self.template.nodes + self.template.slots

    @cached_property
    def one_state(self) -> Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """``staged_expansion`` of one state, kept for the last states asked (read-only):
        the screens ask the rules about each outcome and choice of a state in turn (a
        roll's 252 outcomes described, each one's best choice), one expansion serving all."""

        def expand(state: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            arrays = _expansion(self, np.array([state], dtype=np.int64))
            for a in arrays:
                a.flags.writeable = False
            return arrays

        return lru_cache(maxsize=64)(expand)


def state_code(st: Stages, stage: int, node: int) -> int:
    """The state code of `node` (a template node, or nodes + s for exit slot s) of
    `stage`: a staged game is a Markov game too, its states numbered stage by stage."""
    return stage * st.width + node


def game_over(st: Stages) -> int:
    """The code of the one terminal state (after a last exit, ``END``)."""
    return st.count * st.width


def staged_expansion(st: Stages, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outcomes and choices of states of a staged game (``state_code``), as
    ``Expansion`` holds them (weight, next, cost), the template read as a person sees it
    (``Template.flat``): a chance node's outcomes each with one choice; a decision node's
    one outcome with its choices; an exit slot's one outcome with the stage's options
    there as choices (leading to node 0 of their stage, or to ``game_over``). Points are
    whole numbers on this path. One state's is computed once (``Stages.one_state``)."""
    states = np.asarray(states, dtype=np.int64)
    if states.shape == (1,):
        return st.one_state(int(states[0]))
    return _expansion(st, states)


def _expansion(st: Stages, states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``staged_expansion``, computed: the exit rule asked once for each stage of the
    exit slots among `states` (in batches of EXIT_BATCH stages), not once a slot."""
    t = st.template
    stage, node = np.divmod(states, st.width)
    flats = [t.flat[n] if n < t.nodes else {} for n in node.tolist()]
    chance = [n < t.nodes and t.kind[n] == CHANCE for n in node.tolist()]
    k_max = max([1] + [len(f) for f, c in zip(flats, chance) if c])
    c_max = max([1, st.options] + [len(f) for f, c in zip(flats, chance) if not c])
    b = len(states)
    weight = np.zeros((b, k_max), dtype=np.int64)
    nxt = np.full((b, k_max, c_max), -1, dtype=np.int64)
    cost = np.zeros((b, k_max, c_max), dtype=np.int64)
    slots = np.flatnonzero(node >= t.nodes)
    asked, of_slot = np.unique(stage[slots], return_inverse=True)
    for a in range(0, len(asked), EXIT_BATCH):  # (the rule's arrays: slots x options a stage)
        points, to = st.exits(asked[a : a + EXIT_BATCH])
        rows = (of_slot >= a) & (of_slot < a + EXIT_BATCH)
        here, which = slots[rows], of_slot[rows] - a
        to = to[which, node[here] - t.nodes]
        paid = np.rint(points[which, node[here] - t.nodes]).astype(np.int64)
        weight[here, 0] = 1
        to_code = np.where(to >= 0, to * st.width, -1)
        nxt[here, 0, : st.options] = np.where(to == END, game_over(st), to_code)
        cost[here, 0, : st.options] = np.where(to == NONE, 0, paid)
    for i in np.flatnonzero(node < t.nodes).tolist():
        base = stage[i] * st.width
        leaves = list(flats[i].items())
        if chance[i]:
            for k, ((leaf, paid), w) in enumerate(leaves):
                weight[i, k], nxt[i, k, 0], cost[i, k, 0] = w, base + leaf, paid
        else:
            weight[i, 0] = 1
            for c, ((leaf, paid), _) in enumerate(leaves):
                nxt[i, 0, c], cost[i, 0, c] = base + leaf, paid
    return weight, nxt, cost
