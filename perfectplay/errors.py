"""Errors a user can cause, reported as one line by the command line."""

import contextlib
from typing import Any, Iterator


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


class BadRules(PerfectplayError):
    """A game's rules that break their protocol where the package reads them: a method
    gave a value of the wrong type, shape or range, answered the same question two ways,
    or raised. The message names the game, the method and the first bad value (or the
    exception), in one line, so that nothing a broken rule gave is solved as if true."""


@contextlib.contextmanager
def in_rule(game: object, method: str) -> Iterator[None]:
    """Run the block as the rule `method` of `game`: an exception it raises is turned into
    ``BadRules`` naming the game, the method and the exception in one line. A
    ``PerfectplayError`` (a rule the game does not define, a code it cannot read) and
    running out of memory pass as they are: they say what they are already."""
    try:
        yield
    except (PerfectplayError, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - any error of the rules is reported as theirs
        from .compile_errors import compile_failure

        failed = compile_failure(err)  # (compiled rules numba could not compile)
        if failed is not None:
            raise BadRules(f"{game}: {method}(): {failed}") from err
        text = " ".join(str(err).split())
        detail = f"{type(err).__name__}: {text}" if text else type(err).__name__
        raise BadRules(f"{game}: {method}() raised {detail[:300]}") from err


def call_rule(game: object, method: str, *args: object) -> Any:
    """``game.<method>(*args)``, run as that rule (``in_rule``)."""
    with in_rule(game, method):
        return getattr(game, method)(*args)


@contextlib.contextmanager
def as_assertion() -> Iterator[None]:
    """Raise a ``BadRules`` of the block as the AssertionError ``check_game`` promises
    (the same one-line message)."""
    try:
        yield
    except BadRules as err:
        raise AssertionError(str(err)) from None
