"""Wordle: the feedback rule against a plain implementation, the word lists, hard mode,
and exact solves of small word lists checked by a plain brute force."""

import itertools
import json
from functools import lru_cache

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from perfectplay import load_game, solve
from perfectplay.deduction import feedback as feedback_table
from perfectplay.deduction.check import check_game
from perfectplay.deduction.verify import replay
from perfectplay.errors import BadParameter, PerfectplayError

from ..cli_runner import assert_one_line_error, perfectplay

INF = float("inf")


# --- a plain statement of the rules, on strings --------------------------------------------
def plain_feedback(guess: str, answer: str) -> str:
    """Greens first; then left to right, yellow while an unmatched copy remains in the answer."""
    marks = ["G" if g == a else "B" for g, a in zip(guess, answer)]
    unmatched = [a for g, a in zip(guess, answer) if g != a]
    for p, g in enumerate(guess):
        if marks[p] == "B" and g in unmatched:
            unmatched.remove(g)
            marks[p] = "Y"
    return "".join(marks)


def plain_hard_allows(history: list[tuple[str, str]], word: str) -> bool:
    """The published hard mode: greens stay in place; each revealed letter (G or Y) is used
    at least as often as one guess revealed it."""
    for guess, marks in history:
        if any(m == "G" and word[p] != g for p, (g, m) in enumerate(zip(guess, marks))):
            return False
        for letter in set(guess):
            revealed = sum(1 for g, m in zip(guess, marks) if g == letter and m in "GY")
            if word.count(letter) < revealed:
                return False
    return True


def encode(marks: str) -> int:
    return sum("BYG".index(m) * 3**p for p, m in enumerate(marks))


def as_codes(words: list[str]) -> np.ndarray:
    return np.array([[ord(ch) - ord("a") for ch in w] for w in words], dtype=np.int8)


def write_lists(tmp_path, answers: list[str], guesses: list[str]) -> list[str]:
    (tmp_path / "answers.txt").write_text("\n".join(answers) + "\n")
    (tmp_path / "guesses.txt").write_text("\n".join(guesses) + "\n")
    return [f"answers={tmp_path / 'answers.txt'}", f"guesses={tmp_path / 'guesses.txt'}"]


# --- the feedback rule ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "guess, answer, marks",
    [
        ("speed", "abide", "BBYBY"),  # one E in ABIDE: only the first E of SPEED is yellow
        ("speed", "erase", "YBYYB"),  # two Es in ERASE: both yellow
        ("lolly", "hello", "BYGGB"),  # both Ls of HELLO matched by greens: the first L is grey
        ("geese", "those", "BBBGG"),  # the one E of THOSE is the green one
        ("eerie", "there", "YBYBG"),  # THERE's other E makes the first E yellow, the second grey
        ("array", "ratty", "YYBBG"),  # one R, one A to match
        ("sassy", "asset", "YYGBB"),  # the green S takes one of ASSET's two Ss
        ("salet", "salet", "GGGGG"),
    ],
)
def test_hand_worked_examples(guess, answer, marks):
    game = load_game("wordle")
    assert plain_feedback(guess, answer) == marks
    assert (
        game.format_feedback(game.feedback(game.parse_code(guess), game.parse_code(answer)))
        == marks
    )
    out = feedback_table.compute_feedback(game, as_codes([guess]), as_codes([answer]))
    assert int(out[0, 0]) == encode(marks)  # the compiled kernel's


def words(alphabet: str, length: int, most: int):
    return st.lists(st.text(alphabet, min_size=length, max_size=length), min_size=1, max_size=most)


@st.composite
def word_batches(draw):
    """Guesses and answers of one length, often over 2-3 letters (many repeats)."""
    length = draw(st.integers(1, 5))
    alphabet = draw(st.sampled_from(["ab", "abc", "abcde", "abcdefghijklmnopqrstuvwxyz"]))
    return draw(words(alphabet, length, 12)), draw(words(alphabet, length, 12))


@settings(max_examples=200, deadline=None)
@given(word_batches())
def test_kernel_and_scalar_rule_match_the_plain_rule(batch):
    guesses, answers = batch
    game = load_game("wordle")
    out = np.empty((len(guesses), len(answers)), dtype=np.uint8)
    # the kernel itself, on words of any length (the engine's compute_feedback holds its
    # output to the game's own codes: solved exactly where the guess is the answer)
    game.feedback_kernel()(as_codes(guesses), as_codes(answers), out)
    for i, g in enumerate(guesses):
        for j, a in enumerate(answers):
            assert int(out[i, j]) == encode(plain_feedback(g, a)), (g, a)
            assert game.feedback(as_codes([g])[0], as_codes([a])[0]) == out[i, j]


def test_threaded_kernel_equals_the_scalar_rule_on_the_real_lists(monkeypatch):
    monkeypatch.setattr(feedback_table, "PARALLEL_ENTRIES", 1)  # rows on every core
    game = load_game("wordle")
    guesses, answers = game.guesses()[::20], game.secrets()  # 649 x 2,315
    out = feedback_table.compute_feedback(game, guesses, answers)
    rng = np.random.default_rng(1)
    for i, j in zip(rng.integers(0, len(guesses), 300), rng.integers(0, len(answers), 300)):
        g, a = game.format_code(guesses[i]), game.format_code(answers[j])
        assert int(out[i, j]) == encode(plain_feedback(g, a)), (g, a)


def test_feedback_notation():
    game = load_game("wordle")
    f = encode("GYBBG")
    assert game.format_feedback(f) == "GYBBG"
    for text in (
        "GYBBG",
        "gybbg",
        " g y b b g ",
        "GY..G",
        "gy--g",
        "🟩🟨⬛⬛🟩",
        "🟩🟨⬜⬜🟩",
        "🟧🟦⬛️⬛️🟧",
    ):
        assert game.parse_feedback(text) == f, text
    assert game.display_feedback(f, terminal=False) == "GYBBG"
    assert game.display_feedback(f, terminal=True) == "🟩🟨⬛⬛🟩 GYBBG"
    for bad in ("GYBB", "GYBBGG", "GYBBX", "12345", ""):
        with pytest.raises(PerfectplayError, match="cannot read feedback"):
            game.parse_feedback(bad)
    assert game.format_code(game.parse_code(" SaLeT ")) == "salet"
    for bad in ("sale", "salets", "sal3t", "salét"):
        with pytest.raises(PerfectplayError, match="cannot read word"):
            game.parse_code(bad)


# --- the word lists ------------------------------------------------------------------------
def test_the_original_lists_ship_with_the_package():
    game = load_game("wordle")
    guesses, secrets = game.guesses(), game.secrets()
    assert guesses.shape == (12972, 5) and secrets.shape == (2315, 5)
    assert game.n_feedbacks() == 243 and game.solved_feedback() == 242
    known = {game.format_code(c) for c in guesses}
    answers = [game.format_code(c) for c in secrets]
    assert set(answers) <= known and {"salet", "crane", "aahed"} <= known
    assert answers[0] == "aback" and answers[-1] == "zonal"
    assert str(game) == "wordle" and game.spec == "wordle(lists=original,mode=normal,turns=6)"
    assert game.params == {
        "lists": "original",
        "answers": "",
        "guesses": "",
        "mode": "normal",
        "turns": 6,
    }


@pytest.mark.parametrize(
    "lists, answers, first, last",
    [
        ("nyt-2022", 2309, "aback", "zonal"),
        ("nyt-2023", 3158, "aback", "zowie"),
    ],
)
def test_the_new_york_times_lists_by_name(lists, answers, first, last):
    """The NYT lists ship too: 14,855 guesses with every answer among them (none added)."""
    game = load_game("wordle", [f"lists={lists}"])
    words = [game.format_code(c) for c in game.secrets()]
    assert game.guesses().shape == (14855, 5) and len(words) == answers
    assert (words[0], words[-1]) == (first, last) and game.params["lists"] == lists
    assert str(game) == f"wordle(lists={lists})"  # the parameters at their defaults unsaid


def test_files_replace_the_named_lists(tmp_path):
    """answers= replaces the chosen lists' answers and keeps their guesses; the result
    names both."""
    (tmp_path / "a.txt").write_text("salet\ntarse\n")
    game = load_game("wordle", ["lists=nyt-2022", f"answers={tmp_path / 'a.txt'}"])
    assert len(game.secrets()) == 2 and len(game.guesses()) == 14855
    res = perfectplay(
        "solve",
        "wordle",
        "lists=nyt-2022",
        f"answers={tmp_path / 'a.txt'}",
        "--no-store",
        "--json",
        "--quiet",
    )
    assert res.returncode == 0, res.stderr
    params = json.loads(res.stdout)["params"]
    assert params["lists"] == "nyt-2022" and params["answers"] == str(tmp_path / "a.txt")


def test_an_unknown_list_is_a_one_line_error_naming_the_choices():
    assert_one_line_error(
        perfectplay("solve", "wordle", "lists=nyt-2024"),
        "choose one of original, nyt-2022, nyt-2023",
    )


@pytest.mark.parametrize("mode", ["normal", "hard"])
def test_check_game_on_the_original_lists(mode):
    check_game(load_game("wordle", [f"mode={mode}"]))


def test_lists_by_parameter(tmp_path):
    # upper case, blank lines, a byte-order mark and duplicates are read; answers join the guesses
    (tmp_path / "a.txt").write_text("\ufeffCAT\n\ncot\ncat\n  dog  \n", encoding="utf-8")
    (tmp_path / "g.txt").write_text("tea\neat\ncat\n")
    game = load_game("wordle", [f"answers={tmp_path / 'a.txt'}", f"guesses={tmp_path / 'g.txt'}"])
    assert [game.format_code(c) for c in game.secrets()] == ["cat", "cot", "dog"]
    assert [game.format_code(c) for c in game.guesses()] == ["cat", "cot", "dog", "eat", "tea"]
    assert game.length() == 3 and game.n_feedbacks() == 27
    check_game(game, samples=50)
    # the parameters name the files by absolute path: the game is rebuilt from them anywhere
    again = load_game("wordle", [f"{k}={v}" for k, v in game.params.items()])
    assert again == game and str(game).startswith(f"wordle(answers={tmp_path / 'a.txt'},")


def test_lists_by_relative_path(tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("ab\nba\n")
    monkeypatch.chdir(tmp_path)
    game = load_game("wordle", ["answers=a.txt", "guesses=a.txt"])
    assert game.params["answers"] == str(tmp_path / "a.txt") and len(game.guesses()) == 2


@pytest.mark.parametrize(
    "answers, guesses, needle",
    [
        (None, "cat\n", "cannot read answers file"),
        ("", "cat\n", "holds no words"),
        ("cat\n\n \n", "", "guesses file"),
        ("cat\nc4t\n", "cat\n", "line 2: 'c4t' is not a word of letters a-z"),
        ("cat\ncoat\n", "cat\n", "line 2: 'coat' has 4 letters, the first word 'cat' 3"),
        ("cat\nbig dog\n", "cat\n", "line 2: 'big dog' is not a word of letters a-z"),
        ("cat\ncät\n", "cat\n", "line 2: 'cät' is not a word of letters a-z"),
        ("cat\n", "coat\n", "the answers have 3 letters but the guesses 4"),
        ("abcdefghijk\n", "abcdefghijk\n", "at most 10 letters are supported"),
    ],
)
def test_bad_lists_are_one_line_errors(tmp_path, answers, guesses, needle):
    a, g = tmp_path / "a.txt", tmp_path / "g.txt"
    if answers is not None:
        a.write_text(answers)
    g.write_text(guesses)
    with pytest.raises(BadParameter, match=needle):
        load_game("wordle", [f"answers={a}", f"guesses={g}"])
    assert_one_line_error(perfectplay("solve", "wordle", f"answers={a}", f"guesses={g}"), needle)


def test_a_directory_or_binary_file_is_refused(tmp_path):
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00abc")
    assert_one_line_error(
        perfectplay("play", "wordle", f"answers={tmp_path}"), "is a directory, not a file"
    )
    assert_one_line_error(
        perfectplay("play", "wordle", f"guesses={tmp_path / 'bin.txt'}"), "is not UTF-8 text"
    )


def test_the_parameters_are_listed():
    res = perfectplay("list")
    assert res.returncode == 0 and "wordle" in res.stdout and "guesses=PATH" in res.stdout
    assert "lists=original" in res.stdout and "nyt-2023" in res.stdout


# --- hard mode -----------------------------------------------------------------------------
@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.booleans())
@example(seed=562, turns=2, consistent=False)  # two greens in one place: nothing is allowed
def test_hard_mode_is_the_plain_rule_on_random_histories(seed, turns, consistent):
    """On the real lists: histories played against one answer, or with arbitrary feedback
    (contradictory ones included)."""
    game = load_game("wordle", ["mode=hard"])
    guesses, words = game.guesses(), _words(game)
    rng = np.random.default_rng(seed)
    answer = words[int(rng.integers(len(words)))]
    history, plain = [], []
    for _ in range(turns):
        g = int(rng.integers(len(words)))
        marks = (
            plain_feedback(words[g], answer) if consistent else "".join(rng.choice(list("BYG"), 5))
        )
        history.append((g, encode(marks)))
        plain.append((words[g], marks))
    mask = game.restrict_guesses(tuple(history), guesses)
    assert mask.tolist() == [plain_hard_allows(plain, w) for w in words]
    if consistent:
        assert mask[words.index(answer)]


def test_hard_mode_examples():
    game = load_game("wordle", ["mode=hard"])
    words = _words(game)
    history = ((words.index("speed"), encode("BBYBY")),)  # answer ABIDE
    allowed = {w for w, ok in zip(words, game.restrict_guesses(history, game.guesses())) if ok}
    assert {"abide", "edict", "dread"} <= allowed  # one E and a D, anywhere
    assert not {"crane", "salet", "dirty"} & allowed  # no D, no D, no E
    history = ((words.index("lolly"), encode("BYGGB")),)  # answer HELLO
    allowed = {w for w, ok in zip(words, game.restrict_guesses(history, game.guesses())) if ok}
    assert "hello" in allowed and "balls" not in allowed and "knoll" not in allowed
    assert "allow" not in allowed  # its Ls are not in the green places
    assert load_game("wordle").restrict_guesses(history, game.guesses()) is None


@lru_cache(maxsize=4)
def _words(game) -> tuple[str, ...]:
    """The guesses of `game` as words (computed once per game)."""
    return tuple(game.format_code(c) for c in game.guesses())


# --- exact solves of small lists, checked by brute force -----------------------------------
ABC = ["".join(w) for w in itertools.product("abc", repeat=3)]
SMALL = {
    "abc": (["aab", "aba", "abc", "bba", "bcb", "cab", "cca", "ccc", "acb"], ABC),
    "beer": (
        ["bead", "bear", "beer", "deer", "dear", "read", "reed"],
        [
            "bead",
            "bear",
            "beer",
            "deer",
            "dear",
            "read",
            "reed",
            "bred",
            "bard",
            "dare",
            "drab",
            "abed",
            "babe",
        ],
    ),
    # found by a random search: the probe words reveal letters that hard mode then keeps
    "at": (
        ["cat", "hat", "mat", "pat", "rat", "sat"],
        ["cat", "hat", "mat", "pat", "rat", "sat", "pmt", "has"],
    ),
}


class Brute:
    """Every allowed guess at every position, no pruning; hard mode by `plain_hard_allows`."""

    def __init__(self, answers: list[str], guesses: list[str], hard: bool):
        self.guesses = sorted(set(guesses) | set(answers))
        self.answers = frozenset(answers)
        self.hard = hard
        self.solved = "G" * len(answers[0])

    def moves(self, consistent: frozenset, allowed: frozenset):
        """(guess, cells other than solved, allowed after each cell) of each guess that helps."""
        for g in sorted(allowed):
            cells: dict[str, set] = {}
            for s in consistent:
                cells.setdefault(plain_feedback(g, s), set()).add(s)
            if len(cells) == 1 and self.solved not in cells:
                continue  # learns nothing
            yield [
                (frozenset(c), self.after(allowed, g, m))
                for m, c in cells.items()
                if m != self.solved
            ]

    def after(self, allowed: frozenset, guess: str, marks: str) -> frozenset:
        if not self.hard:
            return allowed
        return frozenset(w for w in allowed if plain_hard_allows([(guess, marks)], w))

    @lru_cache(maxsize=None)
    def total(self, consistent: frozenset, allowed: frozenset, cap: int) -> float:
        if cap == 0:
            return INF
        return min(
            (
                len(consistent) + sum(self.total(c, a, cap - 1) for c, a in cells)
                for cells in self.moves(consistent, allowed)
            ),
            default=INF,
        )

    @lru_cache(maxsize=None)
    def worst(self, consistent: frozenset, allowed: frozenset) -> float:
        return min(
            (
                1 + max((self.worst(c, a) for c, a in cells), default=0)
                for cells in self.moves(consistent, allowed)
            ),
            default=INF,
        )

    def start(self) -> tuple[frozenset, frozenset]:
        return self.answers, frozenset(self.guesses)


def hard_legal(root: dict, history: list[tuple[str, str]]) -> bool:
    """Every guess of a tree allowed by the plain hard-mode rule after its own history."""
    if not plain_hard_allows(history, root["guess"]):
        return False
    return all(
        hard_legal(child, history + [(root["guess"], marks)])
        for marks, child in (root.get("next") or {}).items()
    )


@pytest.mark.parametrize("lists", sorted(SMALL))
@pytest.mark.parametrize("mode", ["normal", "hard"])
def test_small_lists_solved_exactly(tmp_path, lists, mode):
    answers, guesses = SMALL[lists]
    game = load_game("wordle", write_lists(tmp_path, answers, guesses) + [f"mode={mode}"])
    brute = Brute(answers, guesses, hard=mode == "hard")
    start = brute.start()
    best = solve(game, "expected")
    assert best.extra["total"] == brute.total(*start, len(answers))
    worst = solve(game, "worst")
    assert worst.value == brute.worst(*start)
    assert worst.extra["total"] == brute.total(*start, int(worst.value))
    for sol in (best, worst):
        root = sol.strategy.to_json()["root"]
        stats = replay(game, root).stats
        assert (stats.total, stats.worst) == (sol.extra["total"], sol.extra["worst"])
        if mode == "hard":
            assert hard_legal(root, [])


def test_hard_mode_costs_more_on_some_list(tmp_path):
    """Normal: 17 guesses in all, 4 at worst; hard mode keeps what the probes reveal."""
    game = load_game("wordle", write_lists(tmp_path, *SMALL["at"]))
    hard = load_game("wordle", write_lists(tmp_path, *SMALL["at"]) + ["mode=hard"])
    assert (solve(game).extra["total"], solve(game, "worst").value) == (17, 4)
    assert (solve(hard).extra["total"], solve(hard, "worst").value) == (18, 5)


def test_solve_export_and_verify_by_the_command_line(tmp_path):
    answers, guesses = SMALL["beer"]
    args = write_lists(tmp_path, answers, guesses)
    out = tmp_path / "tree.json"
    res = perfectplay("solve", "wordle", *args, "mode=hard", "--json", "--out", str(out), "--quiet")
    assert res.returncode == 0, res.stderr
    total = json.loads(res.stdout)["total"]
    brute = Brute(answers, guesses, hard=True)
    assert total == brute.total(*brute.start(), len(answers))
    res = perfectplay("verify", str(out), "--json", cwd=str(tmp_path.parent))
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["total"] == total


@pytest.mark.slow
@pytest.mark.parametrize("mode,total,worst", [("normal", 7920, 5), ("hard", 8122, 6)])
def test_salet_opening_values(mode, total, worst):
    """Selby's values with SALET first, within the six guesses Wordle allows: 7920/2315
    (normal), 8122/2315 (hard mode)."""
    from perfectplay import solve
    from perfectplay.deduction.position import guess_index

    game = load_game("wordle", [f"mode={mode}"])
    sol = solve(game, "expected", first=guess_index(game, "salet"), workers=2)
    assert (sol.extra["total"], sol.extra["secrets"], sol.extra["worst"]) == (total, 2315, worst)


def test_salet_hard_mode_on_the_2022_lists():
    """Selby's published value (results_hard_nyt20220830): SALET in hard mode on the New
    York Times lists of August 2022, 8097 guesses over the 2,309 answers."""
    from perfectplay.deduction.position import guess_index

    game = load_game("wordle", ["lists=nyt-2022", "mode=hard"])
    sol = solve(game, "expected", first=guess_index(game, "salet"), workers=2)
    assert (sol.extra["total"], sol.extra["secrets"], sol.extra["worst"]) == (8097, 2309, 6)


@pytest.mark.slow
@pytest.mark.parametrize(
    "lists, mode, first, total, secrets",
    [
        ("nyt-2022", "normal", "salet", 7894, 2309),
        ("nyt-2022", "normal", "tarse", 7883, 2309),
        ("nyt-2023", "hard", "tarse", 11627, 3158),
    ],
)
def test_published_values_on_the_new_york_times_lists(lists, mode, first, total, secrets):
    """Selby's published per-opening values (results_{easy,hard}_nyt20220830 and
    _nyt20230701)."""
    from perfectplay.deduction.position import guess_index

    game = load_game("wordle", [f"lists={lists}", f"mode={mode}"])
    sol = solve(game, "expected", first=guess_index(game, first), workers=2)
    assert (sol.extra["total"], sol.extra["secrets"]) == (total, secrets)


@pytest.mark.slow
def test_hard_mode_salet_without_the_six_guess_limit():
    """With no limit in practice (turns=50) hard mode does better on average, 8116, by
    needing a seventh guess for two answers: the limit of six is what costs the 6."""
    from perfectplay import solve
    from perfectplay.deduction.position import guess_index

    game = load_game("wordle", ["mode=hard", "turns=50"])
    sol = solve(game, "expected", first=guess_index(game, "salet"), workers=2)
    assert (sol.extra["total"], sol.extra["worst"], sol.extra["histogram"]["7"]) == (8116, 7, 2)
