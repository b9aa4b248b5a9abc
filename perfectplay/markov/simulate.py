"""Games of a solved Markov game played by its strategy, many side by side: the final
score (or cost) of each, drawn with a seeded random stream of its own (``perfectplay
simulate``; a check of the exact values and distributions by sampling).

A game solved on its graph (`play_graph`) walks the graph: each state's outcome drawn by
its weights, the policy's choice taken. A game solved by stages (`play_stages`) keeps no
graph and no turn: each round, the turns of the stages the games are at are worked out
again from the stage values by the solver's own kernel (``stages.turn_values``: a block
of 64 stages side by side, a group's lanes where the game declares groups), then each
game's turn is walked in a compiled kernel, its chances drawn and at each decision the
first of the best edges taken, at the exit slot reached the first of the best options
(the choices play and ``stage_distribution`` make), and the game moves to that option's
stage. Games are played in waves of WAVE so that memory stays bounded.

Played for a target (`play_target`), a stage's turn is worked out from its rows instead
(``stage_target.exit_rows``: one lane for each number of points still needed), each game
walking it in the lane of the points it still needs, and taking at its exit slot the first
option with the best chance; a game past all hope (it needs more than its stage can
still bring) walks a turn of chances 0, its first edges, as ``TargetStrategy`` plays.

Each game's draws come from its own stream (splitmix64, seeded by the run's seed and the
game's number), so that a seeded run gives the same scores whatever the threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..errors import Unsupported
from .stage_choices import best_option
from .stage_model import CHANCE, END, NONE, Stages
from .stages import BLOCK, _stage_exits, turn_values

#: Games played side by side (their stages, scores, streams and slots: 13 MB); more at once
#: share more turns (Yahtzee: 8,500 games a second in waves of 65,536, 21,000 in waves of
#: 262,144, 2 cores).
WAVE = 1 << 18
#: Blocks of 64 stages whose turns are worked out at once (Yahtzee's: 0.8 MB a block).
CHUNK = 32
#: A game that has not ended after this many turns is refused (a strategy that may never end).
MOST_TURNS = 100_000
#: Stages whose turns are worked out at once for a target (Yahtzee's to 300: 5 blocks a
#: stage of 0.8 MB each).
TARGET_CHUNK = 8


@njit(inline="always")
def _uniform(streams, i):
    """The next number in [0, 1) of stream i (splitmix64)."""
    streams[i] += np.uint64(0x9E3779B97F4A7C15)
    z = streams[i]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def streams(seed: int, first: int, count: int) -> np.ndarray:
    """The streams of games `first` to first + count - 1 of a run seeded `seed`."""
    base = np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    games = np.arange(first, first + count, dtype=np.uint64)
    return (games * np.uint64(0xD1B54A32D192ED03)) ^ base


@njit(inline="always")
def _draw(streams, i, lo, hi, chance):
    """An edge lo..hi-1 drawn by its chance (the last one for the rounding's remainder)."""
    u = _uniform(streams, i)
    for e in range(lo, hi - 1):
        u -= chance[e]
        if u < 0.0:
            return e
    return hi - 1


@njit(cache=True, parallel=True)
def _walk(
    games, block, lane, work, kind, start, target, chance, paid, points, streams, slot, scored
):
    """Game games[k]'s turn walked (its stage's node values in work[block[k]], lane
    lane[k]): chances drawn from its stream, at each decision the first best edge;
    the exit slot it reaches in slot[k], the template's points on the way added to its
    score, scored[games[k]]."""
    n = len(kind)
    for k in prange(len(games)):
        g, buf, ln = games[k], work[block[k]], lane[k]
        x = 0
        while x < n:
            lo, hi = start[x], start[x + 1]
            if kind[x] == CHANCE:
                e = _draw(streams, g, lo, hi, chance)
            else:
                e, best = lo, -np.inf
                for j in range(lo, hi):
                    v = paid[j] + buf[target[j] * BLOCK + ln]
                    if v > best:
                        e, best = j, v
            scored[g] += points[e]
            x = target[e]
        slot[k] = x - n


@njit(cache=True, parallel=True)
def _take(games, points, nxt, values, sign, stage, scored):
    """Each game's first best option at its exit slot (points and next: games x options;
    `values` the game's terms): its points scored, its stage the option's (``END``)."""
    for k in prange(len(games)):
        c = best_option(points[k], nxt[k], values, sign)[1]
        g = games[k]
        scored[g] += points[k, c]
        stage[g] = nxt[k, c]


@njit(cache=True, parallel=True)
def _walk_graph(start, out_ptr, weight, chosen, target, cost, terminal, most, streams, paid, steps):
    """Each game walked on the graph from `start`: an outcome drawn by its weight, the
    policy's edge taken, its cost added; steps[g] the moves taken (``most`` at most)."""
    for g in prange(len(paid)):
        s, n = start, 0
        while not terminal[s] and n < most:
            lo, hi = out_ptr[s], out_ptr[s + 1]
            total = 0.0
            for o in range(lo, hi):
                total += weight[o]
            u = _uniform(streams, g) * total
            o = hi - 1
            for j in range(lo, hi - 1):
                u -= weight[j]
                if u < 0.0:
                    o = j
                    break
            e = chosen[o]
            paid[g] += cost[e]
            s = target[e]
            n += 1
        steps[g] = n


def play_graph(policy, games: int, seed: int, done=None) -> np.ndarray:
    """The total cost (the engine's terms: a game's points negated) of `games` games
    played on the graph by `policy` (``markov.policy.Policy``, the expected objective);
    `done` (if given) told the games played."""
    g = policy.graph
    chosen = np.asarray(policy.chosen)
    if chosen.ndim != 1:
        raise Unsupported("simulate plays the strategy of the expected objective only")
    paid = np.zeros(games)
    steps = np.zeros(games, dtype=np.int64)
    _walk_graph(
        int(g.start), g.out_ptr, g.weight.astype(np.float64), chosen, g.target,
        g.cost.astype(np.float64), g.terminal, MOST_TURNS, streams(seed, 0, games), paid, steps,
    )  # fmt: skip
    if (steps >= MOST_TURNS).any():
        raise Unsupported(f"a game played by the strategy had not ended after {MOST_TURNS} moves")
    if done is not None:
        done(games)
    return paid


def play_stages(
    st: Stages, values: np.ndarray, solved: np.ndarray, sign: float, games: int, seed: int,
    done=None,
) -> np.ndarray:  # fmt: skip
    """The final score (the game's terms) of `games` games played by the stage `values`
    (the game's terms, of the stages marked `solved`; `sign` 1 for a game that pays,
    -1 for one that costs): see the module docstring. `done` (if given) is told the
    games played after each wave."""
    game_values = np.where(solved, values, 0.0)
    maxed = sign * game_values

    def turns(stages, scored):
        """The games' turns from the stage values (the score so far not needed)."""
        return _turns_of(st, stages, maxed, solved, sign)

    def take(alive, options, nxt, stage, scored):
        _take(alive, options, nxt, game_values, sign, stage, scored)

    return _in_waves(st, sign, turns, take, games, seed, done)


def _in_waves(st: Stages, sign: float, turns, take, games: int, seed: int, done) -> np.ndarray:
    """The final scores of `games` games played in waves of WAVE (`done`, if given, told
    the games played after each): each wave's games from the start stage, turn after
    turn, each turn walked in the node values `turns(stages, scored)` gives (for each
    chunk of the games: their indices, the values, each one's block and lane), the exit
    slot's option then taken by `take(games, points, next, stage, scored)`."""
    t = st.template
    kind = np.ascontiguousarray(t.kind)
    start = np.ascontiguousarray(t.start, dtype=np.int64)
    target = np.ascontiguousarray(t.target, dtype=np.int64)
    chance, paid = t.chances(), sign * t.points
    points = np.ascontiguousarray(t.points, dtype=np.float64)
    out = np.empty(games)
    for first in range(0, games, WAVE):
        count = min(WAVE, games - first)
        stage = np.full(count, st.start, dtype=np.int64)
        scored = np.zeros(count)
        rng = streams(seed, first, count)
        for _ in range(MOST_TURNS):
            alive = np.flatnonzero(stage != END)
            if not len(alive):
                break
            slot = np.empty(len(alive), dtype=np.int64)
            for at, work, block, lane in turns(stage[alive], scored[alive]):
                part = np.empty(len(at), dtype=np.int64)
                _walk(alive[at], block, lane, work, kind, start, target, chance, paid, points,
                      rng, part, scored)  # fmt: skip
                slot[at] = part
            options, nxt = st.options_at(stage[alive], slot)
            take(alive, options, nxt, stage, scored)
        else:
            raise Unsupported(
                f"a game played by the strategy had not ended after {MOST_TURNS} turns"
            )
        out[first : first + count] = scored
        if done is not None:
            done(first + count)
    return out


def _turns_of(st: Stages, stages: np.ndarray, maxed, solved, sign):
    """The turns of `stages` worked out, CHUNK blocks at a time: for each chunk, the
    indices into `stages` it serves, its node values (``turn_values``) and each one's
    block and lane there. A game of groups has its stages' groups' lanes worked out
    side by side (the game's compiled exit values), any other stages 64 at a time."""
    t = st.template
    if st.exit_values is not None:
        group, lane = np.divmod(stages, st.lanes)
        parts = -(-st.lanes // BLOCK)
        keys, of = np.unique(group * parts + lane // BLOCK, return_inverse=True)
        groups, part = np.divmod(keys, parts)
        firsts, lanes = part * BLOCK, lane % BLOCK
    else:
        keys, of = np.unique(stages, return_inverse=True)
        lanes, of = of % BLOCK, of // BLOCK
    order = np.argsort(of, kind="stable")
    blocks = int(of.max()) + 1
    bounds = np.searchsorted(of[order], np.arange(0, blocks + CHUNK, CHUNK))
    for c, lo in enumerate(range(0, blocks, CHUNK)):
        hi = min(blocks, lo + CHUNK)
        exits = np.zeros((hi - lo, t.slots, BLOCK))
        if st.exit_values is not None:
            st.exit_values(groups[lo:hi], firsts[lo:hi], maxed, sign, exits)
        else:
            codes = keys[lo * BLOCK : hi * BLOCK]
            p, n = st.exits(codes)
            p = np.ascontiguousarray(p, dtype=np.float64)
            n = np.ascontiguousarray(n, dtype=np.int64)
            bad = np.zeros(len(codes), dtype=np.int64)
            loops = np.zeros(len(codes), dtype=np.bool_)
            _stage_exits(codes, p, n, maxed, solved, sign, maxed[codes], exits, bad, loops)
        rows = order[bounds[c] : bounds[c + 1]]
        yield rows, turn_values(st, exits, sign), of[rows] - lo, lanes[rows]


def play_target(st: Stages, rows, games: int, seed: int, done=None) -> np.ndarray:
    """The final score of `games` games played for at least ``rows.horizon`` points by
    the target's `rows` (``stage_target.TargetRows``; a turn that pays nothing on its
    way): see the module docstring. `done` (if given) is told the games played after
    each wave."""

    def needed(scored: np.ndarray) -> np.ndarray:
        """The points the games still need (the same at a turn's exit as at its start:
        the turn pays nothing on its way)."""
        return np.maximum(rows.horizon - np.rint(scored).astype(np.int64), 0)

    def turns(stages, scored):
        return _target_turns_of(st, rows, stages, needed(scored))

    def take(alive, options, nxt, stage, scored):
        h = needed(scored[alive])
        _take_target(alive, options, nxt, rows.offset, rows.width, rows.data, h, stage, scored)

    return _in_waves(st, 1.0, turns, take, games, seed, done)


def _target_turns_of(st: Stages, rows, stages: np.ndarray, needed: np.ndarray):
    """The turns of `stages` for the points still `needed`, TARGET_CHUNK stages at a time:
    for each chunk, the indices into `stages` it serves, its node values (``turn_values``
    of the stages' rows' blocks, one block of chances 0 after them) and each game's block
    and lane there (its points still needed; the block of 0 past its stage's row)."""
    from .stage_target import exit_rows

    keys, of = np.unique(stages, return_inverse=True)
    order = np.argsort(of, kind="stable")
    bounds = np.searchsorted(of[order], np.arange(0, len(keys) + TARGET_CHUNK, TARGET_CHUNK))
    for c, lo in enumerate(range(0, len(keys), TARGET_CHUNK)):
        batch = exit_rows(st, keys[lo : lo + TARGET_CHUNK], rows, spare=1)
        at = order[bounds[c] : bounds[c + 1]]
        mine, h = of[at] - lo, needed[at]
        past = h >= batch.widths[mine]
        block = np.where(past, len(batch.exits) - 1, batch.firsts[mine] + h // BLOCK)
        yield at, turn_values(st, batch.exits, 1.0), block, np.where(past, 0, h % BLOCK)


@njit(cache=True, parallel=True)
def _take_target(games, points, nxt, offset, width, data, needed, stage, scored):
    """Each game's first option with the best chance of its points still needed at its
    exit slot (points and next: games x options; a stage's chance of h more points
    ``data[offset + h]``, 1 for none, 0 past its row or after the game's end): its
    points scored, its stage the option's (``END``)."""
    for k in prange(len(games)):
        best, c = -np.inf, -1
        for o in range(points.shape[1]):
            to = nxt[k, o]
            if to == NONE:
                continue
            h = needed[k] - np.int64(points[k, o])
            if h <= 0:
                v = 1.0
            elif to < 0 or h >= width[to]:
                v = 0.0
            else:
                v = data[offset[to] + h]
            if v > best:
                best, c = v, o
        g = games[k]
        scored[g] += points[k, c]
        stage[g] = nxt[k, c]
