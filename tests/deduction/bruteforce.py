"""A plain exhaustive search with no pruning, to cross-check the engine on tiny games.

Every allowed guess is tried at every consistent set (no symmetry, no bounds, no
shortcut); only identical consistent sets are cached. Feedbacks come from the game's
scalar rules, not from the engine's tables or kernels.

``determine``: a secret counts as found once the feedback leaves it alone (a set of one
costs no guess more). ``possible_only``: only secrets of the consistent set may be
guessed (for games without a restriction of their own).
"""

from functools import lru_cache

INF = float("inf")


class BruteForce:
    def __init__(self, game, determine: bool = False, possible_only: bool = False):
        self.game = game
        self.determine, self.possible_only = determine, possible_only
        self.guesses = [tuple(int(x) for x in c) for c in game.guesses()]
        self.secrets = [tuple(int(x) for x in c) for c in game.secrets()]
        self.solved = game.solved_feedback()
        self.fb = {(g, s): game.feedback(g, s) for g in self.guesses for s in self.secrets}

    def split(self, guess, secrets):
        cells = {}
        for s in secrets:
            cells.setdefault(self.fb[guess, s], []).append(s)
        return cells

    def allowed(self, secrets):
        return sorted(secrets) if self.possible_only else self.guesses

    def found(self, secrets) -> bool:
        return len(secrets) == 0 or (self.determine and len(secrets) == 1)

    @lru_cache(maxsize=None)
    def total(self, secrets: frozenset, cap: int) -> float:
        """Least total guesses over `secrets` with at most `cap` guesses each."""
        if self.found(secrets):
            return 0
        if cap == 0:
            return INF
        best = INF
        for g in self.allowed(secrets):
            cells = self.split(g, secrets)
            if len(cells) == 1 and self.solved not in cells:
                continue  # learns nothing
            cost = len(secrets) + sum(
                self.total(frozenset(c), cap - 1) for f, c in cells.items() if f != self.solved
            )
            best = min(best, cost)
        return best

    @lru_cache(maxsize=None)
    def worst(self, secrets: frozenset) -> int:
        """Least worst-case number of guesses over `secrets`."""
        if self.found(secrets):
            return 0
        best = INF
        for g in self.allowed(secrets):
            cells = self.split(g, secrets)
            if len(cells) == 1 and self.solved not in cells:
                continue
            depth = 1 + max(
                [self.worst(frozenset(c)) for f, c in cells.items() if f != self.solved], default=0
            )
            best = min(best, depth)
        return best

    @lru_cache(maxsize=None)
    def wins(self, secrets: frozenset, cap: int) -> int:
        """Most secrets found within `cap` guesses."""
        if self.found(secrets):
            return len(secrets)
        if cap == 0:
            return 0
        best = 0
        for g in self.allowed(secrets):
            cells = self.split(g, secrets)
            won = len(cells.pop(self.solved, []))
            best = max(best, won + sum(self.wins(frozenset(c), cap - 1) for c in cells.values()))
        return best

    def everything(self) -> frozenset:
        return frozenset(self.secrets)
