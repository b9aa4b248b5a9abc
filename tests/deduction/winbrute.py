"""A plain brute force of the most secrets won within t guesses, to cross-check the engine.

Every allowed guess is tried at every state (no symmetry, no bounds, no memo); the
restrictions come from the game's ``restrict_guesses`` and the feedbacks from its scalar
``feedback``, not from the engine's kernels. With `determine`, a secret is won once the
feedback leaves it alone.
"""


def brute_wins(game, horizon: int, determine: bool = False) -> int:
    codes = [tuple(int(x) for x in c) for c in game.guesses().tolist()]
    secrets = [tuple(int(x) for x in c) for c in game.secrets().tolist()]
    solved = game.solved_feedback()
    fb = {(g, s): game.feedback(g, s) for g in codes for s in secrets}

    def wins(consistent, history, t):
        if determine and len(consistent) == 1:
            return 1
        if not consistent or t == 0:
            return 0
        mask = game.restrict_guesses(history, game.guesses())
        best = 0
        for i, g in enumerate(codes):
            if mask is not None and not mask[i]:
                continue
            cells = {}
            for s in consistent:
                cells.setdefault(fb[g, s], []).append(s)
            value = len(cells.pop(solved, []))
            value += sum(wins(cell, history + ((i, f),), t - 1) for f, cell in cells.items())
            best = max(best, value)
        return best

    return wins(secrets, (), horizon)
