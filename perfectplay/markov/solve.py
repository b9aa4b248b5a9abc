"""Solve a Markov game for an objective: compile, iterate in floats, then prove exactly."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..errors import PerfectplayError, Unsupported
from ..memory import available, refuse_beyond, size_text
from ..objectives import Objective
from ..progress import Silent
from ..solution import CONVERGED, FLOATING, PROVEN, Solution
from .by_components import OK as OK_STATUS
from .compile import (
    Pairs,
    check_memory,
    compile_game,
    explores_compiled,
    graph_bytes,
    narrowest,
    reach_compiled,
)
from .exact import TooLarge, to_fraction
from .model import MarkovGame
from .policy import Policy
from .speedups import SpeedUps
from . import contract
from .structure import (
    FREE_CYCLE_MESSAGE,
    NEVER_ENDS_MESSAGE,
    check_no_free_cycles,
    check_no_paying_cycles,
    components,
    horizon_order,
    solve_order,
)

if TYPE_CHECKING:
    from .by_components import Limits

#: Default limits of the exact stage (states in the graph, states in one cycle block,
#: and state-budget-edge work for the exact horizon recursion).
EXACT_STATES = 300_000
EXACT_BLOCK = 1_100
EXACT_HORIZON_WORK = 5_000_000
#: Value iteration warms policy iteration up to WARM_START relative change per sweep; if
#: the greedy policy then is still rough (a strong component of more than ROUGH_SHARE of
#: the states and more than LOCAL_BLOCK: its evaluation would be slow iterations over a
#: large block), the sweeps go on, halving the tolerance, down to WARM_TOL at most, where
#: the policy is evaluated whatever it is. Strong components of a policy up to MAX_DENSE
#: states are evaluated by a dense solve. (Dice-cards n=10: its greedy policy is rough at
#: 5e-2 after 26 sweeps, a component of 794,565 states, and differs from the optimal one
#: in 7,872 of 57.7M outcomes at 3e-2 after 38 sweeps, components of at most 768 states;
#: WARM_TOL took 67 sweeps; ``SpeedUps.warm`` off warms up to WARM_TOL at once, as before.)
WARM_START = 3e-2
WARM_TOL = 1e-2
ROUGH_SHARE = 0.01
MAX_DENSE = 400
#: Strong components up to this size are solved where Tarjan completes them
#: (``by_components``); a graph with a larger one goes to sweeps and policy iteration.
#: (A game's declared blocks, ``MarkovGame.cycle_span``, are solved as blocks whatever
#: their size: a block holds at most ``cycle_span`` states, and its room is made for
#: that many: ``_block_room``.)
LOCAL_BLOCK = 1000
#: ... and the depth-first search keeps at most this many states on its stacks (16 bytes
#: each); a deeper one also goes to the sweeps.
LOCAL_STACK = 1 << 22
#: Room for its blocks up to this many bytes never keeps a game that may be solved as
#: explored (``streamed``) from it; beyond, only room smaller than the graph it spares.
STREAM_ROOM = 64 * 2**20
#: A graph of at most this many states is swept in its visiting order as it is numbered,
#: not renumbered into that order (``_visiting_order``): its arrays stay in the cache, so
#: reading them in order gains nothing, and the renumbering's seven kernels are not
#: loaded from numba's disk cache (docs/measurements.md).
RENUMBER_STATES = 1 << 14
#: Sweeps per kernel call between progress reports (and chances for Ctrl-C: a compiled
#: call cannot be interrupted), at most about EDGES_PER_CALL edges' work per call;
#: policy rounds before giving up.
SWEEP_CHUNK = 20
EDGES_PER_CALL = 30_000_000
MAX_ROUNDS = 1000


def solve_markov(
    game: MarkovGame,
    objective: Objective = Objective(),
    *,
    tol: float = 1e-12,
    exact: bool | None = None,
    max_sweeps: int = 10_000_000,
    progress: Silent | None = None,
    compiled: bool | None = None,
    speedups: SpeedUps = SpeedUps(),
    note: Callable[[str], None] | None = None,
    graph: str | None = None,
    distribution: bool = False,
    cluster: str | None = None,
) -> Solution:
    """Solve `game` for `objective`.

    ``compiled`` chooses the exploration (``compile_game``): None uses the game's compiled
    rules when it has them, False forces the generic vectorised path.

    The float stage ends when no value changes by more than `tol` (relative) in a sweep;
    exact=None then runs the exact stage where sizes allow (True insists, False skips).
    `speedups` (``markov.speedups.SpeedUps``) switches speed-ups off: the value stays.
    `note` receives a remark for the person when the solve cannot take a way the game
    asked for (the command line prints it).
    `graph` picks how the expected objective's graph is held: "stored" (explored and
    kept), "recomputed" (the rules evaluated again at every sweep: ``recomputed``; a game
    that gives the wrapper for it) or None: stored where it fits in the memory available,
    else recomputed where the game can be, else refused as too large. The solution's
    stats say which (``graph``).
    `distribution`: a game solved by stages also gives its final score's distribution
    (``stages.solve_stages``). `cluster` (a Dask cluster: ``local:N`` or a scheduler's
    address): a game solved by stages splits each layer over its workers.
    """
    if not 0 < tol < 1:
        raise Unsupported(f"tolerance must be between 0 and 1, got {tol}")
    if speedups.stages and game.stages() is not None:
        from .stages import solve_stages

        from .stage_proof import proof_refusal, prove_stages

        if objective.name == "probability":
            if exact:
                raise Unsupported(
                    f"{game.name}: a target score is solved by stages in floats: --exact is "
                    "refused (--without stages solves a small one as a graph, exactly)"
                )
            from .stage_target import solve_target

            return solve_target(game, objective, progress, cluster)
        refusal = proof_refusal(game.stages())
        if exact and refusal is not None:
            raise Unsupported(
                f"{game.name} is solved by stages, in floats: --exact is refused ({refusal})"
            )
        sol = solve_stages(game, objective, progress, distribution, cluster)
        if exact is not False:
            prove_stages(game, sol)
        return sol
    if cluster is not None:
        raise Unsupported(
            f"{game.name}: --cluster splits the layers of a game solved by stages (Yahtzee, "
            "Yatzy) or a deduction game's cells; this game is solved on this machine"
        )
    progress = progress or Silent()
    t0 = time.perf_counter()
    progress.stage("exploring", unit="states")
    reached = None
    rules = explores_compiled(game, compiled)
    if graph not in (None, "stored", "recomputed"):
        raise Unsupported(f"graph must be 'stored' or 'recomputed', not {graph!r}")
    recomputes = objective.name == "expected" and _recomputes(game, rules)
    if graph == "recomputed" and not recomputes:
        raise Unsupported(
            f"{game}: its graph cannot be recomputed (the expected objective of a game of "
            "costs whose compiled rules give solve_recomputed)"
        )
    if recomputes and graph != "stored":
        reached = reach_compiled(game, rules, graph_must_fit=False)
        why = _recompute_reason(game, reached, graph)
        if why is not None:
            if exact:
                raise Unsupported(f"exact solve refused: {why}")
            (note or (lambda _: None))(why)
            sol = _solve_recomputed(game, rules, reached, tol, max_sweeps, progress, t0)
            sol.objective = objective
            return sol
        reached = reach_compiled(game, rules, reached=reached)  # the graph's refusal
    if objective.name == "expected" and _streams(game, rules, speedups):
        check_memory(game)
        reached = reached or reach_compiled(game, rules)
        if reached.states > EXACT_STATES:
            if exact:
                raise Unsupported(
                    f"exact solve refused: {reached.states:,} states exceed {EXACT_STATES:,}"
                )
            refusal = _stream_refusal(game, rules, reached)
            if refusal is None:
                sol = _solve_streamed(game, rules, reached, tol, max_sweeps, progress, t0)
                sol.objective = objective
                return sol
            (note or (lambda _: None))(refusal)
    g = compile_game(game, progress=progress, compiled=compiled, reached=reached)
    paying = check_no_paying_cycles(game, g) if game.pays else None
    stats = {
        "states": g.n_states,
        "outcomes": len(g.weight),
        "choices": g.n_edges,
        "graph": "stored",
        "compile_seconds": round(time.perf_counter() - t0, 4),
    }
    if objective.name == "expected":
        sol = _solve_expected(game, g, tol, exact, max_sweeps, stats, progress, speedups, note)
        _in_game_terms(game, sol)
    elif objective.name == "probability":
        check_no_free_cycles(g)
        sol = _solve_horizon(game, g, objective.horizon, exact, stats, paying)
    else:
        raise Unsupported(f"{game.name} does not support objective {objective.name!r}")
    sol.objective = objective
    stats["seconds"] = round(time.perf_counter() - t0, 4)
    return sol


def _in_game_terms(game: MarkovGame, sol: Solution) -> None:
    """Turn an expected-objective solution of a game that pays a score back into points,
    in place: the engine minimized the points negated (``compile``), so the value and
    every state's value are negated once, here; every reader then reads the game's own
    terms (``MarkovGame.pays``, ``measure.Measure``)."""
    if not game.pays:
        return
    sol.value = -sol.value
    policy = sol.strategy
    values = policy.values
    policy.values = -values if isinstance(values, np.ndarray) else [-v for v in values]


def _streams(game, rules, speedups: SpeedUps) -> bool:
    """Whether a game explored compiled (`rules`) may be solved as it is explored, block by
    block, its graph not kept (``streamed``): its blocks vouched for and solvable so, and
    its numbers costs (a game that pays a score is solved from its graph, where its
    points are negated and its cycles checked)."""
    return (
        not game.pays
        and rules is not None
        and rules.solve_blocks is not None
        and speedups.streamed
        and speedups.blocks
        and game.cycle_span > 0
    )


def _recomputes(game, rules) -> bool:
    """Whether a game explored compiled (`rules`) can be solved with its rules evaluated
    again at every sweep (``recomputed``): it gives the wrapper, and its numbers are
    costs (a game that pays is solved from its graph, where its points are negated and
    its cycles checked)."""
    return rules is not None and rules.solve_recomputed is not None and not game.pays


def _recompute_reason(game, reached, graph: str | None) -> str | None:
    """Why the graph of a `reached` game is recomputed rather than stored (`graph`:
    "recomputed" asked; None: the stored graph would not fit in the memory available),
    or None: stored. A recomputed solve that would not fit either is refused in one
    line."""
    from .recomputed import recomputed_bytes

    stored, free = graph_bytes(reached.states, reached.choices), available()
    if graph is None and stored <= free:
        return None
    bound = 64 * len(reached.bits)
    span = game.cycle_span or bound
    need = recomputed_bytes(reached.states, bound, span, *_padded(game))
    refuse_beyond(
        need,
        f"{game} is too large: its {reached.states:,} states, with {reached.choices:,} "
        "choices, even with the rules recomputed at every sweep,",
        "try smaller parameters",
        free,
    )
    why = (
        "as asked"
        if graph
        else f"its graph of {size_text(stored)} would not fit in the {size_text(free)} available"
    )
    return (
        f"{game}: the rules are recomputed at every sweep ({why}): {reached.states:,} "
        f"states in {size_text(need)}, about {need // max(reached.states, 1)} bytes a state"
    )


def _padded(game) -> tuple[int, int]:
    """The padded outcomes and choices of a game's compiled rules."""
    rules = game.compiled_rules()
    return rules.outcomes, rules.choices


def _solve_recomputed(game, rules, reached, tol, max_sweeps, progress, t0) -> Solution:
    """Values of a game solved with its rules evaluated again at every sweep
    (``recomputed``): no graph, no choices kept (the policy reads its choices from the
    values and the rules: ``Policy.chosen`` None), no exact stage."""
    from .recomputed import solve_by_levels

    stats = {
        "states": reached.states,
        "outcomes": reached.outcomes,
        "choices": reached.choices,
        "graph": "recomputed",
        "compile_seconds": round(time.perf_counter() - t0, 4),
    }
    t = time.perf_counter()
    room = game.cycle_span or 64 * len(reached.bits)
    V, rank, facts = solve_by_levels(
        game, rules, reached, _limits(tol, max_sweeps, _block_room(room, reached.states)), progress
    )
    if facts["status"] != OK_STATUS:
        _check_status(game, facts["status"], facts["failing"], max_sweeps)
    stats.update(
        components=facts["blocks"],
        levels=facts["levels"],
        sweeps=facts["sweeps"],
        policy_rounds=0,
        iterate_seconds=round(time.perf_counter() - t, 4),
        seconds=round(time.perf_counter() - t0, 4),
    )
    return _without_graph(game, reached, rank, V, None, stats)


def _block_room(span: int, states: int) -> int:
    """The states one block of a game's `span` may hold (a block is the codes sharing
    ``code // span``: at most `span` of them, and no more than the game has)."""
    return max(1, min(span, states))


def _streamed_bytes(room: int, outcomes: int, choices: int) -> int:
    """The memory ``streamed.solve_blocks`` takes for blocks of `room` states padded to
    `outcomes` x `choices` each (its arrays, as it makes them): the block's graph with
    one exit slot per choice, its values and flags, the chosen choices."""
    return room * (41 * outcomes * choices + 24 * outcomes + 53)


def _graph_bytes(reached) -> int:
    """About what the kept graph of a `reached` game takes (``compile.Graph``'s arrays at
    their usual widths: 21 bytes a state, 9 an outcome, 6 a choice)."""
    return 21 * reached.states + 9 * reached.outcomes + 6 * reached.choices


def _stream_refusal(game, rules, reached) -> str | None:
    """Why a game whose blocks may be solved as explored is not (its graph kept and
    solved by blocks instead), or None: solved as explored unless the room its blocks
    need, padded to every outcome and choice the rules allow, exceeds both STREAM_ROOM
    and the graph it would spare."""
    room = _block_room(game.cycle_span, reached.states)
    need = _streamed_bytes(room, rules.outcomes, rules.choices)
    spared = _graph_bytes(reached)
    if need <= max(spared, STREAM_ROOM):
        return None
    return (
        f"{game}: its blocks (cycle_span {game.cycle_span:,}: up to {room:,} states of "
        f"{rules.outcomes} outcomes x {rules.choices} choices) need "
        f"{need / 2**20:,.0f} MiB to be solved as explored, more than the "
        f"{spared / 2**20:,.0f} MiB graph that would spare: the graph is kept and solved "
        "by blocks instead (a smaller cycle_span streams)"
    )


def _solve_streamed(game, rules, reached, tol, max_sweeps, progress, t0) -> Solution:
    """Values and greedy choices of a game of more than EXACT_STATES states solved block by
    block as the rules are read again (``streamed``): no graph kept, no exact stage."""
    from .by_components import OK
    from .prefault import writing

    stats = {
        "states": reached.states,
        "outcomes": reached.outcomes,
        "choices": reached.choices,
        "graph": "as explored",
        "compile_seconds": round(time.perf_counter() - t0, 4),
    }
    t = time.perf_counter()
    progress.stage("value iteration by blocks, as explored")
    bits = reached.bits
    V, rank = np.empty(reached.states), np.empty(len(bits), dtype=np.int32)
    chosen = np.empty(reached.outcomes, dtype=narrowest(reached.choices, low=np.int32))
    status, failing, blocks, most = writing(
        (V, chosen, rank),
        lambda: rules.solve_blocks(
            rules.params,
            bits,
            rules.outcomes,
            rules.choices,
            np.int64(game.cycle_span),
            _limits(tol, max_sweeps, _block_room(game.cycle_span, reached.states)),
            V,
            chosen,
            rank,
        ),
    )
    _check_status(game, status, int(failing), max_sweeps)
    if status != OK:  # BIG: a block over its room, which holds any block of the span
        raise PerfectplayError(f"{game}: a block of more than {game.cycle_span:,} states")
    stats.update(
        components=int(blocks),
        sweeps=int(most),
        policy_rounds=0,
        iterate_seconds=round(time.perf_counter() - t, 4),
        seconds=round(time.perf_counter() - t0, 4),
    )
    return _without_graph(game, reached, rank, V, chosen, stats)


def _without_graph(game, reached, rank, V, chosen, stats) -> Solution:
    """The float solution of a game solved without its graph (streamed as explored, or
    its rules recomputed): its states the codes `reached` numbered by `rank`, its values
    V, its choices `chosen` (None: read from the values and the rules)."""
    from .streamed import ReachedCodes

    explored = ReachedCodes(reached, rank, 0)
    explored.start = int(explored.index_of(np.array([contract.start(game)]))[0])
    return Solution(
        game=game.name,
        params=game.params,
        objective=None,
        value=float(V[explored.start]),
        exact=False,
        proven=False,
        status=CONVERGED,
        strategy=Policy(game, explored, chosen, V),
        stats=stats,
    )


def _check_status(game, status: int, code: int, max_sweeps: int) -> None:
    """A one-line error for a failed pass by components or blocks (`code`: the failing
    state's code); nothing for OK or BIG (the caller falls back to the global sweeps)."""
    from .by_components import FORWARD, FREE_CYCLE, NEVER_ENDS, NO_CONVERGENCE

    if status == FORWARD:
        raise PerfectplayError(
            f"{game}: a choice from state {code} leads to a later block of "
            f"its cycle_span {game.cycle_span}: the game's cycle_span is wrong"
        )
    if status == FREE_CYCLE:
        raise PerfectplayError(FREE_CYCLE_MESSAGE)
    if status == NEVER_ENDS:
        raise Unsupported(f"{game}: {NEVER_ENDS_MESSAGE}")
    if status == NO_CONVERGENCE:
        raise Unsupported(
            f"{game}: value iteration did not settle within {max_sweeps:,} sweeps "
            f"of one strong component (raise max_sweeps)"
        )


def _visiting_order(game, g, speedups: SpeedUps) -> tuple[Pairs, np.ndarray, bool]:
    """Check for zero-cost cycles and find Gauss-Seidel's visiting order (``solve_order``;
    decreasing codes for a game that ends at high codes, ``MarkovGame.ends_at_high_codes``);
    both passes walk the graph's ``Pairs`` layout, built first. A graph of more than
    RENUMBER_STATES states is then renumbered in that order (unless ``speedups.renumber``
    is off, or the order is the states' own order reversed: read backwards, the arrays
    stream as well). Returns (the layout, the order to sweep in, whether it is the
    game's code order)."""
    pairs = g.pairs()
    check_no_free_cycles(g, pairs)
    by_codes = game.ends_at_high_codes and speedups.code_order
    try:
        order = solve_order(g, pairs, by_codes).astype(np.int64)
    except PerfectplayError as why:
        raise Unsupported(f"{game}: {why}") from None
    backwards = by_codes and bool((order[:-1] == order[1:] + 1).all())
    if not speedups.renumber or g.n_states <= RENUMBER_STATES or backwards:
        return pairs, order, by_codes
    g.renumber(order, pairs)
    return pairs, np.arange(g.n_states, dtype=np.int64), by_codes


def _prove(game, g, best, V, stats, progress):
    """The exact proof streamed by components (``proof``), its memory estimated first,
    shown and held to the memory available: (the values: a list of rationals for a graph
    that keeps them all, else V's floats; the start's exact value; the most rounds of a
    component). ``TooLarge`` with the reason when it would not fit or cannot be made."""
    from .proof import SPARE, Plan, prove

    plan = Plan(g)
    stats["exact_memory"] = plan.estimate
    progress.stage(
        f"exact proof (rational arithmetic, about {size_text(plan.estimate)} beside the graph)",
        unit="components",
    )
    free = available()
    if plan.estimate > free - SPARE:
        raise TooLarge(
            f"the exact proof would take about {size_text(plan.estimate)} of memory, "
            f"more than the {size_text(max(free - SPARE, 0))} available"
        )
    kept, rounds = prove(g, best, V, EXACT_BLOCK, plan, progress)
    if plan.keeps_all:
        return [kept[s] for s in range(g.n_states)], kept[g.start], rounds
    return V, kept[g.start], rounds  # (the rationals other components read only: floats)


def _solve_expected(game, g, tol, exact, max_sweeps, stats, progress, speedups, note) -> Solution:
    t = time.perf_counter()
    progress.stage("value iteration by strong components")
    solved = _by_components(game, g, tol, max_sweeps, speedups) if speedups.components else None
    if solved is not None:
        V, best, n_components, most = solved
        stats.update(
            components=n_components,
            sweeps=most,
            policy_rounds=0,
            iterate_seconds=round(time.perf_counter() - t, 4),
        )
    else:  # a large cycle: sweeps over the whole graph in a good order, policy iteration
        pairs, order, by_codes = _visiting_order(game, g, speedups)
        stats["order_seconds"] = round(time.perf_counter() - t, 4)
        t = time.perf_counter()
        split = by_codes and speedups.halves and g.n_states > RENUMBER_STATES
        V, best, sweeps, rounds, change = _policy_iteration(
            g, pairs, order, tol, max_sweeps, progress, speedups, split
        )
        del pairs
        stats.update(
            sweeps=sweeps,
            policy_rounds=rounds,
            last_change=change,
            iterate_seconds=round(time.perf_counter() - t, 4),
        )
    values, value, is_exact, proven, status = V, float(V[g.start]), False, False, CONVERGED
    if exact is not False and g.n_states <= EXACT_STATES:
        t = time.perf_counter()
        try:
            proven_values, start_value, rounds = _prove(game, g, best, V, stats, progress)
        except TooLarge as why:
            if exact:
                raise Unsupported(f"exact solve refused: {why}") from None
            stats["exact_refused"] = str(why)
            (note or (lambda _: None))(f"{game}: the float answer, not proven exactly: {why}")
        else:
            values, value, is_exact, proven, status = (
                proven_values,
                to_fraction(start_value),
                True,
                True,
                PROVEN,
            )
            stats.update(exact_rounds=rounds, exact_seconds=round(time.perf_counter() - t, 4))
    elif exact:
        raise Unsupported(f"exact solve refused: {g.n_states:,} states exceed {EXACT_STATES:,}")
    return Solution(
        game=game.name,
        params=game.params,
        objective=None,
        value=value,
        exact=is_exact,
        proven=proven,
        status=status,
        strategy=Policy(game, g, best, values),
        stats=stats,
    )


def _by_components(game, g, tol, max_sweeps, speedups):
    """(values, greedy choices, components, most sweeps in one) when every strong
    component has at most LOCAL_BLOCK states and the search fits in LOCAL_STACK, or the
    game's declared blocks are taken instead, whatever their size (``by_components``),
    else None. The greedy choices of a graph of more than RENUMBER_STATES states are
    taken in two halves at once (``speedups.halves``)."""
    from .by_components import BIG, solve_by_components
    from .prefault import writing

    n = g.n_states
    span = _cycle_span(game, g, speedups)
    V, flags = np.empty(n), np.zeros(n, dtype=np.uint8)
    room = _block_room(span, n) if span else n  # a block's states, or Tarjan's for all
    order, starts, local = (
        np.empty(room, np.int32),
        np.empty(room + 1, np.int32),
        np.empty(room, np.int32),
    )
    status, failing, n_components, _, most = writing(
        (order, starts, local, V, flags),
        lambda: solve_by_components(
            g.rows,
            _limits(tol, max_sweeps, room if span else LOCAL_BLOCK),
            V,
            order,
            starts,
            local,
            flags,
            g.codes,
            span,
        ),
    )
    order = starts = local = flags = None  # freed: only the kernel needed them
    if status == BIG:
        return None
    _check_status(game, status, int(g.codes[failing]) if failing >= 0 else -1, max_sweeps)
    if speedups.halves and n > RENUMBER_STATES:
        from .halves import greedy
    else:
        greedy = _OneThread.greedy
    return V, greedy(V, g, Pairs.none().arrays()), n_components, most


def _limits(tol: float, max_sweeps: int, max_block: int) -> Limits:
    """The components pass's ``Limits``, a component or block of at most `max_block`
    states (of one type for every solve: each new type of a compiled argument is one
    compile more)."""
    from .by_components import Limits

    return Limits(float(tol), int(max_sweeps), int(max_block), LOCAL_STACK)


def _cycle_span(game, g, speedups: SpeedUps) -> int:
    """The game's ``cycle_span`` when the components pass may solve its blocks instead of
    seeking strong components: the switch on and the states indexed in code order (a
    compiled exploration's; a block's states are then consecutive); else 0."""
    span = game.cycle_span if speedups.blocks else 0
    return span if span > 0 and g.in_code_order else 0


def _sweep(V, order, g, pairs, tol, budget, progress, done) -> tuple[int, float]:
    """Gauss-Seidel sweeps until the relative change is at most `tol`, in chunks so that
    progress is shown and an interruption is noticed. Returns (sweeps, last change)."""
    from .kernels import gauss_seidel_sweeps

    sweeps, delta = 0, np.inf
    chunk = max(1, min(SWEEP_CHUNK, EDGES_PER_CALL // max(1, g.n_edges)))
    while delta > tol and sweeps < budget:
        n, delta = gauss_seidel_sweeps(V, order, g.rows, pairs, tol, min(chunk, budget - sweeps))
        sweeps += int(n)
        progress.update(done + sweeps, f"change {delta:.1e}")
    return sweeps, float(delta)


class _OneThread:
    """The float stage's three passes over the whole graph, on the calling thread."""

    sweep = staticmethod(_sweep)

    @staticmethod
    def greedy(V, g, pairs):
        from .kernels import greedy_choices

        return greedy_choices(V, g.out_ptr, g.choice_ptr, g.target, g.cost, pairs)

    @staticmethod
    def improve(V, best, g, pairs):
        from .kernels import improve_choices

        return improve_choices(
            V, best, g.out_ptr, g.choice_ptr, g.target, g.cost, pairs, 0, g.n_states
        )


def _policy_iteration(g, pairs, order, tol, max_sweeps, progress, speedups, split):
    """Optimal values and policy in floats, the states swept in `order`: Gauss-Seidel
    sweeps to a warm start, then policy iteration, each policy evaluated directly one
    strong component at a time (its outcomes merged by the pair they choose,
    ``policy_rows``), then sweeps until no value changes by more than `tol` (relative)
    in a sweep. With `split`, swept and improved in two halves at once (``halves``)."""
    from .kernels import evaluate_blocks, policy_rows

    if split:
        from . import halves as run
    else:
        run = _OneThread
    merged = pairs.arrays() if speedups.merged else Pairs.none().arrays()
    pairs = pairs.arrays() if speedups.packed else Pairs.none().arrays()
    V = np.where(g.terminal, 0.0, np.inf)
    warm = max(tol, WARM_START if speedups.warm else WARM_TOL)
    progress.stage("value iteration", unit="sweeps")
    sweeps, _ = run.sweep(V, order, g, pairs, warm, max_sweeps, progress, 0)
    best = run.greedy(V, g, pairs)
    rounds = 0
    progress.stage("policy iteration", unit="rounds")
    while True:
        rows = policy_rows(g.out_ptr, g.weight, best, g.target, g.cost, merged)
        labels = components(rows[0], rows[2])
        if rounds == 0 and warm > WARM_TOL and _rough(labels):  # warm up further first
            warm = max(tol, WARM_TOL, warm / 2)
            more, _ = run.sweep(V, order, g, pairs, warm, max_sweeps - sweeps, progress, sweeps)
            sweeps += more
            best = run.greedy(V, g, pairs)
            continue
        rounds += 1
        block_order = np.argsort(labels, kind="stable")
        block_ptr = np.concatenate(
            ([0], np.flatnonzero(np.diff(labels[block_order])) + 1, [g.n_states])
        ).astype(np.int64)
        trial = V.copy()
        if not evaluate_blocks(trial, block_order, block_ptr, labels, *rows, g.denom, MAX_DENSE):
            # an improper policy (it never finishes from somewhere): sweep closer, retry
            if sweeps >= max_sweeps or rounds >= MAX_ROUNDS:
                raise Unsupported(
                    f"no policy that finishes was found within {sweeps:,} sweeps "
                    f"and {rounds} policy rounds (raise max_sweeps)"
                )
            warm = max(tol, warm / 1000)
            more, _ = run.sweep(V, order, g, pairs, warm, max_sweeps - sweeps, progress, sweeps)
            sweeps += more
            best = run.greedy(V, g, pairs)
            continue
        V = trial
        changed = run.improve(V, best, g, pairs)
        progress.update(rounds, f"{changed:,} choices changed")
        if changed == 0:
            break
        if rounds >= MAX_ROUNDS:
            raise Unsupported(f"policy iteration did not settle in {MAX_ROUNDS} rounds")
    more, change = run.sweep(V, order, g, pairs, tol, max(1, max_sweeps - sweeps), progress, sweeps)
    if more > 1:  # the sweeps moved the values: take the greedy policy of the final ones
        best = run.greedy(V, g, pairs)
    return V, best, sweeps + more, rounds, change


def _rough(labels: np.ndarray) -> bool:
    """Whether a policy's strong components (`labels`) show it still rough: one holds
    more than LOCAL_BLOCK states and more than ROUGH_SHARE of them (see WARM_START)."""
    return int(np.bincount(labels).max()) > max(LOCAL_BLOCK, ROUGH_SHARE * len(labels))


def _solve_horizon(game, g, H, exact, stats, paying: np.ndarray | None) -> Solution:
    """The best chance to finish within (or score at least) `H`, by backward induction
    over the budget; `paying`: the choice graph's components of a game that pays
    (``check_no_paying_cycles``), None for a game of costs."""
    from .horizon import horizon_exact, horizon_layers

    pays = bool(game.pays)
    order = horizon_order(g, paying).astype(np.int64)
    work = g.n_states * (H + 1) * max(1, g.n_edges // max(1, g.n_states))
    if exact is not False and work <= EXACT_HORIZON_WORK:
        t = time.perf_counter()
        P, chosen = horizon_exact(g, H, order, pays)
        stats["exact_seconds"] = round(time.perf_counter() - t, 4)
        value = to_fraction(P[g.start])
        return Solution(
            game=game.name,
            params=game.params,
            objective=None,
            value=value,
            exact=True,
            proven=True,
            status=PROVEN,
            strategy=Policy(game, g, chosen, P),
            stats=stats,
        )
    # The same backward induction in floats: optimal up to rounding, not proven.
    if exact:
        raise Unsupported(
            f"exact horizon solve refused: ~{work:,} steps exceed {EXACT_HORIZON_WORK:,}"
        )
    P = horizon_layers(
        H, order, g.terminal, g.out_ptr, g.weight, g.denom, g.choice_ptr, g.target, g.cost, pays
    )
    chosen = np.stack([_horizon_choices(g, P, h, pays) for h in range(H + 1)])
    return Solution(
        game=game.name,
        params=game.params,
        objective=None,
        value=float(P[H, g.start]),
        exact=False,
        proven=False,
        status=FLOATING,
        strategy=Policy(game, g, chosen, P[H]),
        stats=stats,
    )


def _horizon_choices(g, P, h, pays: bool) -> np.ndarray:
    """Best edge per outcome with budget h, from the float table P (ties to the lowest)."""
    from .horizon import budget_after

    left = budget_after(h, g.cost.astype(np.int64), pays)
    q = np.where(left >= 0, P[np.maximum(left, 0), g.target], -1.0)
    e_out = g.edge_outcome()
    best = np.full(len(g.weight), -2.0)
    np.maximum.at(best, e_out, q)
    is_best = q >= best[e_out]
    first = np.full(len(g.weight), len(q), dtype=np.int64)
    np.minimum.at(first, e_out[is_best], np.flatnonzero(is_best))
    return first
