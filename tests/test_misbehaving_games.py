"""A user's rules are checked where they are used: games that break one clause of their
protocol each (deduction and Markov), every one refused in one line naming the game,
the method and the first bad value (or the exception), exit 2, no traceback, and never
"proven optimal", by ``solve``, ``check_game`` and, where they read the rules,
``verify``, ``play`` and the Gymnasium environments."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from perfectplay import catalogue
from perfectplay.deduction.model import DeductionGame, Symmetry
from perfectplay.errors import BadRules
from perfectplay.markov.model import Expansion, MarkovGame

from .cli_runner import perfectplay


@dataclass(frozen=True)
class Numbers(DeductionGame):
    """Higher or lower over 7 numbers: rules that keep the protocol (17/7)."""

    name = "numbers"
    summary = "find a number from 1 to 7, told higher or lower"

    def length(self):
        return 1

    def n_symbols(self):
        return 7

    def guesses(self):
        return np.arange(7, dtype=np.int8).reshape(-1, 1)

    def n_feedbacks(self):
        return 3

    def solved_feedback(self):
        return 2

    def feedback(self, guess, secret):
        g, s = int(guess[0]), int(secret[0])
        return 2 if g == s else (0 if s < g else 1)


@dataclass(frozen=True)
class Landing(MarkovGame):
    """Exact landing from 3 steps (a die, walk or stay): rules that keep the protocol (6)."""

    name = "landing"
    summary = "roll a die and walk exactly home"

    def initial_state(self):
        return 3

    def is_terminal(self, states):
        return states == 0

    def expand(self, states):
        walk = states[:, None] - np.arange(1, 7)[None, :]
        stay = np.broadcast_to(states[:, None], walk.shape)
        nxt = np.stack([np.where(walk >= 0, walk, -1), stay], axis=2)
        return Expansion(np.ones((len(states), 6), np.int64), nxt, np.ones_like(nxt))


def _changed(expansion, weight=None, nxt=None, cost=None) -> Expansion:
    return Expansion(
        expansion.weight if weight is None else weight,
        expansion.next if nxt is None else nxt,
        expansion.cost if cost is None else cost,
    )


def _expanding(change):
    """An ``expand`` that changes the sound one's answer by `change(expansion, states)`."""
    return lambda self, states: change(Landing.expand(self, states), states)


def _feedback(change):
    """A ``feedback`` that answers `change(guess, secret, sound answer)`."""
    return lambda self, g, s: change(int(g[0]), int(s[0]), Numbers.feedback(self, g, s))


def _raise(error):
    def rule(self, *args):
        raise error

    return rule


def _drawing():
    """A feedback drawn at random wherever the guess is not the secret (seeded: the same
    draws every run)."""
    rng = np.random.default_rng(1)

    def feedback(self, g, s):
        answer = Numbers.feedback(self, g, s)
        return answer if answer == 2 else int(rng.integers(2))

    return feedback


def _python_kernel(answer):
    """A feedback kernel (not compiled) filling each entry with `answer(g, s, sound)`."""

    def feedback_kernel(self):
        def kernel(guesses, secrets, out):
            for i, g in enumerate(guesses):
                for j, s in enumerate(secrets):
                    out[i, j] = answer(int(g[0]), int(s[0]), Numbers.feedback(self, g, s))

        return kernel

    return feedback_kernel


def _moved_alone():
    """An expand that answers a state asked alone otherwise than in a batch (the start
    aside: it is the exploration's first batch, alone)."""

    def expand(self, states):
        e = Landing.expand(self, states)
        if len(states) == 1 and states[0] != 3:
            return _changed(e, weight=np.full_like(e.weight, 2) * np.arange(1, 7))
        return e

    return expand


#: (method named, overrides, the message's words after "GAME: ") for deduction games.
DEDUCTION = {
    "length-text": ({"length": lambda self: "1"}, "length() gave '1', not an integer"),
    "no-symbols": ({"n_symbols": lambda self: 0}, "n_symbols() gave 0, not an integer from 1"),
    "float-feedbacks": ({"n_feedbacks": lambda self: 3.0}, "n_feedbacks() gave 3.0"),
    "solved-out": ({"solved_feedback": lambda self: 3}, "solved_feedback() gave 3"),
    "guesses-none": ({"guesses": lambda self: None}, "guesses() gave NoneType, not a numpy"),
    "guesses-flat": (
        {"guesses": lambda self: np.arange(7, dtype=np.int8)},
        "guesses() gave an array of shape (7,), not (codes, 1)",
    ),
    "guesses-int64": (
        {"guesses": lambda self: np.arange(7).reshape(-1, 1)},
        "guesses() gave int64 codes, not int8",
    ),
    "guesses-symbol": (
        {"guesses": lambda self: np.arange(1, 8, dtype=np.int8).reshape(-1, 1)},
        "guesses(): code 6 holds symbol 7 at position 1, outside 0 to 6",
    ),
    "guesses-unsorted": (
        {"guesses": lambda self: np.arange(6, -1, -1, dtype=np.int8).reshape(-1, 1)},
        "guesses() lists 6 after 7",
    ),
    "guesses-twice": (
        {"guesses": lambda self: np.array([[0], [0], [1], [2]], dtype=np.int8)},
        "guesses() lists 1 twice",
    ),
    "secret-unguessed": (
        {
            "secrets": lambda self: np.array([[0], [6]], dtype=np.int8),
            "guesses": lambda self: np.arange(6, dtype=np.int8).reshape(-1, 1),
        },
        "secrets() lists 7, which guesses() does not",
    ),
    "miscounted": ({"n_guesses": lambda self: 5}, "n_guesses() gave 5, but the list holds 7"),
    "feedback-high": (
        {"feedback": _feedback(lambda g, s, f: 5 if (g, s) == (3, 1) else f)},
        "feedback(): the feedback of guess 4 to secret 2 is 5, outside 0 to 2",
    ),
    "feedback-negative": (
        {"feedback": _feedback(lambda g, s, f: -1 if (g, s) == (3, 1) else f)},
        "feedback(): the feedback of guess 4 to secret 2 is -1, outside 0 to 2",
    ),
    "feedback-float": (
        {"feedback": _feedback(lambda g, s, f: f + 0.5)},
        "feedback(): the feedback of guess 1 to secret 1 is 2.5, not an integer",
    ),
    "feedback-none": (
        {"feedback": _feedback(lambda g, s, f: None)},
        "feedback(): the feedback of guess 1 to secret 1 is None, not an integer",
    ),
    "solved-wrongly": (
        {"feedback": _feedback(lambda g, s, f: 2 if (g, s) == (3, 1) else f)},
        "the feedback of guess 4 to secret 2 is the solved feedback 2, but the guess is not",
    ),
    "never-solved": (
        {"feedback": _feedback(lambda g, s, f: 0 if g == s == 4 else f)},
        "the feedback of guess 5 to secret 5 is 0, not the solved 2",
    ),
    "feedback-raises": (
        {"feedback": _raise(ValueError("no such number"))},
        "feedback() raised ValueError: no such number",
    ),
    "guesses-raise": ({"guesses": _raise(KeyError("codes"))}, "guesses() raised KeyError"),
    "feedback-random": ({"feedback": _drawing()}, "(the rules must answer the same"),
    "kernel-not-scalar": (
        {"feedback_kernel": _python_kernel(lambda g, s, f: 1 - f if (g, s) == (5, 1) else f)},
        # (a small game's every pair is held to the scalar rule; a large one's, a sample)
        "while feedback_kernel() gave",
    ),
    "kernel-out-of-range": (
        {"feedback_kernel": _python_kernel(lambda g, s, f: 7 if (g, s) == (5, 1) else f)},
        "feedback_kernel(): the feedback of guess 6 to secret 2 is 7, outside 0 to 2",
    ),
    "symmetry-not-kept": (
        {"symmetry": lambda self: Symmetry.full(1)},
        "symmetry() is not kept by the rules: symbol relabelling [1, 0, 2, 3, 4, 5, 6] maps "
        "guess 1 against secret 2 (feedback 1) to 2 against 1 (feedback 0, 1 wanted)",
    ),
    "symmetry-no-identity": (
        {"symmetry": lambda self: Symmetry(np.array([[1]], dtype=np.int8), False)},
        "symmetry(): [1] is not a permutation of the positions",
    ),
    "symmetry-none": ({"symmetry": lambda self: None}, "symmetry() gave NoneType, not a Symmetry"),
}


#: The same for Markov games.
MARKOV = {
    "start-huge": (
        {"initial_state": lambda self: 2**70},
        "initial_state() gave 1180591620717411303424",
    ),
    "start-text": ({"initial_state": lambda self: "3"}, "initial_state() gave '3', not an integer"),
    "start-float": (
        {"initial_state": lambda self: 3.0},
        "initial_state() gave 3.0, not an integer",
    ),
    "start-negative": ({"initial_state": lambda self: -1}, "initial_state() gave -1"),
    "start-beyond-bound": (
        {"code_bound": lambda self: 2},
        "initial_state() gave 3, not below code_bound() 2",
    ),
    "bound-text": (
        {"code_bound": lambda self: "9"},
        "code_bound() gave '9', not None or a positive",
    ),
    "next-beyond-bound": (
        {
            "code_bound": lambda self: 4,
            "expand": _expanding(lambda e, s: _changed(e, nxt=e.next + (e.next >= 0))),
        },
        "expand(): choice 1 after outcome 0 of state 3 leads to 4, not below code_bound() 4",
    ),
    "terminal-none": (
        {"is_terminal": lambda self, s: None},
        "is_terminal() of 1 state gave shape ()",
    ),
    "terminal-short": (
        {"is_terminal": lambda self, s: (s == 0)[:1]},
        "is_terminal() of 3 states gave shape (1,)",
    ),
    "terminal-float": (
        {"is_terminal": lambda self, s: (s == 0) * 0.5},
        "is_terminal() gave float64 values such as 0.0",
    ),
    "terminal-raises": (
        {"is_terminal": _raise(ZeroDivisionError("division by zero"))},
        "is_terminal() raised ZeroDivisionError",
    ),
    "expand-none": ({"expand": lambda self, s: None}, "expand() gave NoneType, not an Expansion"),
    "expand-raises": (
        {"expand": _raise(IndexError("no row"))},
        "expand() raised IndexError: no row",
    ),
    "cost-float": (
        {"expand": _expanding(lambda e, s: _changed(e, cost=np.full(e.next.shape, 1.5)))},
        "expand() gave costs of type float64 such as 1.5 (integers wanted)",
    ),
    "cost-nan": (
        {"expand": _expanding(lambda e, s: _changed(e, cost=np.full(e.next.shape, np.nan)))},
        "expand() gave costs of type float64 such as nan",
    ),
    "cost-text": (
        {"expand": _expanding(lambda e, s: _changed(e, cost="1"))},
        "expand() gave costs of type <U1",
    ),
    "cost-negative": (
        {"expand": _expanding(lambda e, s: _changed(e, cost=-e.cost))},
        "expand(): choice 0 after outcome 0 of state 3 costs -1, outside 0 to 2,147,483,647",
    ),
    "cost-shape": (
        {"expand": _expanding(lambda e, s: _changed(e, cost=np.ones((1, 5, 1), np.int64)))},
        "expand() gave costs of shape (1, 5, 1), which do not broadcast",
    ),
    "weight-float": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=e.weight * 0.5))},
        "expand() gave weights of type float64 such as 0.5 (integers wanted)",
    ),
    "weight-nan": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=np.full(e.weight.shape, np.nan)))},
        "expand() gave weights of type float64 such as nan",
    ),
    "weight-negative": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=e.weight - 2))},
        "expand(): outcome 0 of state 3 has weight -1, below 0",
    ),
    "weight-none-left": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=0 * e.weight))},
        "expand(): state 3 has no chance outcome (its weights total 0)",
    ),
    "weight-huge": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=e.weight * 2**61))},
        "expand(): the weights of state 3 total 13,835,058,055,282,163,712, more than 2**62",
    ),
    "weight-shape": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=e.weight[:, :, None]))},
        "expand() of 1 state gave weights of shape (1, 6, 1) and next states of shape (1, 6, 2)",
    ),
    "rows-missing": (
        {"expand": _expanding(lambda e, s: _changed(e, weight=e.weight[:1], nxt=e.next[:1]))},
        "expand() of 2 states gave weights of shape (1, 6)",
    ),
    "next-float": (
        {"expand": _expanding(lambda e, s: _changed(e, nxt=e.next + 0.5))},
        "expand() gave next states of type float64 such as 2.5",
    ),
    "next-below": (
        {"expand": _expanding(lambda e, s: _changed(e, nxt=np.where(e.next < 0, -5, e.next)))},
        "expand(): choice 0 after outcome 3 of state 3 leads to -5",
    ),
    "no-choice": (
        {
            "expand": _expanding(
                lambda e, s: _changed(e, nxt=np.where(e.next == s[:, None, None], -1, e.next))
            )
        },
        "expand(): outcome 3 of state 3 offers no choice",
    ),
    "alone-otherwise": ({"expand": _moved_alone()}, "expand() gave state 1 two different sets"),
}


def _game(base: type, name: str, overrides: dict) -> type:
    return dataclass(frozen=True)(type(name, (base,), {"name": name, "summary": name, **overrides}))


@pytest.fixture
def register(monkeypatch):
    """Put a game class in the catalogue for this test (as ``register`` does)."""

    def put(cls: type) -> type:
        monkeypatch.setitem(catalogue._REGISTERED, cls.name, cls)
        return cls

    return put


def _refused(res, name: str, words: str) -> None:
    """One line naming the game and the breach, exit 2, no traceback, nothing solved."""
    assert res.returncode == 2, (res.returncode, res.stdout, res.stderr)
    # (a note that kernels are being compiled, on a fresh cache, is not an error line)
    lines = [x for x in res.stderr.splitlines() if not x.startswith("perfectplay: note:")]
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith(f"perfectplay: error: {name}: ") and words in lines[0], lines
    assert "proven optimal" not in res.stdout


def test_the_sound_games_solve():
    from perfectplay import solve

    assert str(solve(Numbers()).value) == "17/7"
    assert solve(Landing()).value == 6


@pytest.mark.parametrize("case", DEDUCTION)
def test_a_deduction_game_breaking_a_clause_is_refused_in_one_line(case, register):
    from perfectplay.deduction.check import check_game

    overrides, words = DEDUCTION[case]
    game = register(_game(Numbers, case, overrides))
    _refused(perfectplay("solve", case, "--no-store"), case, words)
    with pytest.raises(AssertionError, match="^" + case + ": "):
        check_game(game())


@pytest.mark.parametrize("case", MARKOV)
def test_a_markov_game_breaking_a_clause_is_refused_in_one_line(case, register):
    from perfectplay.markov.check import check_game

    overrides, words = MARKOV[case]
    game = register(_game(Landing, case, overrides))
    _refused(perfectplay("solve", case), case, words)
    with pytest.raises(AssertionError, match="^" + case + ": "):
        check_game(game())


def test_a_declared_symmetry_the_rules_break_is_never_solved_with(register):
    """Higher-lower declaring every relabelling of its numbers was searched one guess
    per class: 27/7 'proven optimal' for 17/7; refused before the search now, in
    ``solve()`` as on the command line."""
    from perfectplay import solve

    overrides, words = DEDUCTION["symmetry-not-kept"]
    with pytest.raises(BadRules, match="symmetry\\(\\) is not kept by the rules"):
        solve(_game(Numbers, "symmetric", overrides)())


def test_costs_of_one_and_a_half_are_never_solved_as_one():
    """Costs of 1.5 a turn were cut to 1: 6 turns 'proven optimal' for 9."""
    from perfectplay import solve

    overrides, words = MARKOV["cost-float"]
    with pytest.raises(BadRules, match="1.5 \\(integers wanted\\)"):
        solve(_game(Landing, "halves", overrides)())


def test_verify_and_play_read_the_rules_checked(register, tmp_path):
    """A file solved under sound rules, verified or played under rules that break the
    protocol since (a plug-in changed), is refused in one line, for both engines."""
    for sound, broken, words, play in (
        (Numbers, DEDUCTION["feedback-float"], "not an integer", ("--secret", "3")),
        (Landing, MARKOV["cost-float"], "integers wanted", ("--seed", "1")),
    ):
        name = f"changed-{sound.name}"
        register(_game(sound, name, {}))
        out = tmp_path / f"{name}.json"
        res = perfectplay("solve", name, "--out", str(out), "--no-store", "--json")
        if sound is Landing:
            res = perfectplay("solve", name, "--out", str(out), "--json")
        assert res.returncode == 0 and json.loads(res.stdout)["status"] == "proven optimal"
        register(_game(sound, name, broken[0]))
        _refused(perfectplay("verify", str(out)), name, words)
        _refused(perfectplay("play", name, *play, input="\n" * 10), name, words)


def test_the_gymnasium_environments_read_the_rules_checked(register):
    gymnasium = pytest.importorskip("gymnasium")
    import perfectplay.gym

    for base, cases in ((Numbers, DEDUCTION), (Landing, MARKOV)):
        case = "feedback-float" if base is Numbers else "weight-float"
        name = f"gym-{case}"
        register(_game(base, name, cases[case][0]))
        perfectplay.gym.register_all()
        with pytest.raises(BadRules, match=f"^{name}: "):
            env = gymnasium.make(f"perfectplay/{name}-v0")
            env.reset(seed=0)
            for g in range(7):
                env.step(g)


def test_compiled_rules_are_checked_too(register):
    """A game of compiled rules (dice-cards' own): a start beyond its code bound, which
    the compiled exploration would have marked outside its bitmap, and a code bound
    smaller than the codes the rules reach, each refused in one line."""
    from perfectplay.games.dice_cards import DiceCards

    for name, overrides, words in (
        (
            "far-start",
            {"initial_state": lambda self: 99},
            "initial_state() gave 99, not below code_bound() 16",
        ),
        (
            "small-bound",
            {"code_bound": lambda self: 5},
            "compiled_rules(): a state code is beyond the game's code_bound",
        ),
    ):
        register(_game(DiceCards, name, overrides))
        _refused(perfectplay("solve", name, "n=2"), f"{name}(n=2)", words)


def test_a_game_whose_construction_raises_is_one_line(monkeypatch):
    """A ValueError in a game's own ``__post_init__`` (its check of its parameters) was a
    traceback; it is one line naming the game and the method."""

    @dataclass(frozen=True)
    class Picky(Numbers):
        name = "picky"
        summary = "refuses every instance"

        def __post_init__(self):
            raise ValueError("no instance of this game is allowed")

    monkeypatch.setitem(catalogue._REGISTERED, Picky.name, Picky)
    res = perfectplay("solve", "picky")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.strip().splitlines()[-1] == (
        "perfectplay: error: picky: __post_init__() raised ValueError: "
        "no instance of this game is allowed"
    )


ALLOCATING_RULES = """
from dataclasses import dataclass

import numpy as np
from numba import njit

from perfectplay.markov.compiled import expand_batch, fill, reach, rules_kernel
from perfectplay.markov.model import CompiledRules, MarkovGame


@rules_kernel
def _rules(params, code, weight, nxt, cost):
    if code == 0:
        return True
    scratch = np.empty(6, dtype=np.int64)
    weight[0] = 1 + scratch[0]
    nxt[0, 0] = code - 1
    cost[0, 0] = 1
    return False


@njit(cache=True)
def _expand_batch(params, codes, K, C):
    return expand_batch(_rules, params, codes, K, C)


@njit(cache=True)
def _reach(params, start, bound, K, C):
    return reach(_rules, params, start, bound, K, C)


@njit(cache=True, nogil=True)
def _fill(params, bits, start, K, C, arrays):
    return fill(_rules, params, bits, start, K, C, arrays)


@dataclass(frozen=True)
class Allocating(MarkovGame):
    name = "allocating"
    summary = "compiled rules that allocate"

    def initial_state(self):
        return 3

    def code_bound(self):
        return 4

    def compiled_rules(self):
        return CompiledRules(np.zeros(1, dtype=np.int64), 1, 1, _expand_batch, _reach, _fill)
"""


@pytest.mark.parametrize(
    "allocation, where",
    [
        ("np.empty(6, dtype=np.int64)", "at allocating_rules.py line 15 (scratch = {})"),
        # numba then stops in the package's loop, which the line does not name
        ("np.zeros(2, dtype=np.int64)", "the rules do not compile: "),
    ],
)
def test_compiled_rules_that_do_not_compile_are_named_at_the_users_line(
    tmp_path, monkeypatch, allocation, where
):
    """numba's refusal of an allocation in compiled rules pointed at the package's own
    loop; the line names the user's file and line where numba says it (else neither),
    numba's reason, and what compiled rules may do."""
    import importlib

    rules = ALLOCATING_RULES.replace("np.empty(6, dtype=np.int64)", allocation)
    (tmp_path / "allocating_rules.py").write_text(rules)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "allocating_rules", raising=False)  # (each case's own)
    module = importlib.import_module("allocating_rules")
    monkeypatch.setitem(catalogue._REGISTERED, "allocating", module.Allocating)
    res = perfectplay("solve", "allocating")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    line = res.stderr.strip().splitlines()[-1]
    assert line.startswith("perfectplay: error: allocating: compiled_rules(): the rules do not")
    assert where.format(allocation) in line
    assert "compiled rules may not allocate" in line and "compiled.py" not in line
