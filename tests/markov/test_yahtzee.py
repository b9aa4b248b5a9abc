"""Solitaire Yahtzee and Yatzy (``games/yahtzee.py``), solved by stages: small cards
against the numpy widget-by-widget program of benchmarks/ (written apart, for the
comparison), the whole games against the published values."""

from __future__ import annotations

import importlib.util
import json
import re
import math
from fractions import Fraction
import sys
from pathlib import Path

import numpy as np
import pytest

from perfectplay import load_game, solve
from perfectplay.games.yahtzee import JOKERS, KEEPS, ROLLS, Yahtzee, Yatzy, dice_turn
from perfectplay.markov.speedups import SpeedUps
from perfectplay.markov.stage_model import CHANCE
from tests.cli_runner import perfectplay

BENCHMARK = Path(__file__).parents[2] / "benchmarks" / "yahtzee_widgets.py"
UPPER = 0b111111
YAHTZEE_BOX, CHANCE_BOX = 1 << 11, 1 << 12


@pytest.fixture(scope="module")
def widgets():
    """The benchmark's module, imported from its file."""
    spec = importlib.util.spec_from_file_location("yahtzee_widgets", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _widgets_value(widgets, boxes, card: int, bonus: int, joker: str) -> float:
    kept = [b for i, b in enumerate(boxes) if card >> i & 1]
    return widgets.solve(widgets.Rules(kept, bonus, joker))


@pytest.mark.parametrize("joker", ["free", "forced", "none"])
def test_the_joker_rules_agree_with_the_widget_program(widgets, joker):
    card = UPPER | YAHTZEE_BOX | CHANCE_BOX  # a Yahtzee of sixes: sixes, or chance (free)
    value = solve(Yahtzee(joker=joker, card=card)).value
    assert value == pytest.approx(
        _widgets_value(widgets, widgets.yahtzee_boxes(), card, 35, joker), rel=1e-12
    )


def test_the_free_joker_is_worth_more_than_the_forced_one():
    card = UPPER | YAHTZEE_BOX | CHANCE_BOX
    free, forced, none = (solve(Yahtzee(joker=j, card=card)).value for j in JOKERS)
    assert free > forced > none


@pytest.mark.parametrize("card", [0b111, 0b1010000001001])
def test_small_yahtzee_cards_agree_with_the_widget_program(widgets, card):
    value = solve(Yahtzee(joker="none", card=card)).value
    assert value == pytest.approx(
        _widgets_value(widgets, widgets.yahtzee_boxes(), card, 35, "none"), rel=1e-12
    )


def test_a_small_yatzy_card_agrees_with_the_widget_program(widgets):
    card = 0b1000011000111  # ones to threes, one pair, two pairs, chance
    value = solve(Yatzy(card=card)).value
    assert value == pytest.approx(
        _widgets_value(widgets, widgets.yatzy_boxes(), card, 50, "none"), rel=1e-12
    )


def test_one_box_of_chance_is_the_best_of_three_rolls_of_five_dice():
    """Chance alone: keep the dice showing 4 or more (a die's best of three rolls is
    (4 + 5 + 6) / 6 + 1/2 * 4.25 = 4.625... per die), 5 dice: 5 x 14/3."""
    assert solve(Yahtzee(joker="none", card=CHANCE_BOX)).value == pytest.approx(5 * 14 / 3)


def _template_value(t, exits: np.ndarray) -> float:
    """The turn's value for exit slot values `exits`, node by node from the last."""
    value = np.concatenate([np.zeros(t.nodes), exits])
    chances = t.chances()
    for i in range(t.nodes - 1, -1, -1):
        edges = slice(t.start[i], t.start[i + 1])
        children = t.points[edges] + value[t.target[edges]]
        value[i] = chances[edges] @ children if t.kind[i] == CHANCE else children.max()
    return float(value[0])


def _listed_value(exits: np.ndarray) -> float:
    """The same turn with every keep of every roll listed, and each keep's outcomes with
    their multinomial chances: the way the turn is usually written."""
    within = np.array([[all(a <= b for a, b in zip(k, r)) for r in ROLLS] for k in KEEPS])
    chance = np.zeros((len(KEEPS), len(ROLLS)))
    for i, k in enumerate(KEEPS):
        for j, r in enumerate(ROLLS):
            if within[i, j]:
                rest = [b - a for a, b in zip(k, r)]
                ways = math.factorial(sum(rest)) / math.prod(math.factorial(c) for c in rest)
                chance[i, j] = ways / 6 ** sum(rest)
    best = exits
    for _ in range(2):  # after roll 3, then roll 2: the best keep within each roll
        kept = chance @ best
        best = np.array([kept[within[:, j]].max() for j in range(len(ROLLS))])
    return float(chance[0] @ best)


def test_the_factorised_turn_equals_the_turn_with_every_keep_listed():
    t = dice_turn()
    assert t.kind[0] == CHANCE and t.slots == len(ROLLS) == 252 and len(KEEPS) == 462
    exits = np.random.default_rng(5).normal(size=252) * 10
    assert _template_value(t, exits) == pytest.approx(_listed_value(exits), rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize(
    "spec,published,within",
    [
        ("yahtzee", 254.5896094820, 1e-4),
        ("yahtzee(joker=forced)", 254.5877287345, 1e-4),
        ("yahtzee(joker=none)", 245.8707745141, 1e-4),
        ("yatzy", 248.44, 1e-2),
    ],
)
def test_the_whole_games_give_the_published_values(spec, published, within):
    assert abs(solve(load_game(spec)).value - published) < within


def test_a_stage_code_holds_the_card_the_upper_total_and_the_fifty():
    layers = Yahtzee(joker="free", card=UPPER | YAHTZEE_BOX).stages().layers
    codes = np.concatenate(layers)
    assert len(np.unique(codes)) == len(codes) and codes.min() == 0
    holds50 = codes[(codes >> 6 & 1) == 1]
    assert np.all((holds50 >> (7 + 6)) & 1)  # only where the Yahtzee box is filled


def test_one_box_solved_as_a_graph_is_exact():
    """Chance alone, its 1,597 states solved as any game's: exactly 5 x 14/3, proven."""
    exact = solve(Yahtzee(joker="none", card=CHANCE_BOX), speedups=SpeedUps(stages=False))
    assert exact.value == Fraction(70, 3) and exact.status == "proven optimal"


SMALL = "card=6208"  # three of a kind, Yahtzee, chance: ten stages


def test_the_file_holds_the_stage_values_and_verify_recomputes_them(tmp_path):
    out = tmp_path / "y.json"
    assert perfectplay("solve", "yahtzee", SMALL, "--out", str(out), "--quiet").returncode == 0
    doc = json.loads(out.read_text())
    assert doc["strategy"]["kind"] == "markov-stages" and doc["strategy"]["stages"] == 10
    res = perfectplay("verify", str(out))
    assert res.returncode == 0, res.stderr
    assert "all 10 stages recomputed from their successors' stored values" in res.stdout
    assert "49.705881833" in res.stdout
    shown = perfectplay("show", str(out))
    assert "start stage 0: 49.705881833 points expected" in shown.stdout


def test_verify_names_a_stage_whose_stored_value_is_wrong(tmp_path):
    sol = solve(load_game(f"yahtzee({SMALL})"))
    stage = 0b011 << 7  # chance left alone (the third box played), upper total 0, no 50
    sol.strategy.values[stage] += 0.5
    out = tmp_path / "bad.json"
    out.write_text(json.dumps(sol.export()))
    res = perfectplay("verify", str(out))
    assert res.returncode == 2
    assert res.stderr.startswith(f"perfectplay: error: stage {stage}'s stored value")


def test_play_lists_every_keep_and_every_box_best_first_with_its_expected_final_score():
    res = perfectplay("play", "yahtzee", SMALL, "--seed", "3", input="\n" * 40)
    assert res.returncode == 0, res.stderr
    first = res.stdout.split("roll 1 of 3: 2 3 4 4 6")[1].split("choose")[0]
    assert first.count("keep") + first.count("roll all five again") == 24  # all keeps of 23446
    assert "1. keep 6               expected final score 48.1144 ±15.0  <- optimal" in first
    assert "3. keep 4 4             expected final score 47.6899 ±15.8  loss 0.4245" in first
    boxes = res.stdout.split("final roll: 2 4 5 6 6")[1].split("choose")[0]
    assert "1. chance: 23 points          expected final score 45.8155 ±15.2  <- optimal" in boxes
    # (a line longer than the console's 80 columns wraps: read with its spaces collapsed)
    assert "3. three of a kind: 0 points expected final score 27.3376 ±13.0 loss 18.4780" in (
        " ".join(boxes.split())
    )


def test_the_screens_ask_the_rules_once_per_state(monkeypatch):
    """The explorer (as play) describes a roll's 252 outcomes and finds each one's best
    keep from one expansion of the state, not one an outcome; the exit rule is asked once
    for the final rolls of a batch's stages, not once a roll; the turn is built once for
    every game of dice. What they say is unchanged (the play test above)."""
    from perfectplay import load_strategy
    from perfectplay.games import yahtzee
    from perfectplay.markov import stage_model

    game = load_game(f"yahtzee({SMALL})")
    strategy = load_strategy(json.loads(json.dumps(solve(game).export())))
    expanded, asked = [], []
    expansion, exits = stage_model._expansion, yahtzee._exits
    monkeypatch.setattr(
        stage_model, "_expansion", lambda st, s: expanded.append(s) or expansion(st, s)
    )
    monkeypatch.setattr(
        yahtzee, "_exits", lambda stages, *a: asked.append(stages) or exits(stages, *a)
    )
    view = strategy.explore(strategy.root_path)
    assert len(view.branches) == len(ROLLS) and [len(s) for s in expanded] == [1]
    st = game.stages()
    two = st.layers[0][:2]
    finals = [stage * st.width + st.template.nodes + r for stage in two for r in range(252)]
    game.expand(np.array(finals, dtype=np.int64))
    assert [len(s) for s in asked] == [1, 2]  # the start's turn valued, then the two stages
    assert dice_turn() is Yatzy().stages().template is game.stages().template


def test_play_takes_the_players_dice():
    """With --enter-chance the person types each roll, in any order (the dice of a game at
    a table); a roll that cannot be, or is not five dice, is said and asked again; Enter
    rolls here."""
    typed = ["4 2 1 2 4", "3", "1 2 3 4 5", "7 7 7 7 7", "6 4 6 3 4", "2", "", "", "", ""]
    res = perfectplay(
        "play", "yahtzee", f"card={CHANCE_BOX}", "--enter-chance", input="\n".join(typed) + "\n"
    )
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "rolled 1 2 2 4 4" in out and "roll 1 of 3: 1 2 2 4 4" in out
    assert "1 2 3 4 5 cannot follow here: the dice kept are not among them" in out
    assert "write the 5 dice, faces 1 to 6 (like 1 2 2 4 4), not '7 7 7 7 7'" in out
    assert "rolled 3 4 4 6 6" in out
    assert "finished with" in out


def test_the_dice_prompt_refuses_what_is_no_die_and_takes_undo_and_help():
    """-1 is no die (it was read as 1), nor a superscript two; undo at the dice prompt
    takes back the last choice, as at the choice prompt (it was refused as bad dice),
    and with nothing to take back says so and asks for the dice again."""
    typed = ["undo", "-1 2 3 4 5", "1 2 \u00b2 4 5", "help", "4,2,1,2,4", "2", "undo", "quit"]
    res = perfectplay(
        "play", "yahtzee", f"card={CHANCE_BOX}", "--enter-chance", input="\n".join(typed) + "\n"
    )
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
    out = res.stdout
    assert "nothing to undo" in out and "not 'undo'" not in out
    assert "not '-1 2 3 4 5'" in out and "not '1 2 \u00b2 4 5'" in out
    assert "type what the dice (or cards) gave" in out
    # the choice taken back: the first decision, after the roll 1 2 2 4 4, shown again
    assert out.count("roll 1 of 3: 1 2 2 4 4") == 2 and "Roll 2 of 3" in out


def test_the_gymnasium_agent_plays_a_staged_game_through_its_strategy():
    """Chance alone, 300 episodes of the optimal agent: the mean score within 1 point of
    70/3 (a game's score varies by under 3 points: the mean's standard error is near
    0.15)."""
    gymnasium = pytest.importorskip("gymnasium")
    from perfectplay.gym import OptimalAgent, env_id

    env = gymnasium.make(env_id("yahtzee"), params={"card": CHANCE_BOX})
    agent = OptimalAgent(env)
    scores = []
    for seed in range(300):
        env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            _, reward, terminated, truncated, _ = env.step(agent.act())
            total, done = total + reward, terminated or truncated
        scores.append(total)
    assert abs(np.mean(scores) - 70 / 3) < 1


def test_plot_draws_the_stage_values_by_boxes_filled(tmp_path):
    pytest.importorskip("matplotlib")
    picture = tmp_path / "y.png"
    res = perfectplay("solve", "yahtzee", SMALL, "--plot", str(picture), "--quiet")
    assert res.returncode == 0, res.stderr
    assert picture.read_bytes().startswith(b"\x89PNG")
    game = load_game(f"yahtzee({SMALL})")
    codes, _ = solve(game).strategy.live_values()
    assert sorted({game.state_family(int(c)) for c in codes}) == [0, 1, 2]


def test_exact_is_refused_in_one_line():
    res = perfectplay("solve", "yahtzee", "--exact")  # (refused before solving)
    assert res.returncode == 2
    assert res.stderr == (
        "perfectplay: error: yahtzee is solved by stages, in floats: --exact is refused "
        "(its exact proof would take 536,320 stages times 6,216 template edges in "
        "rationals, more than 1,000,000)\n"
    )


def test_a_small_card_is_proven():
    sol = solve(load_game(f"yahtzee({SMALL})"))
    assert sol.status == "proven optimal" and sol.exact
    assert abs(float(sol.value) - solve(load_game(f"yahtzee({SMALL})"), exact=False).value) < 1e-12


@pytest.mark.parametrize(
    "change,message",
    [
        ({"columns": "not base64!"}, "the stage values cannot be read (Error)"),
        ({"stages": 0}, "the file does not list between 1 and 1,024 stages"),
        ({"stages": 9}, "the stages' column 'code' is not 9 numbers"),
        ({"encoding": "json"}, "the stage values are missing or in an unknown encoding"),
        ({"codes": [0, 0]}, "the stage codes are not increasing codes of the game's stages"),
        ({"values": [np.nan, 1.0]}, "a stage's value is not a finite number"),
    ],
)
def test_a_damaged_stage_file_is_refused_in_one_line(tmp_path, change, message):
    from perfectplay.markov.stages import encode_stages

    doc = solve(load_game(f"yahtzee({SMALL})")).export()
    if "codes" in change or "values" in change:
        codes = np.array(change.get("codes", [0, 128]))
        doc["strategy"] = encode_stages(codes, np.array(change.get("values", [1.0, 2.0])))
    else:
        doc["strategy"].update(change)
    out = tmp_path / "d.json"
    out.write_text(json.dumps(doc))
    res = perfectplay("verify", str(out))
    assert (res.returncode, res.stderr) == (2, f"perfectplay: error: {message}\n")


def test_a_stage_added_to_a_solved_file_is_refused_by_verify_and_show(tmp_path):
    """A stage code of the game's range that no stage leads to (stage 1: a card with only
    the first box filled, which this card has not), added to a solved file with any value,
    is refused: no successor recomputes it, so it was accepted unchecked."""
    from perfectplay.markov.staged_document import decode_stages
    from perfectplay.markov.stages import encode_stages

    game = load_game(f"yahtzee({SMALL})")
    doc = solve(game).export()
    values, listed = decode_stages(doc["strategy"], game.stages())
    listed[1], values[1] = True, 1e6
    codes = np.flatnonzero(listed)
    doc["strategy"] = encode_stages(codes, values[codes])
    out = tmp_path / "added.json"
    out.write_text(json.dumps(doc))
    for command in ("verify", "show"):
        res = perfectplay(command, str(out))
        assert (res.returncode, res.stderr) == (
            2,
            "perfectplay: error: the file lists stage 1, which the game never reaches (a "
            "solve lists only the stages of its layers)\n",
        )


def _stage_values(st) -> np.ndarray:
    from perfectplay.markov.stages import stage_batches

    values, solved = np.zeros(st.count), np.zeros(st.count, dtype=np.bool_)
    for codes, best in stage_batches(st, 1.0, values, solved):
        values[codes] = best
    return np.where(solved, values, np.nan)


@pytest.mark.parametrize("joker", JOKERS)
def test_the_compiled_exit_values_change_only_the_speed(joker):
    """A card of upper and lower boxes, the Yahtzee box among them: solved through the
    compiled exit-value rule of whole groups, and through the exit rule's arrays stage by
    stage, every stage's value bit for bit the same (the rule's common cases, its shifted
    rows, its boxes scoring 0 taken once, its jokers lane by lane)."""
    import dataclasses

    st = Yahtzee(joker=joker, card=0b1101100110101).stages()
    plain = dataclasses.replace(st, lanes=1, exit_values=None)
    fast, slow = _stage_values(st), _stage_values(plain)
    assert np.array_equal(fast, slow, equal_nan=True)
    assert np.isfinite(fast).sum() == sum(len(layer) for layer in st.layers)


def test_compiled_exit_values_that_disagree_with_the_exit_rule_are_refused():
    import dataclasses

    from perfectplay.errors import IncompleteRules

    st = Yatzy(card=0b11111).stages()

    def off_by_one(groups, firsts, values, sign, out):
        st.exit_values(groups, firsts, values, sign, out)
        out[:, 7, :] += 1.0

    with pytest.raises(IncompleteRules, match="the compiled exit values give .* at exit slot 7"):
        _stage_values(dataclasses.replace(st, exit_values=off_by_one))

    def no_option(groups, firsts, values, sign, out):
        st.exit_values(groups, firsts, values, sign, out)
        out[1:-1, 9, 0] = -np.inf  # (never a layer's first or last block, held to exits)

    with pytest.raises(IncompleteRules, match=r"stage \d+: exit slot 9 has no option"):
        _stage_values(dataclasses.replace(st, exit_values=no_option))


def test_a_stage_whose_best_play_never_leaves_it_is_refused():
    """A staged game whose one exit returns to its own stage, at no cost: the fixed point
    is any number, and the game need not end: refused in one line naming the stage."""
    from perfectplay.errors import IncompleteRules
    from perfectplay.markov.stage_model import DECISION, Stages, Template

    turn = Template(
        kind=np.array([DECISION]),
        start=np.array([0, 1]),
        target=np.array([1]),
        weight=np.ones(1, dtype=np.int64),
        points=np.zeros(1),
        slots=1,
    )
    st = Stages(
        count=1,
        layers=(np.array([0]),),
        start=0,
        template=turn,
        options=1,
        exits=lambda s: (np.zeros((len(s), 1, 1)), s[:, None, None].copy()),
    )
    with pytest.raises(IncompleteRules, match="stage 0: its best play returns to its start"):
        _stage_values(st)


def test_play_advises_a_game_played_elsewhere_from_its_position_best_first():
    """Chance scored 20 elsewhere, first roll 2 2 3 5 6: every keep, sorted by the
    expected final score (the 20 included), each with its loss against the best."""
    res = perfectplay(
        "play", "yahtzee", "card=4160", "--position", "chance 20; roll 1: 2 2 3 5 6", input="q\n"
    )
    assert res.returncode == 0, res.stderr
    assert (
        "filled: chance; upper boxes 0/63. Roll 1 of 3: 2 2 3 5 6  (scored 20 points)" in res.stdout
    )
    rows = re.findall(
        r"^ +\d+\. .*expected final score ([\d.]+) ±[\d.]+(  <- optimal|  loss ([\d.]+))$",
        res.stdout,
        re.M,
    )
    finals = [float(final) for final, _, _ in rows]
    assert len(rows) == 24 and finals == sorted(finals, reverse=True) and finals[-1] > 20
    assert rows[0][1] == "  <- optimal" and all(r[2] for r in rows[1:])
    assert all(abs(float(r[2]) - (finals[0] - f)) < 2e-4 for r, f in zip(rows[1:], finals[1:]))
    promised = re.search(
        r"optimal play scores ([\d.]+) points on average\s+from\s+this\s+position", res.stdout
    )
    assert promised and abs(float(promised.group(1)) - finals[0]) < 1e-4  # (the 20 counted)


@pytest.mark.parametrize("given", ["on the command line", "typed"])
def test_play_from_a_position_shows_the_score_card_of_that_position(given):
    """The score card of the position given (its boxes, the upper total and bonus, the
    total), as a game played from the start shows its own."""
    position = "aces 3, chance 20; roll 2: 1 3 3 5 6"
    args = [position, "q\n"] if given != "typed" else ["ask", position + "\nq\n"]
    res = perfectplay("play", "yahtzee", "card=4161", "--position", args[0], input=args[1])
    assert res.returncode == 0, res.stderr
    assert "card: aces 3, chance 20 | upper 3 (bonus 35: 60 to go) | total 23" in res.stdout


def test_play_reads_a_typed_position_and_refuses_bad_ones_in_one_line():
    res = perfectplay(
        "play",
        "yahtzee",
        "card=4160",
        "--position",
        "ask",
        input="chance 20; roll 4: 1 2 3 4 5\nchance 20; roll 3: 6 6 6 6 6\n",
    )
    assert res.returncode == 0, res.stderr
    assert "write the roll as 'roll N: the five dice', not 'roll 4: 1 2 3 4 5'" in res.stdout
    assert "finished with 50 points" in res.stdout  # (three of a kind, the one box left, takes 30)
    for position, said in [
        ("aces 3; roll 1: 1 2 3 4 5", "write each filled box as its name and score"),
        ("three of a kind 4; roll 1: 1 2 3 4 5", "three of a kind cannot score 4"),
        ("chance 20, chance 21; roll 1: 1 2 3 4 5", "chance is written twice"),
        ("chance 20; roll 2: 1 2 3", "write the 5 dice, faces 1 to 6"),
        ("chance 20, three of a kind 5; roll 1: 1 1 1 1 1", "every box is filled"),
    ]:
        res = perfectplay("play", "yahtzee", "card=4160", "--position", position)
        assert res.returncode == 2 and res.stderr.count("\n") == 1, res.stderr
        assert said in res.stderr, res.stderr


def test_a_box_takes_its_score_without_the_bonuses_paid_with_it():
    """The last box, chance, after a full upper card (63) and a Yahtzee of 50: the move
    pays 30 + 100 (an extra Yahtzee) + 35 (the upper bonus, paid with the last box); the
    box itself holds 30."""
    game = load_game("yahtzee")
    card = "aces 3, twos 6, threes 9, fours 12, fives 15, sixes 18, three of a kind 20, "
    card += "four of a kind 0, full house 25, small straight 30, large straight 40, yahtzee 50"
    state, scored = game.parse_position(card + "; roll 3: 6 6 6 6 6")
    assert scored == 228
    chance = [b.name for b in game.boxes].index("chance")
    assert int(game.expand(np.array([state])).cost[0, 0, chance]) == 30 + 100 + 35
    assert game.box_score(state, chance) == 30
    assert game.dice_at(state) == (0, 0, 0, 0, 0, 5) and game.kept(state, chance) is None


def test_play_keeps_the_score_card_with_the_upper_total_and_bonus():
    res = perfectplay("play", "yahtzee", "card=4161", "--seed", "3", input="\n" * 40)
    assert res.returncode == 0, res.stderr
    said = " ".join(res.stdout.split())  # (rich wraps long lines)
    cards = re.findall(r"card: (.*?) \| upper (\d+) \(bonus 35: (\d+) to go\) \| total (\d+)", said)
    assert cards[0] == ("empty", "0", "63", "0")
    boxes, upper, need, total = cards[-1]
    scores = dict(re.findall(r"([a-z ]+?) (\d+)(?:, |$)", boxes))
    assert set(scores) == {"aces", "three of a kind", "chance"}
    assert int(upper) == int(scores["aces"]) == 63 - int(need)
    assert int(total) == sum(map(int, scores.values()))
    assert f"finished with {total} points" in said


def test_undo_puts_the_score_card_back():
    """Undo at the terminal takes back the box filled: the card shows the box chosen
    instead, never both (its total counted once)."""
    res = perfectplay("play", "yahtzee", SMALL, "--seed", "3", input="\n\n\nundo\n2\n" + "\n" * 40)
    assert res.returncode == 0, res.stderr
    after = res.stdout.split("undo")[-1]
    assert "card: empty | upper 0 (bonus 35: 63 to go) | total 0" in after.split("final roll")[0]
    assert "card: yahtzee 0 | upper 0" in after
    assert "chance 23, yahtzee 0" not in after and "yahtzee 0, chance 23" not in after
