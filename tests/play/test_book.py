"""Opening books: the shipped strategies replay by the rules, the advisor plays their first
guess at once with what backs it, and a proof over every opening (written by the
project's own commands) is what makes it "proven optimal"."""

import json
from pathlib import Path

import pytest

from perfectplay import load_game
from perfectplay.games.wordle import LISTS, Wordle
from perfectplay import book
from perfectplay.book import book_opening

from ..cli_runner import perfectplay
from ..deduction.test_wordle import SMALL, Brute, write_lists

BOOK = Path(book.__file__).parent / "games" / "data" / "book"
ROOT = Path(__file__).resolve().parents[2]
SHIPPED = sorted(BOOK.glob("wordle-*.json"))


def test_the_books_shipped_are_named_for_a_list_and_mode():
    """Every named list has its book in both modes, and every proof lies beside one."""
    names = {p.name for p in SHIPPED if not p.name.endswith(".proof.json")}
    named = {f"wordle-{lists}-{mode}.json" for lists in LISTS for mode in ("normal", "hard")}
    assert names == named
    proofs = {p.name.replace(".proof.json", ".json") for p in SHIPPED} - names
    assert not proofs


@pytest.mark.parametrize(
    "path", [p for p in SHIPPED if not p.name.endswith(".proof.json")], ids=lambda p: p.name
)
def test_each_shipped_book_replays_by_the_rules(path):
    """Every total the document states is replayed over every answer, and it is the book
    of the game its name says (its claim of optimality after its first guess is solved
    again by the slow test below)."""
    document = json.loads(path.read_text())
    lists, mode = path.stem.removeprefix("wordle-").rsplit("-", 1)
    assert document["params"] == load_game("wordle", [f"lists={lists}", f"mode={mode}"]).params
    res = perfectplay("verify", str(path), "--json", "--no-solve")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["total"] == document["total"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", [p for p in SHIPPED if not p.name.endswith(".proof.json")], ids=lambda p: p.name
)
def test_each_shipped_books_claim_is_solved_again(path):
    res = perfectplay("verify", str(path), "--json")
    assert res.returncode == 0, res.stderr


def test_the_original_lists_open_with_the_published_optimum():
    """The book's strategy for the original lists reaches 7,920, the optimum Selby proved
    (with SALET), and says what backs it."""
    opening = book_opening(load_game("wordle"))
    game = load_game("wordle")
    assert opening is not None and opening.total == 7920
    assert game.format_code(game.guesses()[opening.guess]) == "salet"
    assert opening.label == "proven optimal over all 12,972 openings, 7,920 guesses in total"


def test_the_shipped_proof_is_what_the_kept_shards_prove():
    """The proof beside the original lists' book is the verdict of the shard files the
    project ran and keeps (docs/results/wordle-original-normal), combined again here."""
    shards = sorted((ROOT / "docs" / "results" / "wordle-original-normal").glob("shard-*.json"))
    res = perfectplay("openings", "combine", *map(str, shards), "--json")
    assert res.returncode == 0, res.stderr
    verdict = json.loads(res.stdout)
    assert verdict == json.loads((BOOK / "wordle-original-normal.proof.json").read_text())
    assert verdict["complete"] and verdict["openings"] == 12972 == verdict["valued"]
    assert (verdict["best"], verdict["optimal"]) == (7920, ["salet"])


@pytest.mark.parametrize("mode, ranked_first", [("hard", 20), ("normal", 10)])
def test_the_2023_books_are_the_best_of_the_openings_the_project_valued(mode, ranked_first):
    """On the 2023 lists each mode opens with the best of the openings the project valued
    exactly (the first ones by most parts: docs/results/wordle-nyt-2023-MODE-book),
    labelled as the upper bound it is; the partial proof shipped is what the kept shard
    proves."""
    folder = ROOT / "docs" / "results" / f"wordle-nyt-2023-{mode}-book"
    (shard,) = folder.glob("shard-*.json")
    res = perfectplay("openings", "combine", str(shard), "--json")
    assert res.returncode == 0, res.stderr
    verdict = json.loads(res.stdout)
    assert verdict == json.loads((BOOK / f"wordle-nyt-2023-{mode}.proof.json").read_text())
    assert not verdict["complete"] and verdict["valued"] >= ranked_first
    # the openings valued include the first ones by the project's own ranking
    ranked = perfectplay(
        "openings",
        "list",
        "wordle",
        "lists=nyt-2023",
        f"mode={mode}",
        "--rank",
        "most-parts",
        "--first",
        str(ranked_first),
        "--words",
    )
    valued = {r["guess"] for r in json.loads(shard.read_text())["results"]}
    assert set(ranked.stdout.split()) <= valued
    game = load_game("wordle", ["lists=nyt-2023", f"mode={mode}"])
    opening = book_opening(game)
    assert opening is not None and opening.total == verdict["best"]
    assert [game.format_code(game.guesses()[opening.guess])] == verdict["optimal"]
    assert opening.label == (
        f"the best of the {verdict['valued']} openings valued so far, of 14,855: an upper "
        f"bound, {verdict['best']:,} guesses in total"
    )


def test_no_book_for_other_lists_or_games(tmp_path):
    (tmp_path / "a.txt").write_text("salet\ntarse\n")
    assert book_opening(load_game("wordle", [f"answers={tmp_path / 'a.txt'}"])) is None
    assert book_opening(load_game("wordle", ["turns=7"])) is None
    assert book_opening(load_game("mastermind")) is None


def test_without_a_book_the_heuristic_answers_the_first_turn_and_says_so(tmp_path):
    (tmp_path / "a.txt").write_text("salet\ntarse\ncrane\nslate\n")
    res = perfectplay(
        "play", "wordle", f"answers={tmp_path / 'a.txt'}", "--budget", "0", input="quit\n"
    )
    assert res.returncode == 0, res.stderr
    assert "(rule of thumb: most parts, not proven best)" in res.stdout
    assert "guesses in total" not in res.stdout


def test_the_terminal_advisor_plays_the_book_where_its_strategy_goes_then_searches():
    """The book's opening, then its strategy's guess after it (proven: every part of a
    strategy optimal after its first guess is optimal); off its strategy, the search."""
    res = perfectplay("play", "wordle", "--budget", "0", input="\nBBYBB\nquit\n")
    assert res.returncode == 0, res.stderr
    opening = book_opening(load_game("wordle"))
    first, second = (" ".join(part.split()) for part in res.stdout.split("turn 2"))
    assert f"suggested guess: salet ({opening.label}; " in first
    assert "(proven optimal: the book's strategy, optimal at every position after" in second
    off = perfectplay("play", "wordle", "--budget", "0", input="crane\nBBBBB\nquit\n")
    assert "not proven" in " ".join(off.stdout.split("turn 2")[1].split())


def test_the_label_says_what_backs_the_book(tmp_path, monkeypatch):
    """A --top strategy is an upper bound; one solved after a given first guess is optimal
    after it; one solved from the start is proven optimal; with the proof over every
    opening beside it (made by `openings value` and `openings combine`), it is proven
    optimal over all openings; a proof of another total is not taken."""
    answers, guesses = SMALL["beer"]
    args = write_lists(tmp_path, answers, guesses)
    game = load_game("wordle", args)
    target = tmp_path / "book.json"
    monkeypatch.setattr(Wordle, "opening_book", lambda self: target)

    def opening():
        book._opening.cache_clear()
        return book_opening(game)

    brute = Brute(answers, guesses, hard=False)
    optimum = brute.total(*brute.start(), len(answers))
    assert opening() is None  # nothing written yet
    run = ("solve", "wordle", *args, "--no-store", "--quiet", "--out", str(target))
    assert perfectplay(*run, "--top", "1").returncode == 0
    assert opening().label.startswith("best found by --top 1: an upper bound, ")
    assert perfectplay(*run, "--first", "babe").returncode == 0
    first = opening()
    assert first.label.startswith("optimal after this first guess, which no proof ")
    # a proof over some openings, the book's first guess the best of them: an upper bound
    part = tmp_path / "part.json"
    value = ("openings", "value", "wordle", *args, "--no-store", "--quiet")
    res = perfectplay(*value, "--openings", "babe", "--bound", str(first.total), "--out", str(part))
    assert res.returncode == 0, res.stderr
    proof = json.loads(perfectplay("openings", "combine", str(part), "--json").stdout)
    assert not proof["complete"] and proof["optimal"] == ["babe"]
    (tmp_path / "book.proof.json").write_text(json.dumps(proof))
    assert opening().label == (
        f"the only opening valued so far, of {proof['openings']:,}: an upper bound, "
        f"{first.total:,} guesses in total"
    )
    (tmp_path / "book.proof.json").unlink()
    assert perfectplay(*run).returncode == 0
    found = opening()
    assert found.total == optimum and found.label.startswith("proven optimal")
    assert "openings" not in found.label  # proven given the position, not over every opening

    shard = tmp_path / "shard.json"
    res = perfectplay(*value, "--bound", str(optimum), "--out", str(shard))
    assert res.returncode == 0, res.stderr
    res = perfectplay("openings", "combine", str(shard), "--json")
    proof = json.loads(res.stdout)
    (tmp_path / "book.proof.json").write_text(json.dumps(proof))
    assert opening().label == (
        f"proven optimal over all {proof['openings']:,} openings, {optimum:,} guesses in total"
    )
    (tmp_path / "book.proof.json").write_text(json.dumps({**proof, "best": optimum - 1}))
    assert "openings" not in opening().label
