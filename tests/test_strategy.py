"""One Strategy interface for both engines: actions, documents and the explorer."""

import pytest

from perfectplay import load_game, solve
from perfectplay.catalogue import load_strategy
from perfectplay.strategy import Decision
from perfectplay.verify_file import BadFile


def test_a_deduction_tree_plays_every_secret_to_its_end_through_action():
    game = load_game("mastermind(pegs=2,colors=3)")
    sol = solve(game)
    strategy = load_strategy(sol.export())
    guesses, solved = game.guesses(), game.solved_feedback()
    total = 0
    for secret in game.secrets():
        history = ()
        while True:
            g = strategy.action(history)
            f = int(game.feedback(guesses[g], secret))
            history += ((g, f),)
            if f == solved:
                break
        total += len(history)
    assert total == sol.total == 21
    other = (strategy.action(()) + 1) % len(guesses)
    assert strategy.action(((other, 0),)) is None  # a guess the tree does not play


def test_a_markov_policy_answers_as_the_solved_policy():
    game = load_game("dice-cards(n=3)")
    sol = solve(game)
    strategy = load_strategy(sol.export())
    g = sol.strategy.graph
    for s in range(g.n_states):
        for o in range(g.out_ptr[s], g.out_ptr[s + 1]):
            code, k = int(g.codes[s]), int(g.outcome_k[o])
            assert strategy.action(Decision(code, k)) == sol.strategy.choice(code, k)


def test_the_explorer_opens_a_tree_node_by_node():
    game = load_game("mastermind(pegs=3,colors=3)")
    strategy = load_strategy(solve(game).export())
    root = strategy.explore(strategy.root_path)
    assert root.title == "guess 112" and root.facts[0].startswith("27 secrets")
    assert "73 guesses over 27 secrets" in root.facts[1] and root.parent is None
    assert sum(int(b.detail.split()[0]) for b in root.branches) == 27
    child = next(b for b in root.branches if b.options[0].path)
    below = strategy.explore(child.options[0].path)
    assert below.parent == "" and below.facts[0].startswith(child.detail.split()[0] + " secret")


def test_a_tree_nodes_branches_carry_values_that_add_up_to_the_nodes():
    import re

    from perfectplay.objectives import Objective

    game = load_game("mastermind(pegs=3,colors=4)")
    root = load_strategy(solve(game).export()).explore("")
    total, worst = 1, 1  # (the secret found by the first guess: 1 guess)
    for b in root.branches:
        found = re.fullmatch(r"average ([0-9.]+) guesses, worst (\d+)", b.options[0].value)
        if found:
            total += float(found.group(1)) * int(b.detail.split()[0])
            worst = max(worst, int(found.group(2)))
    assert round(total) == 206 and worst == 4  # the node's 206 guesses over 64, worst 4
    horizon = load_strategy(solve(game, Objective("probability", 3)).export()).explore("")
    wins = [re.fullmatch(r"wins (\d+) of (\d+)", b.options[0].value) for b in horizon.branches]
    assert 1 + sum(int(w.group(1)) for w in wins if w) == 43  # the node's 43 of 64
    assert all(w.group(2) == b.detail.split()[0] for w, b in zip(wins, horizon.branches) if w)


def test_the_explorer_walks_each_node_of_the_subtree_once(monkeypatch):
    """A node's value is its branches' values summed: one feedback row per node of the
    subtree (the subtree was walked for the node, then again branch by branch: twice as
    many), the same values as before."""
    import perfectplay.deduction.document as document
    from perfectplay.objectives import Objective

    rows, feedback = [], document.compute_feedback
    monkeypatch.setattr(document, "compute_feedback", lambda *a: rows.append(1) or feedback(*a))
    game = load_game("mastermind(pegs=3,colors=4)")
    for objective, said in [
        (
            Objective(),
            "value of the subtree: 206 guesses over 64 secrets, average 103/32 (3.2188), "
            "worst case 4",
        ),
        (Objective("probability", 3), "value of the subtree: wins 43 of 64 within 3 guesses"),
    ]:
        strategy = load_strategy(solve(game, objective).export())
        rows.clear()
        root = strategy.explore("")
        nodes, stack = 0, [strategy.root]
        while stack:
            node = stack.pop()
            nodes += 1
            stack.extend((node.get("next") or {}).values())
        assert root.facts[1] == said and len(rows) == nodes


def test_the_explorer_shows_every_markov_choice_with_its_expected_cost():
    game = load_game("dice-cards(n=2)")
    strategy = load_strategy(solve(game).export())
    view = strategy.explore(strategy.root_path)
    chosen = [o for b in view.branches for o in b.options if o.chosen]
    assert len(chosen) == len(view.branches)
    for b in view.branches:  # the chosen choice is one of the cheapest
        costs = [float(o.value.split()[0]) for o in b.options]
        best = next(float(o.value.split()[0]) for o in b.options if o.chosen)
        assert best == pytest.approx(min(costs))


def test_load_strategy_refuses_a_document_without_a_strategy():
    doc = solve(load_game("dice-cards(n=2)")).export()
    doc["strategy"] = {"kind": "nonsense"}
    with pytest.raises(BadFile, match="holds no strategy"):
        load_strategy(doc)
    doc["strategy"] = solve(load_game("mastermind(pegs=2,colors=3)")).export()["strategy"]
    with pytest.raises(Exception, match="not a deduction game"):
        load_strategy(doc)
