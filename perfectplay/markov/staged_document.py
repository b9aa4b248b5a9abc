"""The strategy of a game solved by stages, in its solution document: the value of every
stage (a turn's start), and nothing else (Yahtzee: 536,320 floats, not 857M states).

Everything inside a turn is recomputed from the values of the stages it leads to
(`StagedStrategy.turn`): ``play`` lists every choice with its expected value, ``show``
summarises the stages, and ``verify`` recomputes every stage from its successors' stored
values with the solver's own kernel (``stages.stage_batches``), in about the solve's
memory (one float a stage code, plus the file's columns).

A solution document of a staged game also carries the final score's distribution under
the strategy (``distribution``: ``stage_distribution.ScoreDistribution.to_json``); show
prints its summary, verify holds its chances to a sum of one and its mean to the value.

    kind       "markov-stages"
    stages     how many stages it lists
    encoding   "stages-npz-base64": numpy's compressed .npz of code int64[S] (stage
               codes, increasing) and value float64[S] (their values, the game's terms)
"""

from __future__ import annotations

import base64
import contextlib
import io
import os
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any
from zipfile import ZipFile

import numpy as np

from ..errors import BadFile
from ..solution import format_value
from ..strategy import BadPath, Decision, Strategy, View
from ..verdict import Verdict, as_fraction, close, settle_optimality, short
from .stage_distribution import ScoreDistribution
from .stage_model import CHANCE, NONE, Stages, game_over
from .stages import FORMAT, KIND, stage_batches
from . import contract

#: Recorded and recomputed values agree within this, relative (float sums in another order).
TOLERANCE = 1e-9
#: A score distribution's chances sum to one within this; its mean is the value within
#: MEAN_TOLERANCE (relative).
SUM_TOLERANCE = 1e-12
MEAN_TOLERANCE = 1e-9


def decode_stages(strategy: Any, st: Stages) -> tuple[np.ndarray, np.ndarray]:
    """Every stage code's value (NaN: not listed) and which are listed, from a document's
    ``strategy``; BadFile (one line) unless its columns fit the game's stages (a stage
    code the game never reaches among them too: it would be accepted unchecked, as no
    stage leads to it)."""
    from .policy_file import _UNREADABLE, _header, _read

    count = strategy.get("stages")  # (a mapping: the document's fields are checked first)
    if strategy.get("encoding") != FORMAT or not isinstance(strategy.get("columns"), str):
        raise BadFile("the stage values are missing or in an unknown encoding")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= st.count:
        raise BadFile(f"the file does not list between 1 and {st.count:,} stages")
    try:
        with ZipFile(io.BytesIO(base64.b64decode(strategy["columns"], validate=True))) as z:
            for name, kind in (("code", "i"), ("value", "f")):
                shape, dtype = _header(z, name)
                if shape != (count,) or dtype.kind != kind:
                    raise BadFile(f"the stages' column {name!r} is not {count:,} numbers")
            codes, values = _read(z, "code"), _read(z, "value")
    except _UNREADABLE as err:
        raise BadFile(f"the stage values cannot be read ({err.__class__.__name__})") from None
    if (codes < 0).any() or (codes >= st.count).any() or (np.diff(codes) <= 0).any():
        raise BadFile("the stage codes are not increasing codes of the game's stages")
    solved = np.zeros(st.count, dtype=np.bool_)  # the stages a solve values: its layers'
    solved[np.concatenate(st.layers)] = True
    if not solved[codes].all():
        raise BadFile(
            f"the file lists stage {int(codes[~solved[codes]][0])}, which the game never "
            "reaches (a solve lists only the stages of its layers)"
        )
    if not np.isfinite(values).all():
        raise BadFile("a stage's value is not a finite number")
    table = np.full(st.count, np.nan)
    table[codes] = values
    listed = np.zeros(st.count, dtype=np.bool_)
    listed[codes] = True
    return table, listed


def read_distribution(document: dict[str, Any]) -> ScoreDistribution | None:
    """The final score's distribution a document carries (``distribution``), or None;
    BadFile (one line) when it is there but not a mapping of whole scores to chances."""
    data = document.get("distribution")
    if data is None:
        return None
    try:
        return ScoreDistribution.from_json(data)
    except (TypeError, ValueError, KeyError, AttributeError, OverflowError):
        raise BadFile(
            "the distribution is not a mapping of whole scores to chances (probability)"
        ) from None


def check_distribution(distribution: ScoreDistribution, value: float) -> None:
    """BadFile (one line) unless `distribution`'s chances are between 0 and 1, sum to one
    (within SUM_TOLERANCE) and its mean is `value` (within MEAN_TOLERANCE, relative)."""
    p = distribution.probability
    if not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1) > SUM_TOLERANCE:
        raise BadFile(f"the distribution's chances sum to {p.sum()!r}, not one")
    if abs(distribution.mean - value) > MEAN_TOLERANCE * max(1.0, abs(value)):
        raise BadFile(f"the distribution's mean {distribution.mean!r} is not the value {value!r}")


#: Stages whose turn a strategy keeps worked out (``StagedStrategy.turn``).
TURNS_KEPT = 1024


class StagedStrategy(Strategy):
    """A staged game's stage values, read from its document; every state inside a turn
    valued on demand from them."""

    kind = KIND
    game_kind = "markov"

    def __init__(self, game, document: dict[str, Any]):
        super().__init__(game, document)
        self.stages = game.stages()
        if self.stages is None:
            raise BadFile(f"{game.name} is not solved by stages")
        self.values, self.listed = decode_stages(document["strategy"], self.stages)
        self.distribution = read_distribution(document)
        # turns kept: a review of a whole game values the next stage of every box it
        # could have filled (about 120 turns for a game of Yatzy; 64 kept thrashed: a
        # Yahtzee game's review took 0.35 s, now 0.017 s, 2026-11-27); 1,024 turns of
        # 1,597 floats each are 15 MB at most
        self.turn = lru_cache(maxsize=TURNS_KEPT)(self._turn)
        self.turn_moments = lru_cache(maxsize=TURNS_KEPT)(self._turn_moments)

    #: Where the stages' second moments are kept once worked out (``kept.py`` sets it
    #: beside the kept document: a NumPy file), or None: worked out for this reading.
    moments_file: Path | None = None

    @cached_property
    def moments(self) -> np.ndarray:
        """Every stage's second moment of the score to come (``stage_moments``): read
        from `moments_file` where it holds them, else worked out (a pass over the stages,
        about as long as the score distribution's) and written there."""
        from .stage_moments import second_moments

        path = self.moments_file
        if path is not None and path.is_file():
            try:
                kept = np.load(path, allow_pickle=False)
                if kept.shape == (self.stages.count,) and np.isfinite(kept).all():
                    return kept
            except (OSError, ValueError):
                pass  # (unreadable: worked out again, and written again)
        moments = second_moments(self.game, self.values, self.listed)
        if path is not None:
            with contextlib.suppress(OSError):
                tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                with open(tmp, "wb") as handle:
                    np.save(handle, moments)
                os.replace(tmp, path)
        return moments

    def _turn_moments(self, stage: int) -> np.ndarray:
        """The second moment of the score to come at every node and exit slot of
        `stage`'s turn (``stage_moments.turn_moments``)."""
        from .stage_moments import turn_moments

        sign = 1.0 if self.game.pays else -1.0
        values = np.where(self.listed, self.values, 0.0)
        return turn_moments(self.stages, sign, values, self.moments, np.array([stage]))[0]

    def spread(self, state: int) -> float:
        """The standard deviation of the score to come from state `state` (a node or
        slot of a stage's turn) under this strategy: sqrt(M2 - V^2)."""
        st = self.stages
        if state == game_over(st):
            return 0.0
        stage, node = divmod(int(state), st.width)
        mean = self.turn(stage)[node]
        return float(np.sqrt(max(0.0, self.turn_moments(stage)[node] - mean * mean)))

    def _turn(self, stage: int) -> np.ndarray:
        """The value of every node and exit slot of `stage`'s turn (the game's terms),
        recomputed from the stored values of the stages it leads to."""
        st, t = self.stages, self.stages.template
        better = np.max if self.game.pays else np.min
        points, nxt = st.exits(np.array([stage], dtype=np.int64))
        points, nxt = points[0], nxt[0]
        after = np.where(nxt >= 0, self.values[np.maximum(nxt, 0)], 0.0)
        if np.isnan(after).any():
            raise BadFile(f"the file lists no value for stage {int(nxt[np.isnan(after)][0])}")
        worst = -np.inf if self.game.pays else np.inf
        value = np.concatenate([np.zeros(t.nodes), np.zeros(t.slots)])
        value[t.nodes :] = better(np.where(nxt == NONE, worst, points + after), axis=1)
        chances = t.chances()
        for i in range(t.nodes - 1, -1, -1):
            edges = slice(t.start[i], t.start[i + 1])
            options = t.points[edges] + value[t.target[edges]]
            value[i] = chances[edges] @ options if t.kind[i] == CHANCE else better(options)
        return value

    def value(self, code: int) -> float:
        """The expected value of state `code` (a node or slot of a stage's turn)."""
        st = self.stages
        if code == game_over(st):
            return 0.0
        stage, node = divmod(int(code), st.width)
        return float(self.turn(stage)[node])

    @property
    def held_bytes(self) -> int:
        return self.values.nbytes + self.listed.nbytes

    def action(self, position: Decision) -> int | None:
        """The best choice after outcome ``position.outcome`` of ``position.state``: what
        it pays plus the value of the state it leads to."""
        from .document import best_choice

        return best_choice(
            self.game, position, lambda code, paid: paid + self.value(code), self.game.pays
        )

    def verify(self, resolve: bool = True) -> Verdict:
        """Every stage of the game recomputed from its successors' stored values by the
        solver's kernel, and held against its own stored value and the file's."""
        game, doc, st = self.game, self.document, self.stages
        sign = 1.0 if game.pays else -1.0
        stored = np.where(self.listed, sign * self.values, 0.0)
        done = np.zeros(st.count, dtype=np.bool_)
        worst = 0.0
        for batch, best in stage_batches(st, sign, stored, done):
            missing = ~self.listed[batch]
            if missing.any():
                raise BadFile(f"the file lists no value for stage {int(batch[missing][0])}")
            error = np.abs(best - stored[batch]) / np.maximum(1.0, np.abs(best))
            if error.max() > TOLERANCE:
                b = int(np.argmax(error))
                raise BadFile(
                    f"stage {int(batch[b])}'s stored value {sign * stored[batch[b]]!r} is not "
                    f"the {sign * best[b]!r} its successors' values give"
                )
            worst = max(worst, float(error.max()))
        value = float(self.values[st.start])
        stated = {"value": as_fraction(doc.get("value")), "value_float": doc.get("value_float")}
        for name, number in stated.items():
            if name in doc and not close(number, value):
                raise BadFile(
                    f"the file says {name} {short(doc[name])} but its start stage's is {value!r}"
                )
        verdict = Verdict(game)
        verdict.lines += [
            f"{game}: all {int(done.sum()):,} stages recomputed from their successors' "
            f"stored values agree to {worst:.1e}",
            f"its {game.measure.expected}, recomputed: {value:.9f} (optimal to tolerance)",
        ]
        if self.distribution is not None:
            check_distribution(self.distribution, value)
            verdict.lines.append(
                f"its score distribution sums to one and its mean is the value (within "
                f"{MEAN_TOLERANCE:g})"
            )
        proven = doc.get("exact") is True and doc.get("proven") is True
        verdict.data.update(
            {
                "stages": int(done.sum()),
                "value": doc["value"] if proven else format_value(value),
                "max_error": worst,
            }
        )
        verdict.data["check"] = f"float check, tolerance {TOLERANCE:g}"
        if proven:  # the exact fraction (``stage_proof``): re-established by solving again
            verdict.lines.append(
                f"every stage is the best of its options ({verdict.data['check']})"
            )
            verdict.optimality = "claimed"
        else:
            verdict.optimality = "float check"  # every stage the best of its options
        settle_optimality(verdict, self, resolve)
        return verdict

    def render(self, tree, depth: int) -> None:
        """A summary: the start's value, then each layer's stages and their values."""
        st = self.stages
        unit = self.game.measure.unit
        tree.add(f"start stage {st.start}: {self.values[st.start]:.9f} {unit} expected")
        if self.distribution is not None:
            branch = tree.add("the final score's distribution under this strategy")
            for line in self.distribution.summary(unit):
                branch.add(line)
        for i, layer in enumerate(st.layers[::-1][: max(depth, 1) * 4]):
            v = self.values[layer]
            tree.add(
                f"layer {len(st.layers) - 1 - i}: {len(layer):,} stages, values "
                f"{np.nanmin(v):.4f} to {np.nanmax(v):.4f} {unit}"
            )

    @property
    def root_path(self) -> str:
        return str(int(contract.start(self.game)))

    def explore(self, path: str) -> View:
        """A state of a turn with, after each roll, every keep or box and its expected
        final score (``document.choices_at``), the turn recomputed from the stored values
        of the stages it leads to."""
        from .document import choices_at

        st, game = self.stages, self.game
        code = int(path) if path.isdigit() else -1
        stage, node = divmod(code, st.width)
        finished = code == game_over(st)
        if not finished and not (0 <= stage < st.count and self.listed[stage]):
            raise BadPath(f"not a state of this strategy: {path!r}")
        live = not finished
        facts = [f"value: {self.value(code):.9f} {game.measure.unit} expected"]
        if not live:
            facts.append("finished")
        return View(
            path=path,
            title=game.describe_state(code),
            facts=tuple(facts),
            branches=choices_at(self, game, code, live),
            parent=None if path == self.root_path else self.root_path,
        )
