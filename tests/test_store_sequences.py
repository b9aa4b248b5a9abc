"""A store reads what it writes: random sequences of commands of every kind (objectives,
``--first``, ``--after``, ``--max-guesses``, ``openings value``) run over one store, and
each gives the value the same command gives without a store. (A search once wrote bounds
past the range its values have, then refused them as damage, advising ``store clear``.)"""

import functools
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .cli_runner import perfectplay as run

#: Small games, each with guesses to impose and positions to start from.
GAMES = {
    ("mastermind", "pegs=3", "colors=4"): (("123", "112", "111"), ("123:1B0W", "112:0B1W")),
    ("mastermind", "pegs=2", "colors=4"): (("12", "11"), ("12:0B1W",)),
    ("permutation", "n=5"): (("12345", "21345"), ("12345:1", "12345:0")),
}


@st.composite
def commands(draw) -> tuple[str, ...]:
    """One command line on a game of GAMES: a solve under some objective, guess imposed,
    position and limit, or an ``openings value`` of a few openings."""
    game = draw(st.sampled_from(sorted(GAMES)))
    firsts, positions = GAMES[game]
    after = draw(st.none() | st.sampled_from(positions))
    where = () if after is None else ("--after", after)
    if draw(st.booleans()) and after is None:
        openings = ",".join(draw(st.lists(st.sampled_from(firsts), min_size=1, unique=True)))
        bound = draw(st.sampled_from(("1000", "200", "120")))
        return ("openings", "value", *game, "--openings", openings, "--bound", bound)
    objective = draw(st.sampled_from(("expected", "worst", "probability")))
    options = ("--objective", objective)
    if objective == "probability":
        options += ("--horizon", str(draw(st.integers(2, 4))))
    elif draw(st.booleans()):
        options += ("--max-guesses", str(draw(st.integers(3, 7))))
    if after is None and draw(st.booleans()):
        options += ("--first", draw(st.sampled_from(firsts)))
    return ("solve", *game, *where, *options)


def answer(args: tuple[str, ...], *store: str) -> tuple[int, object]:
    """The exit code and the values of `args` with `store`'s options: a solve's value and
    status, an openings shard's exact totals (None for an opening proven past the bound);
    the error's line on a refusal."""
    res = run(*args, *store, "--json", "--quiet")
    if res.returncode != 0:
        assert "Traceback" not in res.stderr, res.stderr
        return res.returncode, res.stderr.strip()
    doc = json.loads(res.stdout)
    if args[0] == "openings":
        # an opening past the bound is proven to exceed it: how far depends on what is
        # known (a store knows more), not its being past
        assert all(r["exact"] or r["total"] > doc["bound"] for r in doc["results"])
        return 0, [(r["guess"], r["total"] if r["exact"] else None) for r in doc["results"]]
    return 0, (doc["value"], doc["status"])


@functools.cache
def storeless(args: tuple[str, ...]) -> tuple[int, object]:
    return answer(args, "--no-store")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(commands(), min_size=2, max_size=6))
def test_commands_over_one_store_give_the_values_they_give_without_one(tmp_path, sequence):
    path = tmp_path / f"store-{abs(hash(tuple(sequence)))}.sqlite"
    for args in sequence:
        assert answer(args, "--store", str(path)) == storeless(args), args


def test_a_solve_after_another_with_its_first_guess_imposed_reads_the_store(tmp_path):
    """The issue's own case: the journal the first solve kept (bounds of sets that no
    strategy solves within the cap) is read back by the second."""
    path = str(tmp_path / "store.sqlite")
    game = ("solve", "mastermind", "pegs=3", "colors=4")
    for args in (game, (*game, "--first", "123"), (*game, "--objective", "worst")):
        assert answer(args, "--store", path) == storeless(args)
