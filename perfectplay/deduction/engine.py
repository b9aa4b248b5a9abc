"""The deduction engine: what the front ends ask of deduction games (``engine.Engine``).

Besides the Engine interface, this object is the deduction engine's public face for the
screens that hold a deduction-specific view (the terminal advisor, the web board, the
``openings`` command): positions as text, feedbacks, suggestions within a budget, the
proof over every opening. They reach it as ``engine_of(game)`` and never import the
engine's modules; each method imports what it needs when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterator, Sequence

from ..engine import Engine, PlayArgs, Ranked, Ranking, Size, SolveArgs, TradeOff
from ..errors import Unsupported
from ..objectives import Objective

if TYPE_CHECKING:
    from fractions import Fraction

    import numpy as np

    from ..progress import Silent
    from ..shards import Job, Shard
    from ..solution import Solution
    from .bounds import Bounded
    from .model import DeductionGame, History
    from .openings import ShardCheck
    from .rank import PositionValue
    from .rank import Ranking as GuessRanking
    from .rank import Weighed


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
            "written",  # (all a deduction solve gives is written anyway)
        }
    )
    play_flags = frozenset({"secret", "budget", "objective"})
    determines = True

    def check(self, game: DeductionGame, args: SolveArgs | PlayArgs) -> None:
        """The options refused as every engine refuses them, and a game whose sizes break
        the protocol (``contract.sizes``), before any work (``load_game``, which built the
        game, refused one whose codes cannot hold its symbols or be listed in memory:
        ``check_size``)."""
        from .contract import sizes

        super().check(game, args)
        sizes(game)

    def check_size(self, game: DeductionGame) -> None:
        """A game whose codes cannot hold its symbols, or whose codes and table would not
        fit in memory, refused before they are listed (``feedback.check_size``)."""
        from .feedback import check_size

        check_size(game)

    def solve(self, game: DeductionGame, objective: Objective, **options: Any) -> Solution:
        from .solve import SolveOptions, solve_deduction

        return solve_deduction(game, objective, SolveOptions(**options))

    def player(
        self, game: DeductionGame, progress, kept=None, objective: Objective = Objective()
    ) -> tuple[float, Any]:
        """The optimal strategy for the expected guesses, ready to play: each secret's
        guesses counted once by playing its tree against it (``Strategy.action``, the
        feedback the rules give), then each game a secret drawn at random."""
        import numpy as np

        from .contract import codes, feedback, sizes
        from .document import TreeStrategy

        if objective.name != "expected":
            raise Unsupported(
                f"{game.name}: simulate plays a deduction game's expected guesses only"
            )
        if "expected" not in game.objectives:
            raise Unsupported(f"{game.name}: simulate plays the expected objective's strategy")
        solution = self.solve(game, Objective("expected"), progress=progress)
        strategy = TreeStrategy(game, solution.export())
        guesses, secrets = codes(game)[:2]
        solved = sizes(game).solved
        counts = np.empty(len(secrets))
        for i, secret in enumerate(secrets):
            history: tuple[tuple[int, int], ...] = ()
            while not history or history[-1][1] != solved:
                g = strategy.action(history)
                if g is None or len(history) > len(guesses):
                    raise Unsupported(f"{game.name}: the strategy does not find secret {i}")
                history += ((g, feedback(game, guesses[g], secret)),)
            counts[i] = len(history)

        def play(games: int, seed: int, done=None) -> np.ndarray:
            drawn = counts[np.random.default_rng(seed).integers(len(counts), size=games)]
            if done is not None:
                done(games)
            return drawn

        return solution.value_float, play

    def solve_options(self, game: DeductionGame, args: SolveArgs, note=print) -> dict[str, Any]:
        from .position import guess_index, position_to_solve

        if args.workers is not None and args.workers < 1:
            raise Unsupported(f"--workers must be at least 1, got {args.workers}")
        strategy = args.strategy or "optimal"
        options = {
            "strategy": strategy,
            "max_guesses": args.max_guesses,
            "workers": args.workers,
            "without": args.without_names(),
            "position": position_to_solve(game, args.after),
            "first": None if args.first is None else guess_index(game, args.first),
            "cluster": args.cluster,
            "top": args.top,
        }
        if strategy == "optimal" and args.top is None:  # (upper bounds are never kept)
            options["store"] = open_store(args.store, args.no_store, note)
        options["note"] = note  # (a symmetry found for a game that declares none)
        return options

    def rank(
        self, game: DeductionGame, objective: Objective, after: str, progress: Silent
    ) -> Ranking:
        from .position import format_position, position_to_solve
        from .rank import rank_guesses

        position = position_to_solve(game, after)
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
        from .position import position_to_solve

        if objective.horizon is None:
            raise Unsupported(
                "--frontier and --cost-weight need a horizon "
                "(--objective probability or probability-then-cost)"
            )
        front = frontier(
            game, objective.horizon, position_to_solve(game, after), objective.determine
        )
        codes = game.guesses()
        return TradeOff(
            front,
            tuple(
                game.format_code(codes[p.tree.guess]) if p.tree is not None else "(stop)"
                for p in front.points
            ),
        )

    def position(self, game: DeductionGame, after: str, needed_for: str) -> History:
        from .position import position_to_solve

        return position_to_solve(game, after)

    def size(self, game: DeductionGame) -> Size:
        from .contract import count

        return Size(count(game, "n_guesses") * count(game, "n_secrets"), "guess-secret pairs")

    # --- positions and feedbacks, for the screens -------------------------------------
    def parse_position(self, game: DeductionGame, text: str) -> History:
        """The history written ``GUESS:FEEDBACK[,...]`` (empty text: none)."""
        from .position import parse_position

        return parse_position(game, text)

    def format_position(self, game: DeductionGame, history: History) -> str:
        """`history` written as `parse_position` reads it."""
        from .position import format_position

        return format_position(game, history)

    def guess_index(self, game: DeductionGame, text: str) -> int:
        """The index in ``game.guesses()`` of the code written `text`."""
        from .position import guess_index

        return guess_index(game, text)

    def feedback(self, game: DeductionGame, guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
        """The feedback of each guess (rows) against each secret (columns)."""
        from .feedback import compute_feedback

        return compute_feedback(game, guesses, secrets)

    # --- advice ------------------------------------------------------------------------
    #: The modules a worker that searches for advice should start with (a fork server
    #: imports them once).
    worker_modules: ClassVar[tuple[str, ...]] = ("perfectplay.deduction.solve",)

    def suggest(
        self, game: DeductionGame, consistent: Any, history: History, **options: Any
    ) -> int | None:
        """The guess to play on the `consistent` secrets after `history`
        (``solve.suggest_guess``: its strategy, objective and guess limit as `options`)."""
        from .solve import suggest_guess

        return suggest_guess(game, consistent, history, **options)

    def ranking(self, game: DeductionGame, objective: Objective, history: History) -> GuessRanking:
        """The exact price of every useful guess after `history` (``rank.rank_guesses``)."""
        from .rank import rank_guesses

        return rank_guesses(game, objective, history)

    def weigh(
        self, game: DeductionGame, objective: Objective, history: History
    ) -> tuple[tuple[Weighed, ...], bool]:
        """Every useful guess after `history` under the whole `objective` (its horizon the
        limit), best first in the order of strength, with its worst case; and whether the
        values are chances (``rank.weigh_guesses``: the advisor's exact stage)."""
        from .rank import weigh_guesses

        return weigh_guesses(game, objective, history)

    def value(
        self, game: DeductionGame, objective: Objective, history: History, played: int | None
    ) -> PositionValue:
        """The exact value after `history`, an optimal guess there and the price of the
        guess `played` there (``rank.value_position``: one search, not every guess's)."""
        from .rank import value_position

        return value_position(game, objective, history, played)

    def price(
        self, game: DeductionGame, objective: Objective, history: History, guess: int
    ) -> Fraction | None:
        """The exact value of `guess` after `history` (``rank.price_guess``; None: it
        learns nothing there, or no strategy after it fits the guesses allowed)."""
        from .rank import price_guess

        return price_guess(game, objective, history, guess)

    def rule_of_thumb(
        self, game: DeductionGame, objective: Objective, history: History, score: str
    ) -> np.ndarray:
        """The guesses worth trying after `history`, one of each kind alike under the
        game's symmetry, best first by the heuristic `score` (``heuristics.SCORES``:
        ``most-parts``, ``entropy`` ...): quick, not proven (``rank.rule_of_thumb``)."""
        from .rank import rule_of_thumb

        return rule_of_thumb(game, objective, history, score)

    def bounds(
        self,
        game: DeductionGame,
        objective: Objective,
        history: History,
        guesses: np.ndarray,
        score: str = "most-parts",
        known: Sequence[Bounded] = (),
    ) -> Iterator[tuple[Bounded, ...]]:
        """Proven bounds on the value of each of `guesses` (indices) after `history`, as
        they are known: the search's side of every guess at once, then each guess's
        strategy's side in turn (a strategy playing it, then heuristic `score` to the
        end; those `known` from an earlier call at once), where ``ranking`` is out of
        reach (``bounds.bound_guesses``)."""
        from .bounds import bound_guesses

        return bound_guesses(game, objective, history, guesses, score, known)

    def load_kernels(self, game: DeductionGame, objective: str) -> None:
        """Load the compiled search for `game` and `objective` (an objective's name, or
        the search core's own, such as ``losses``) into this process."""
        from .root import search_for
        from .search import SpeedUps
        from .solve import CORES

        search_for(game, CORES.get(objective, objective), SpeedUps()).load_kernels()

    # --- the proof over every opening ------------------------------------------------
    def openings(self, game: DeductionGame, position: History) -> list[int]:
        """The openings at `position`, numbered as shards count them (``openings.py``)."""
        from .openings import openings

        return openings(game, position)

    def rank_openings(
        self, game: DeductionGame, numbered: list[int], method: str, position: History
    ) -> list[int]:
        """The numbers of `numbered` ordered by heuristic `method` (``openings.ranked``)."""
        from .openings import ranked

        return ranked(game, numbered, method, position)

    def select_openings(self, game: DeductionGame, numbered: list[int], spec: str) -> list[int]:
        """The opening numbers `spec` names (``A:B``, ``all``, ``@FILE`` or guesses)."""
        from .openings import select

        return select(game, numbered, spec)

    def value_openings(
        self, game: DeductionGame, chosen: list[int], bound: int, **options: Any
    ) -> Shard:
        """Value the `chosen` openings against `bound` (``openings.value_openings``)."""
        from .openings import value_openings

        return value_openings(game, chosen, bound, **options)

    def shard_check(self, game: DeductionGame, position: History, job: Job) -> ShardCheck:
        """`job` as `game` gives it, to hold its shards against (``openings.ShardCheck``):
        the job's bound, its guess limit as the largest allowed."""
        from .openings import ShardCheck

        return ShardCheck(game, position, job.bound, job.limit)

    def open_store(self, path: str | None, off: bool, note: Callable[[str], None] = print):
        """The result store a solve uses (`open_store`)."""
        return open_store(path, off, note)


def open_store(path: str | None, off: bool, note: Callable[[str], None] = print):
    """The result store a solve uses (None with --no-store); `note` says when the file
    was written by another engine version (it is then not used)."""
    if off:
        if path:
            raise Unsupported("--store and --no-store exclude each other")
        return None
    from ..store import Store, chosen_path

    return Store(chosen_path(path), note=note)


#: The one deduction engine (installed for ``DeductionGame.kind`` by ``engines.py``).
DEDUCTION = DeductionEngine()
