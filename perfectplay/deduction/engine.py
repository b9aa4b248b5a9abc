"""The deduction engine: what the front ends ask of deduction games (``engine.Engine``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ..engine import Engine, Ranked, Ranking, Size, SolveArgs, TradeOff
from ..errors import Unsupported
from ..objectives import Objective

if TYPE_CHECKING:
    from ..progress import Silent
    from ..solution import Solution
    from .model import DeductionGame, History


class DeductionEngine(Engine):
    """Guess the secret: the search of ``deduction/`` (one core, objective as data)."""

    kind = "deduction"
    label = "deduction"
    solve_flags = frozenset(
        {
            "strategy",
            "max_guesses",
            "top",
            "workers",
            "without",
            "first",
            "after",
            "store",
            "no_store",
            "cluster",
        }
    )
    play_flags = frozenset({"secret", "budget"})
    determines = True

    def solve(self, game: DeductionGame, objective: Objective, **options: Any) -> Solution:
        from .solve import solve_deduction

        return solve_deduction(game, objective, **options)

    def solve_options(self, game: DeductionGame, args: SolveArgs, note=print) -> dict[str, Any]:
        from .position import guess_index, parse_position

        if args.workers is not None and args.workers < 1:
            raise Unsupported(f"--workers must be at least 1, got {args.workers}")
        strategy = args.strategy or "optimal"
        options = {
            "strategy": strategy,
            "max_guesses": args.max_guesses,
            "workers": args.workers,
            "without": args.without_names(),
            "position": parse_position(game, args.after),
            "first": None if args.first is None else guess_index(game, args.first),
            "cluster": args.cluster,
            "top": args.top,
        }
        if strategy == "optimal" and args.top is None:  # (upper bounds are never kept)
            options["store"] = open_store(args.store, args.no_store, note)
        return options

    def rank(
        self, game: DeductionGame, objective: Objective, after: str, progress: Silent
    ) -> Ranking:
        from .position import format_position, parse_position
        from .rank import rank_guesses

        position = parse_position(game, after)
        ranking = rank_guesses(game, objective, position, progress=progress)
        codes = game.guesses()
        return Ranking(
            objective=objective,
            position=format_position(game, position),
            secrets=ranking.secrets,
            choices=tuple(
                Ranked(game.format_code(codes[p.guess]), p.value) for p in ranking.guesses
            ),
            optimal=len(ranking.optimal()),
            classes=ranking.classes,
            optimal_classes=ranking.optimal_classes,
        )

    def trade_off(self, game: DeductionGame, objective: Objective, after: str) -> TradeOff:
        from .frontier import frontier
        from .position import parse_position

        if objective.horizon is None:
            raise Unsupported(
                "--frontier and --cost-weight need a horizon "
                "(--objective probability or probability-then-cost)"
            )
        front = frontier(game, objective.horizon, parse_position(game, after), objective.determine)
        codes = game.guesses()
        return TradeOff(
            front,
            tuple(
                game.format_code(codes[p.tree.guess]) if p.tree is not None else "(stop)"
                for p in front.points
            ),
        )

    def position(self, game: DeductionGame, after: str, needed_for: str) -> History:
        from .position import parse_position

        return parse_position(game, after)

    def size(self, game: DeductionGame) -> Size:
        return Size(len(game.guesses()) * len(game.secrets()), "guess-secret pairs")


def open_store(path: str | None, off: bool, note: Callable[[str], None] = print):
    """The result store a solve uses (None with --no-store); `note` says when the file
    was written by another engine version (it is then not used)."""
    if off:
        if path:
            raise Unsupported("--store and --no-store exclude each other")
        return None
    from ..store import Store, default_path

    return Store(path or default_path(), note=note)


#: The one deduction engine (installed for ``DeductionGame.kind`` by ``engines.py``).
DEDUCTION = DeductionEngine()
