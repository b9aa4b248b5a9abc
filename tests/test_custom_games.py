"""Games of one's own: docs/custom-games.md runs as written, plug-ins reach every command,
and incomplete rules are named in one line."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay import load_game, load_strategy, solve
from perfectplay.errors import IncompleteRules

from .cli_runner import assert_one_line_error

DOC = Path(__file__).parents[1] / "docs" / "custom-games.md"


def _blocks() -> list[str]:
    """The page's Python blocks, in order."""
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_every_example_of_the_how_to_runs(request, monkeypatch):
    blocks = _blocks()
    assert len(blocks) == 15
    folder = _module_folder(request)
    monkeypatch.syspath_prepend(str(folder))
    namespace = {"__name__": "custom_games_doc"}
    for block in blocks:  # the blocks assert their own values
        module = re.match(r"# (\w+)\.py\n", block)
        if module:  # a module file, as the page says: written, then imported by the next
            _write_if_changed(folder / f"{module[1]}.py", block)
            continue
        exec(compile(block, str(DOC), "exec", dont_inherit=True), namespace)
    assert str(solve(load_game("higher-lower(n=15)")).value) == "49/15"


def _module_folder(request) -> Path:
    """A folder that outlives the run (pytest's cache), so that a module the page writes
    keeps its file, and numba its compiled rules, from one run to the next."""
    cache = getattr(request.config, "cache", None)
    if cache is None:  # the cache plug-in switched off: a fresh folder, compiled afresh
        return request.getfixturevalue("tmp_path")
    return cache.mkdir("custom-games-modules")


def _write_if_changed(path: Path, text: str) -> None:
    """Write `text` to `path` unless it holds it already (a file rewritten is a new file
    to numba's cache, which keys compiled code by the file's time)."""
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """An installed package of games: a module and its dist-info with entry points."""
    root = tmp_path_factory.mktemp("site")
    (root / "my_games.py").write_text(_plugin_module())
    info = root / "my_games-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-games\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[perfectplay.games]\nhigher-lower = my_games:HigherLower\nbroken = no_such_module:Game\n"
        "fair-coin = my_games:FairCoin\n"
        "mastermind = my_games:HigherLower\n"  # a shipped game's name: not replaced
    )
    return root


def _plugin_module() -> str:
    """The how-to's higher-lower and fair-coin games, as a module (without their checks)."""
    blocks = _blocks()
    head = blocks[0].split("\n\n@register")[0]
    game = next(b for b in blocks if "class HigherLower" in b).split("\n\nsolution = ")[0]
    table = next(b for b in blocks if "class FairCoin" in b).split("\n\nassert ")[0]
    imports = "from perfectplay.markov.table import TableGame\n"
    return head + "\n" + imports + game + "\n" + table + "\n"


def _run(plugin, *args, input=None):
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(plugin), *filter(None, [os.environ.get("PYTHONPATH")])]),
    )
    return subprocess.run(
        [sys.executable, "-m", "perfectplay", *args],
        input=input,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=plugin,
    )


def test_a_plugin_game_reaches_every_command(plugin):
    assert "higher-lower" in _run(plugin, "list").stdout
    # a plug-in cannot replace a game the package ships
    res = _run(plugin, "solve", "mastermind", "pegs=2", "colors=3", "--json", "--no-store")
    assert res.returncode == 0 and json.loads(res.stdout)["game"] == "mastermind", res.stderr
    res = _run(plugin, "solve", "higher-lower", "n=7", "--out", "hl.json", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["value"] == "17/7"
    assert json.loads((plugin / "hl.json").read_text())["params"] == {"n": 7}
    res = _run(plugin, "verify", "hl.json")
    assert res.returncode == 0, res.stderr
    assert "total 17 over 7 secrets" in res.stdout and "re-established" in res.stdout
    res = _run(plugin, "show", "hl.json", "--depth", "1")
    assert res.returncode == 0 and "guess 4" in res.stdout and "lower" in res.stdout
    res = _run(plugin, "play", "higher-lower", "n=7", "--secret", "6", input="\n" * 5)
    assert res.returncode == 0 and "solved in" in res.stdout, res.stdout + res.stderr
    assert "feedback: correct" in res.stdout and "(proven optimal" in res.stdout
    # a table game, published the same way
    res = _run(plugin, "solve", "fair-coin", "--out", "coin.json", "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["value"] == "2", res.stderr
    res = _run(plugin, "verify", "coin.json")
    assert res.returncode == 0 and "the policy is optimal" in res.stdout, res.stdout + res.stderr


def test_a_plugin_that_cannot_load_is_one_line(plugin):
    assert_one_line_error(
        _run(plugin, "solve", "broken"),
        "game 'broken' (no_such_module:Game) cannot be loaded: ModuleNotFoundError",
    )
    assert _run(plugin, "solve", "higher-lower", "n=3", "--quiet").returncode == 0


def test_incomplete_rules_are_named():
    from perfectplay.markov.table import TableGame

    with pytest.raises(IncompleteRules, match="state 0, outcome 0, leads to state 7"):
        TableGame({0: [(1, [(7, 1)])]}, terminal={1})
    with pytest.raises(IncompleteRules, match="the start state 3"):
        TableGame({0: [(1, [(0, 1)])]}, start=3)

    from dataclasses import dataclass

    from perfectplay.markov.model import MarkovGame

    @dataclass(frozen=True)
    class Half(MarkovGame):
        name = "half"
        summary = "a game with no rules yet"

        def initial_state(self) -> int:
            return 0

    with pytest.raises(
        IncompleteRules,
        match=r"game 'half' does not define is_terminal\(\) "
        r"\(a Markov game defines initial_state",
    ):
        solve(Half())


def test_register_refuses_what_is_not_a_game():
    from perfectplay import register
    from perfectplay.catalogue import BadGame

    with pytest.raises(BadGame, match="not a perfectplay Game class"):
        register(dict)


def test_the_rules_receive_the_rows_of_the_codes_everywhere(tmp_path, monkeypatch):
    """A game whose feedback works only on numpy arrays (``.tolist()``, ``guess ==
    secret`` counted with ``np.sum``) is solved, verified and played: every caller hands
    the rules rows of ``guesses()``/``secrets()``, never tuples."""
    from dataclasses import dataclass

    import numpy as np

    from perfectplay import catalogue
    from perfectplay.deduction.check import check_game
    from perfectplay.deduction.model import DeductionGame

    from .cli_runner import perfectplay

    @dataclass(frozen=True)
    class ArraysOnly(DeductionGame):
        name = "arrays-only"
        summary = "right symbols in the right place, counted on arrays"

        def length(self) -> int:
            return 2

        def n_symbols(self) -> int:
            return 3

        def guesses(self) -> np.ndarray:
            return np.array([(a, b) for a in range(3) for b in range(3)], dtype=np.int8)

        def n_feedbacks(self) -> int:
            return 3

        def solved_feedback(self) -> int:
            return 2

        def feedback(self, guess, secret) -> int:
            assert isinstance(guess, np.ndarray) and isinstance(secret, np.ndarray)
            assert guess.shape == secret.shape == (2,) and guess.dtype == secret.dtype == np.int8
            return int(np.sum(guess == secret)) + 0 * len(secret.tolist())

    monkeypatch.setitem(catalogue._REGISTERED, ArraysOnly.name, ArraysOnly)  # as register does
    out = tmp_path / "a.json"
    res = perfectplay("solve", "arrays-only", "--out", str(out), "--json", "--no-store")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["value"] == "25/9"
    res = perfectplay("verify", str(out))
    assert res.returncode == 0 and "total 25 over 9 secrets" in res.stdout, res.stderr
    res = perfectplay("play", "arrays-only", "--secret", "32", input="\n" * 5)
    assert res.returncode == 0 and "solved in" in res.stdout, res.stdout + res.stderr
    res = perfectplay("solve", "arrays-only", "--after", "11:0", "--out", str(out), "--no-store")
    assert res.returncode == 0, res.stderr
    assert perfectplay("verify", str(out)).returncode == 0
    check_game(ArraysOnly())
    from perfectplay.gym import DeductionEnv

    env = DeductionEnv("arrays-only")
    env.reset(seed=1)
    assert env.step(0)[0]["feedbacks"][0] > 0


def test_markov_rules_receive_int64_arrays_everywhere(tmp_path, monkeypatch):
    """A Markov game whose rules accept only int64 arrays of codes is solved, verified,
    shown and played: every caller hands ``is_terminal`` and ``expand`` such arrays."""
    from dataclasses import dataclass, field

    import numpy as np

    from perfectplay import catalogue
    from perfectplay.markov.table import TableGame

    from .cli_runner import perfectplay

    @dataclass(frozen=True, eq=False)
    class Typed(TableGame):
        name = "typed-coin"
        summary = "flip a coin until heads, or pay 3 to stop at once"
        table: dict = field(default_factory=lambda: {0: [(1, [(1, 1)]), (1, [(0, 1), (1, 3)])]})
        terminal: frozenset = frozenset({1})

        def is_terminal(self, states):
            assert isinstance(states, np.ndarray) and states.dtype == np.int64, states
            assert states.ndim == 1
            return super().is_terminal(states)

        def expand(self, states):
            assert isinstance(states, np.ndarray) and states.dtype == np.int64, states
            assert states.ndim == 1 and 1 not in states.tolist(), "expand of a terminal state"
            return super().expand(states)

    monkeypatch.setitem(catalogue._REGISTERED, Typed.name, Typed)  # as register does
    out = tmp_path / "coin.json"
    res = perfectplay("solve", "typed-coin", "--out", str(out), "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["value"] == "2", res.stderr
    for command in (
        ("verify", str(out)),
        ("show", str(out)),
        ("play", "typed-coin", "--seed", "1"),
    ):
        res = perfectplay(*command, input="\n" * 5)
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stdout + res.stderr
    finished = load_strategy(json.loads(out.read_text())).explore("1")  # the web explorer's
    assert finished.branches == () and "finished" in finished.facts


def test_a_game_of_more_than_nine_symbols_reads_back_the_codes_it_writes(plugin):
    """Codes are written as numbers; past nine symbols the default writes 13, not a run
    of digits it cannot read back: the player types the advisor's suggestion."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("my_games_codes", plugin / "my_games.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    game = module.HigherLower(n=20)
    for code in game.guesses():
        assert (game.parse_code(game.format_code(code)) == code).all()
    res = _run(plugin, "play", "higher-lower", "n=20", "--secret", "13", input="16\n" + "\n" * 6)
    assert res.returncode == 0 and "solved in" in res.stdout, res.stdout + res.stderr
    assert "feedback: lower" in res.stdout  # (16 typed, then the suggestions)
