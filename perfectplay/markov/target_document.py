"""The strategy of a staged game played for a target score, in its solution document:
every stage's row of best chances, one for each number of points still needed up to the
target (``stage_target``), and nothing else.

A position is a `Decision` whose budget is the points still needed (the target at the
start; what a scored box pays is taken off, never below 0). Everything inside a turn is
recomputed from the rows of the stages it leads to (`TargetStrategy.turn`), by the
solver's own kernels; ``verify`` recomputes every stage's row from its successors' stored
rows the same way.

    kind       "markov-stages-target"
    horizon    the target H
    stages     how many stages it lists
    encoding   "stage-rows-npz-base64": numpy's compressed .npz of code int64[S] (stage
               codes, increasing), offset and width int64[S] (where each stage's row
               starts in row, and its length: chances for 0 to width - 1 points still
               needed, 0 beyond) and row float64[R]
"""

from __future__ import annotations

import base64
import binascii
import zlib
from functools import lru_cache
from typing import Any

import numpy as np

from ..errors import BadFile
from ..solution import Solution, format_value
from ..strategy import BadPath, Decision, Strategy, View
from ..verdict import Verdict, close, settle_optimality, short
from . import contract
from .stage_model import game_over
from .stage_target import CHUNK, FORMAT, KIND, TargetRows, TurnPass, exit_rows, target_batches
from .stages import BLOCK, turn_values

#: Recorded and recomputed chances agree within this (float sums in another order).
TOLERANCE = 1e-9
#: Turns whose every node's row a strategy keeps (a turn of Yahtzee's to 300: 3.8 MB).
TURNS_KEPT = 16


def decode_rows(strategy: Any, game) -> TargetRows:
    """The rows a document's ``strategy`` holds, BadFile (one line) unless they fit the
    game's stages and the horizon. Read CHUNK bytes of text at a time into the columns'
    one array (Yahtzee's to 300: 1.2 GB of rows from half a GB of text, nothing more)."""
    st = game.stages()
    count, horizon = strategy.get("stages"), strategy.get("horizon")
    floats = strategy.get("row_floats")
    if strategy.get("encoding") != FORMAT or not isinstance(strategy.get("columns"), str):
        raise BadFile("the stages' rows are missing or in an unknown encoding")
    if isinstance(horizon, bool) or not isinstance(horizon, int) or not 0 <= horizon <= 1 << 20:
        raise BadFile("the file's target (horizon) is not a whole number of points")
    if isinstance(count, bool) or not isinstance(count, int) or not 0 < count <= st.count:
        raise BadFile(f"the file does not list between 1 and {st.count:,} stages")
    if (
        isinstance(floats, bool)
        or not isinstance(floats, int)
        or not 0 < floats <= count * (horizon + 1)
    ):
        raise BadFile(
            f"the file's rows do not hold between 1 and {count * (horizon + 1):,} chances"
        )
    raw = np.empty(8 * (3 * count + floats), dtype=np.uint8)
    _inflate(strategy["columns"], raw)
    codes, offset, width = raw[: 24 * count].view("<i8").reshape(3, count)
    data = raw[24 * count :].view("<f8")
    if (codes < 0).any() or (codes >= st.count).any() or (np.diff(codes) <= 0).any():
        raise BadFile("the stage codes are not increasing codes of the game's stages")
    reached = np.zeros(st.count, dtype=np.bool_)
    reached[np.concatenate(st.layers)] = True
    if not reached[codes].all():
        raise BadFile(f"the file lists stage {int(codes[~reached[codes]][0])}, never reached")
    if (width < 1).any() or (width > horizon + 1).any() or (offset < 0).any():
        raise BadFile("a stage's row is empty or longer than the target allows")
    if (offset + width > len(data)).any():
        raise BadFile("a stage's row runs past the rows the file holds")
    if not np.isfinite(data).all() or (data < 0).any() or (data > 1).any():
        raise BadFile("a stage's chance is not a number between 0 and 1")
    rows = TargetRows(
        horizon,
        np.full(st.count, -1, dtype=np.int64),
        np.zeros(st.count, dtype=np.int64),
        data,
        TurnPass(st, horizon),
        used=len(data),
    )
    rows.offset[codes], rows.width[codes] = offset, width
    return rows


def _inflate(text: str, out: np.ndarray) -> None:
    """Fill `out` (bytes) with the zlib stream whose base64 is `text`, exactly; BadFile
    (one line) where the text is not base64, not one zlib stream, or not as long."""
    unpack, at, step = zlib.decompressobj(), 0, 4 * (CHUNK // 3)
    try:
        for lo in range(0, len(text), step):
            packed = base64.b64decode(text[lo : lo + step], validate=True)
            while packed:
                got = unpack.decompress(packed, len(out) - at + 1)
                if at + len(got) > len(out):
                    raise BadFile("the stages' rows hold more than the file says")
                out[at : at + len(got)] = np.frombuffer(got, dtype=np.uint8)
                at += len(got)
                packed = unpack.unconsumed_tail
        if not unpack.eof or unpack.unused_data or at != len(out):
            raise BadFile("the stages' rows end before the file says, or run on past it")
    except binascii.Error:
        raise BadFile("the stages' rows cannot be read (not base64)") from None
    except zlib.error:
        raise BadFile("the stages' rows cannot be read (not one zlib stream)") from None


class TargetStrategy(Strategy):
    """A staged game's rows of chances for a target, read from its document; every state
    inside a turn valued on demand from them, for any number of points still needed."""

    kind = KIND
    game_kind = "markov"

    def __init__(self, game, document: dict[str, Any], rows: TargetRows | None = None):
        super().__init__(game, document)
        self.stages = game.stages()
        if self.stages is None or not game.pays:
            raise BadFile(f"{game.name} is not a scored game solved by stages")
        if rows is None:  # (the text let go once read: half a GB for Yahtzee's to 300)
            rows = decode_rows(document["strategy"], game)
            self.document = {**document, "strategy": {**document["strategy"], "columns": None}}
        self.rows = rows
        self.horizon = self.rows.horizon
        self.turn = lru_cache(maxsize=TURNS_KEPT)(self._turn)

    @classmethod
    def of_solution(cls, game, solution: Solution) -> TargetStrategy:
        """The strategy of a target just solved, its rows taken as they are (not encoded
        and read back: Yahtzee's to 300 are 1.2 GB); encoded when its document is asked
        for (``to_json``)."""
        return cls(
            game, solution.export({**solution.strategy.head(), "columns": None}), solution.strategy
        )

    def to_json(self) -> dict[str, Any]:
        strategy = self.document["strategy"]
        return self.rows.to_json() if strategy["columns"] is None else strategy

    @property
    def held_bytes(self) -> int:
        rows = self.rows
        return rows.data.nbytes + rows.offset.nbytes + rows.width.nbytes

    def _turn(self, stage: int) -> np.ndarray:
        """Every node's and exit slot's row of `stage`'s turn (nodes + slots x H + 1),
        recomputed from the stored rows of the stages it leads to."""
        if not 0 <= stage < self.stages.count or not self.rows.solved[stage]:
            raise BadPath(f"the file lists no row for stage {stage}")
        batch = exit_rows(self.stages, np.array([stage], dtype=np.int64), self.rows)
        w = int(batch.widths[0])
        work = turn_values(self.stages, batch.exits, 1.0)  # (blocks x nodes and slots x BLOCK)
        every = work.reshape(len(work), self.stages.width, BLOCK).transpose(1, 0, 2)
        every = every.reshape(self.stages.width, -1)
        nodes = np.zeros((self.stages.width, self.horizon + 1))
        nodes[:, :w] = every[:, :w]
        nodes.flags.writeable = False
        return nodes

    def value(self, code: int, needed: int | None = None) -> float:
        """The best chance, from state `code`, of scoring at least `needed` more points
        (the whole target by default)."""
        needed = self.horizon if needed is None else min(int(needed), self.horizon)
        if needed <= 0:
            return 1.0
        if code == game_over(self.stages):
            return 0.0
        stage, node = divmod(int(code), self.stages.width)
        return float(self.turn(stage)[node, needed])

    def action(self, position: Decision) -> int | None:
        """The choice with the best chance after outcome ``position.outcome`` of
        ``position.state``, ``position.budget`` points still needed (the target if None)."""
        from .document import best_choice

        needed = self.horizon if position.budget is None else position.budget
        return best_choice(
            self.game, position, lambda code, paid: self.value(code, needed - paid), True
        )

    def verify(self, resolve: bool = True) -> Verdict:
        """Every stage's row recomputed from its successors' stored rows by the solver's
        kernels, and held against its stored row and the file's value."""
        game, doc, st, stored = self.game, self.document, self.stages, self.rows
        checked = TargetRows(
            stored.horizon, np.full(st.count, -1, dtype=np.int64), stored.width, stored.data,
            stored.turns, stored.used,
        )  # fmt: skip
        worst, done = 0.0, 0
        for batch in target_batches(st, checked):
            codes, widths = batch.codes, batch.widths
            missing = ~stored.solved[codes]
            if missing.any():
                raise BadFile(f"the file lists no row for stage {int(codes[missing][0])}")
            starts = np.concatenate(([0], np.cumsum(widths)[:-1]))
            got = np.empty(int(widths.sum()))
            stored.turns.run(batch.exits, batch.firsts, widths, got, starts)
            for b, code in enumerate(codes.tolist()):
                if widths[b] != stored.width[code]:
                    raise BadFile(
                        f"stage {code}'s stored row holds {int(stored.width[code])} chances, "
                        f"not the {int(widths[b])} its successors' rows give"
                    )
                mine = got[starts[b] : starts[b] + widths[b]]
                o = stored.offset[code]
                error = float(np.abs(mine - stored.data[o : o + widths[b]]).max())
                if error > TOLERANCE:
                    raise BadFile(
                        f"stage {code}'s stored row is not the one its successors' rows give "
                        f"(off by {error:.2e})"
                    )
                worst = max(worst, error)
            checked.offset[codes] = stored.offset[codes]
            done += len(codes)
        value = stored.chance(st.start, self.horizon)
        if "value_float" in doc and not close(doc.get("value_float"), value):
            raise BadFile(
                f"the file says value_float {short(doc['value_float'])} but its start "
                f"stage's is {value!r}"
            )
        verdict = Verdict(game)
        verdict.lines += [
            f"{game}: all {done:,} stages' rows recomputed from their successors' stored "
            f"rows agree to {worst:.1e}",
            f"its best chance {game.measure.chance_text(self.horizon)}, recomputed: "
            f"{value:.9f} (optimal to tolerance)",
        ]
        verdict.data.update({"stages": done, "value": format_value(value), "max_error": worst})
        verdict.optimality = "float check"
        verdict.data["check"] = f"float check, tolerance {TOLERANCE:g}"
        settle_optimality(verdict, self, resolve)
        return verdict

    def render(self, tree, depth: int) -> None:
        """A summary: the start's chance of each target up to the horizon, in steps."""
        st, unit, rows = self.stages, self.game.measure.unit, self.rows
        tree.add(
            f"start stage {st.start}: probability {rows.chance(st.start, self.horizon):.9f} "
            f"of scoring at least {self.horizon} {unit}"
        )
        branch = tree.add("the best chance of at least each score (one solve serves them all)")
        for target in np.unique(np.linspace(0, self.horizon, 11).astype(int)).tolist():
            branch.add(f"at least {target} {unit}: {rows.chance(st.start, target):.6f}")
        for i, layer in enumerate(st.layers[::-1][: max(depth, 1) * 4]):
            tree.add(
                f"layer {len(st.layers) - 1 - i}: {len(layer):,} stages, rows of up to "
                f"{int(rows.width[layer].max())} chances"
            )

    @property
    def root_path(self) -> str:
        return f"{int(contract.start(self.game))}@{self.horizon}"

    def explore(self, path: str) -> View:
        """A state of a turn with the points still needed (``code@needed``), and after
        each roll every choice, the strategy's marked (``document.choices_at``)."""
        from .document import choices_at

        st, game = self.stages, self.game
        code_text, _, needed_text = path.partition("@")
        if not (code_text.isdigit() and needed_text.isdigit()):
            raise BadPath(f"not a state of this strategy: {path!r}")
        code, needed = int(code_text), min(int(needed_text), self.horizon)
        stage = code // st.width
        finished = code == game_over(st)
        if not finished and not (0 <= stage < st.count and self.rows.solved[stage]):
            raise BadPath(f"not a state of this strategy: {path!r}")
        facts = [
            f"value: probability {self.value(code, needed):.9f} {game.measure.chance_text(needed)}",
            game.measure.budget_text(needed),
        ]
        if finished:
            facts.append("finished")
        return View(
            path=path,
            title=game.describe_state(code),
            facts=tuple(facts),
            branches=choices_at(self, game, code, not finished, needed),
            parent=None if path == self.root_path else self.root_path,
        )
