"""Errors a user can cause, reported as one line by the command line."""


class PerfectplayError(Exception):
    """Bad input or an impossible request: the message names the problem in one line."""


class UnknownGame(PerfectplayError):
    """A game name that is not in the catalogue."""


class BadParameter(PerfectplayError):
    """A game parameter that is unknown, not a number, or out of range."""


class Unsupported(PerfectplayError):
    """A request the chosen game or engine cannot serve (objective, size, method)."""
