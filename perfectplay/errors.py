"""Errors a user can cause, reported as one line by the command line."""


class PerfectplayError(Exception):
    """Bad input or an impossible request: the message names the problem in one line."""


class UnknownGame(PerfectplayError):
    """A game name that is not in the catalogue."""


class BadParameter(PerfectplayError):
    """A game parameter that is unknown, not a number, or out of range."""


class Unsupported(PerfectplayError):
    """A request the chosen game or engine cannot serve (objective, size, method)."""


class BadFile(PerfectplayError):
    """A file given to perfectplay that is not what it should be: of another kind, of
    another job, or with numbers or claims its own contents do not bear out."""


class IncompleteRules(PerfectplayError):
    """A game whose rules leave something out (a method not written, a state with no row)."""


def missing_rule(game: object, method: str, needs: str) -> IncompleteRules:
    """The error for a rules method that a game class does not define."""
    name = getattr(game, "name", type(game).__name__)
    return IncompleteRules(f"game {name!r} does not define {method}() ({needs})")
