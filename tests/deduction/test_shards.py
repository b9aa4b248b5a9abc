"""The proof over every opening in shards: each opening's total checked by brute force,
shards combined into the optimum ``solve`` finds, resumed from their files, and every
bad input a one-line error."""

import json

import pytest

from perfectplay import load_game, solve
from perfectplay.deduction.position import guess_index, parse_position
from perfectplay.deduction.openings import openings, select, value_openings
from perfectplay.shards import Shard, combine
from perfectplay.errors import BadFile, PerfectplayError

from ..cli_runner import assert_one_line_error, perfectplay
from .bruteforce import BruteForce
from .test_wordle import SMALL, Brute, write_lists

GAMES = ["mastermind(pegs=3,colors=3)", "permutation(n=4)", "bulls-and-cows(digits=2,symbols=4)"]


def brute_totals(game) -> dict[str, int]:
    """Each allowed guess's least total over every secret, by plain exhaustive search."""
    brute = BruteForce(game)
    everyone = brute.everything()
    n = len(everyone)
    totals = {}
    for code in brute.guesses:
        cells = brute.split(code, everyone)
        if len(cells) == 1 and brute.solved not in cells:
            continue  # learns nothing
        totals[game.format_code(code)] = n + sum(
            brute.total(frozenset(c), n - 1) for f, c in cells.items() if f != brute.solved
        )
    return totals


@pytest.mark.parametrize("spec", GAMES)
def test_each_opening_within_the_bound_gets_its_exact_total(spec):
    game = load_game(spec)
    truth = brute_totals(game)
    best = min(truth.values())
    for bound in (best, best + 3):
        shard = value_openings(game, range(len(openings(game))), bound)
        for r in shard.results:
            if r.exact:
                assert r.total == truth[r.guess] <= bound, r
            else:
                assert truth[r.guess] > bound and r.total > bound, r
        assert combine([shard]).best == best
    below = value_openings(game, range(len(openings(game))), best - 1)
    verdict = combine([below])
    assert verdict.complete and verdict.best is None and not any(r.exact for r in below.results)


@pytest.mark.parametrize("spec", GAMES)
def test_shards_combine_into_the_optimum(spec, tmp_path):
    game = load_game(spec)
    sol = solve(game)
    k = len(openings(game))
    cut = max(1, k // 2)
    files = [tmp_path / "a.json", tmp_path / "b.json"]
    value_openings(game, range(cut), sol.total, out=files[0])
    first = combine([Shard.from_json(json.loads(files[0].read_text()), "a")])
    assert first.complete == (cut == k)
    value_openings(game, range(cut, k), sol.total, out=files[1])
    verdict = combine([Shard.from_json(json.loads(f.read_text()), str(f)) for f in files])
    assert verdict.complete and verdict.best == sol.total
    root = game.format_code(game.guesses()[sol.strategy.root.guess])
    assert root in verdict.optimal  # the solve's first guess is one of the openings
    assert all(brute_totals(game)[w] == sol.total for w in verdict.optimal)


@pytest.mark.parametrize("mode", ["normal", "hard"])
def test_wordle_small_lists_in_shards(tmp_path, mode):
    answers, guesses = SMALL["at"]
    game = load_game("wordle", write_lists(tmp_path, answers, guesses) + [f"mode={mode}"])
    brute = Brute(answers, guesses, hard=mode == "hard")
    best = brute.total(*brute.start(), len(answers))
    numbered = openings(game)
    shards = [value_openings(game, [k], best) for k in range(len(numbered))]
    verdict = combine(shards)
    assert verdict.complete and verdict.best == best == solve(game).total


def test_a_shard_resumes_from_its_file(tmp_path):
    """Openings already in the file are not valued again (a planted total survives, if
    the game does not belie it: not below the opening's least total, 201)."""
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    out = tmp_path / "shard.json"
    value_openings(game, [0, 1], 210, out=out)
    doc = json.loads(out.read_text())
    doc["results"][1]["total"] = 203  # planted: a run that recomputed it would write 206
    out.write_text(json.dumps(doc))
    shard = value_openings(game, [0, 1, 2], 210, out=out)
    assert [r.total for r in shard.results][1] == 203 and len(shard.results) == 3
    with pytest.raises(BadFile, match="another job"):
        value_openings(game, [0], 211, out=out)
    doc["results"][1]["total"] = 199
    out.write_text(json.dumps(doc))
    with pytest.raises(
        BadFile, match=r"results\[1\] \(opening 1, '112'\): an exact total 199 below"
    ):
        value_openings(game, [0, 1, 2], 210, out=out)


def test_disagreeing_or_foreign_shards_are_refused(tmp_path):
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    a = value_openings(game, [0, 1], 210)
    b = value_openings(game, [1], 210)
    b.results[0] = type(b.results[0])(1, b.results[0].guess, 207, True)
    with pytest.raises(BadFile, match="disagree"):
        combine([a, b])
    other = value_openings(load_game("mastermind", ["pegs=3", "colors=3"]), [0], 100)
    with pytest.raises(BadFile, match="different jobs"):
        combine([a, other])
    with pytest.raises(BadFile, match="not a shard"):
        Shard.from_json({"kind": "deduction-tree"}, "x.json")


def test_selecting_openings():
    game = load_game("mastermind", ["pegs=4", "colors=6"])
    numbered = openings(game)
    words = [game.format_code(game.guesses()[g]) for g in numbered]
    assert words == ["1111", "1112", "1122", "1123", "1234"]  # one per class, in guess order
    assert select(game, numbered, "1:3") == [1, 2]
    assert select(game, numbered, "3:") == [3, 4]
    assert select(game, numbered, "1234,1122") == [2, 4]
    for bad, needle in [("4:9", "not within"), ("2211", "not an opening"), ("zz", "zz")]:
        with pytest.raises(PerfectplayError, match=needle):
            select(game, numbered, bad)
    assert guess_index(game, "1123") == numbered[3]


def test_the_command_line(tmp_path):
    args = ["mastermind", "pegs=3", "colors=4", "--no-store", "--quiet"]
    res = perfectplay("openings", "list", "mastermind", "pegs=3", "colors=4")
    assert res.returncode == 0 and res.stdout.startswith("3 openings")
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for spec, out in (("0:1", a), ("1:", b)):
        res = perfectplay(
            "openings", "value", *args, "--openings", spec, "--bound", "206", "--out", str(out)
        )
        assert res.returncode == 0, res.stderr
    res = perfectplay("openings", "combine", str(a), "--json")
    assert json.loads(res.stdout)["complete"] is False
    res = perfectplay("openings", "combine", str(a), str(b))
    assert res.returncode == 0 and "proven optimal over all 3 openings: 206/64" in res.stdout
    assert_one_line_error(
        perfectplay("openings", "value", *args, "--bound", "206", "--openings", "7:9"), "not within"
    )
    assert_one_line_error(
        perfectplay("openings", "value", "dice-cards", "n=2", "--bound", "3"),
        "deduction games only",
    )
    assert_one_line_error(
        perfectplay("openings", "combine", str(tmp_path / "none.json")), "none.json"
    )


@pytest.mark.parametrize("heuristic", ["most-parts", "minimax"])
def test_openings_ranked_by_a_heuristic_follow_the_plain_partitions(heuristic):
    # Mastermind 4x4's openings (1111, 1112, 1122, 1123, 1234) ranked by the cells each
    # leaves (the plain rule over every secret), ties to the lower code as the heuristic
    # itself breaks them; the numbers stay those of `--openings A:B`.
    game = load_game("mastermind", ["pegs=4", "colors=4"])
    brute = BruteForce(game)
    numbered = openings(game)
    words = [game.format_code(game.guesses()[k]) for k in numbered]
    cells = {
        w: [len(c) for c in brute.split(brute.guesses[k], brute.secrets).values()]
        for k, w in zip(numbered, words)
    }
    score = {"most-parts": lambda c: -len(c), "minimax": max}[heuristic]
    expected = sorted(range(len(words)), key=lambda k: (score(cells[words[k]]), words[k]))
    res = perfectplay("openings", "list", "mastermind", "pegs=4", "colors=4", "--rank", heuristic)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split(": ", 1)[1].split() == [f"{k}:{words[k]}" for k in expected]
    first = perfectplay(
        "openings",
        "list",
        "mastermind",
        "pegs=4",
        "colors=4",
        "--rank",
        heuristic,
        "--first",
        "2",
        "--words",
    )
    assert first.stdout.split() == [words[k] for k in expected[:2]]


def test_an_unknown_heuristic_is_one_line():
    res = perfectplay("openings", "list", "mastermind", "--rank", "cleverest")
    assert_one_line_error(res, "unknown heuristic 'cleverest'")


@pytest.fixture(scope="module")
def mastermind_shard():
    """Every opening of Mastermind 4x6 valued against 5625: 1123 within it, exactly."""
    game = load_game("mastermind")
    return value_openings(game, range(len(openings(game))), 5625).to_json()


def _record(k, **fields):
    return lambda doc: doc["results"][k].update(fields)


@pytest.mark.parametrize(
    "edit,needle",
    [
        # each of these was believed before (a proof of "5000/1296 by 1234", "no opening
        # within 5625"), or raised an exception other than a one-line error
        (
            _record(4, total=5000, exact=True),
            "results[4] (opening 4, '1234'): an exact total 5000 below its least total 5467",
        ),
        (_record(3, total=5000), "results[3] (opening 3, '1123'): an exact total 5000 below"),
        (lambda d: d.update(openings=4), "the shard says openings 4 where the game gives 5"),
        (_record(3, guess="1124"), "results[3] (opening 3, '1124'): the game's opening 3 is 1123"),
        (_record(3, index=99), "results[3] (opening 99, '1123'): the game has 5 openings"),
        (_record(3, index=-1), "results[3]: its index -1 is not a whole number from 0"),
        (
            _record(0, exact=True, total=5700),
            "results[0] (opening 0, '1111'): an exact total 5700 above",
        ),
        (_record(0, total=5600), "results[0] (opening 0, '1111'): its total 5600 is within"),
        (lambda d: d.update(game="mastermindx"), "unknown game 'mastermindx'"),
        (
            lambda d: d.update(game="dice-cards", params={"n": 3}),
            "dice-cards has no openings to combine",
        ),
        (_record(3, total="5625"), "results[3]: its total '5625' is not a whole number"),
        (_record(3, total=5624.5), "results[3]: its total 5624.5 is not a whole number"),
        (_record(3, exact="yes"), "results[3]: its exact 'yes' is not true or false"),
        (lambda d: d.update(secrets=0), "secrets 0 is not a whole number from 1"),
        (lambda d: d.update(secrets=1297), "the shard says secrets 1297 where the game gives 1296"),
        (lambda d: d.update(limit=5000), "the shard says limit 5000 where the game gives 1296"),
        (lambda d: d.update(params={"pegs": 4}), "the shard says params {'pegs': 4} where"),
        (lambda d: d.update(params={"pegs": [4]}), "the parameter pegs [4] is not text or"),
        (lambda d: d.update(after="1122:0B0W"), "the shard says secrets 1296 where the game"),
        (lambda d: d.update(results={}), "the shard has no list of results"),
        (_record(2, rank=1), "results[2] is not a result (fields: index, guess, total"),
    ],
)
def test_combine_holds_every_record_against_the_game(mastermind_shard, tmp_path, edit, needle):
    path = tmp_path / "shard.json"
    path.write_text(json.dumps(mastermind_shard))
    res = perfectplay("openings", "combine", str(path))
    assert res.stdout.startswith("proven optimal over all 5 openings: 5625/1296"), res.stderr
    doc = json.loads(json.dumps(mastermind_shard))
    edit(doc)
    path.write_text(json.dumps(doc))
    assert_one_line_error(perfectplay("openings", "combine", str(path)), f"{path}: {needle}")


def test_a_shard_of_a_position_is_held_against_the_position(tmp_path):
    """From a position, totals count its guesses too; the least totals do as well."""
    game = load_game("mastermind", ["pegs=3", "colors=4"])
    position = parse_position(game, "112:0B1W")
    shard = value_openings(game, range(len(openings(game, position))), 60, position=position)
    exact = [r for r in shard.results if r.exact]
    path = tmp_path / "after.json"
    path.write_text(json.dumps(shard.to_json()))
    assert perfectplay("openings", "combine", str(path)).returncode == 0
    doc = shard.to_json()
    k = shard.results.index(exact[0])
    doc["results"][k]["total"] = shard.job.secrets  # one guess each: below any bound
    path.write_text(json.dumps(doc))
    assert_one_line_error(perfectplay("openings", "combine", str(path)), "below its least total")


def test_a_jobs_check_looks_at_its_position_once(monkeypatch):
    """The check of a job finds the search and the secrets its position leaves once, and
    its openings from them (it asked for them twice); the openings as ``openings`` gives."""
    from perfectplay.deduction import openings as module

    looked, search_at = [], module._search_at
    monkeypatch.setattr(
        module, "_search_at", lambda game, position: looked.append(1) or search_at(game, position)
    )
    game = load_game("mastermind(pegs=3,colors=4)")
    check = module.ShardCheck(game, (), 206)
    assert len(looked) == 1 and check.numbered == openings(game)
