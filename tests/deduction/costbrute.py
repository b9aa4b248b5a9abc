"""A plain brute force of item costs, to cross-check the engine on tiny games.

Every allowed guess (the game's ``restrict_guesses``) is tried at every state, with the
feedbacks of the scalar ``feedback``; a guess costs the ``symbol_costs`` of its symbols,
except (``forced_free``) at a position where every allowed guess has the same symbol.
Written without the engine's search, tables, frontier or cost code.
"""

from fractions import Fraction


class CostBrute:
    def __init__(self, game):
        self.game = game
        self.codes = [tuple(int(x) for x in c) for c in game.guesses().tolist()]
        self.secrets = [tuple(int(x) for x in c) for c in game.secrets().tolist()]
        self.solved = game.solved_feedback()
        self.costs = [int(c) for c in game.symbol_costs()]

    def options(self, consistent, history):
        """(guess index, cost of the guess, {feedback: secrets}) for every allowed guess."""
        mask = self.game.restrict_guesses(history, self.game.guesses())
        allowed = [i for i in range(len(self.codes)) if mask is None or mask[i]]
        forced = [len({self.codes[i][p] for i in allowed}) == 1 for p in range(len(self.codes[0]))]
        for i in allowed:
            g = self.codes[i]
            price = sum(
                self.costs[s]
                for p, s in enumerate(g)
                if not (self.game.forced_free() and forced[p])
            )
            cells = {}
            for s in consistent:
                cells.setdefault(self.game.feedback(g, s), []).append(s)
            yield i, price, cells

    def lexicographic(self, horizon: int) -> tuple[int, int]:
        """(most secrets won within `horizon`, least total cost among strategies winning
        that many); a strategy may stop guessing."""

        def best(consistent, history, t):
            if not consistent or t == 0:
                return (0, 0)
            top = (0, 0)  # stop
            for i, price, cells in self.options(consistent, history):
                wins, cost = len(cells.pop(self.solved, [])), price * len(consistent)
                for f, cell in cells.items():
                    w, c = best(cell, history + ((i, f),), t - 1)
                    wins, cost = wins + w, cost + c
                if (wins, -cost) > (top[0], -top[1]):
                    top = (wins, cost)
            return top

        return best(self.secrets, (), horizon)

    def weighted(self, horizon: int, weight: Fraction) -> Fraction:
        """The most P(win) - weight * E[cost] (a strategy may stop guessing)."""
        n = len(self.secrets)

        def best(consistent, history, t):
            if not consistent or t == 0:
                return Fraction(0)
            top = Fraction(0)
            for i, price, cells in self.options(consistent, history):
                value = Fraction(len(cells.pop(self.solved, [])), n) - weight * Fraction(
                    price * len(consistent), n
                )
                value += sum(best(cell, history + ((i, f),), t - 1) for f, cell in cells.items())
                top = max(top, value)
            return top

        return best(self.secrets, (), horizon)
