"""One public interface for a solved strategy, whatever engine solved it.

A deduction tree (a guess at every position of guesses and feedbacks) and a Markov
policy (a choice after every chance outcome in every state) are read the same way by
the command line (``verify``, ``show``), the web page, the Gymnasium agent and the
advisor: through `Strategy`, built from a solution document by
``catalogue.load_strategy``, the one place that looks at which engine wrote the document.

A strategy answers:

* ``action(position)``: what it plays there (a deduction `History` of (guess, feedback)
  pairs since the start, answered with a guess index; a Markov `Decision`, answered
  with a choice number), or None where the strategy never goes;
* ``to_json()``: its ``strategy`` object, as written in the document;
* ``verify(resolve)``: the replay by the rules, every number of the document checked
  (``verdict.Verdict``);
* ``render(tree, depth)``: its first levels as a rich tree; ``explore(path)``: one
  node with its branches, for a person opening the strategy node by node.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

from .errors import PerfectplayError
from .game import Game


@dataclass(frozen=True)
class Decision:
    """A Markov position: the state (its game code), the chance outcome just drawn, and
    the budget left (horizon policies only)."""

    state: int
    outcome: int
    budget: int | None = None


@dataclass(frozen=True)
class Option:
    """One choice at an explorer node: what it is, its value, whether the strategy makes
    it, and the explorer path of the node it leads to (None: the strategy lists none)."""

    label: str
    value: str
    chosen: bool
    path: str | None
    #: The action it is (a guess index, a choice number); None for a mere outcome.
    action: int | None = None


@dataclass(frozen=True)
class Branch:
    """What can happen at an explorer node (a feedback, a chance outcome) and the
    options then."""

    label: str
    detail: str
    options: tuple[Option, ...]
    #: The feedback or chance outcome's number.
    number: int | None = None


@dataclass(frozen=True)
class View:
    """One node of a strategy, for a person: what it is, its facts (secrets still
    possible, value of the subtree), its branches and the path back up."""

    path: str
    title: str
    facts: tuple[str, ...]
    branches: tuple[Branch, ...]
    parent: str | None


class BadPath(PerfectplayError):
    """An explorer path that does not name a node of the strategy."""


class Strategy(ABC):
    """A solved strategy of either engine, read from its solution document."""

    #: The ``kind`` of the document's ``strategy`` object this class reads.
    kind: ClassVar[str]
    #: The kind of game (``Game.kind``) it is a strategy for.
    game_kind: ClassVar[str]

    def __init__(self, game: Game, document: dict[str, Any]):
        self.game = game
        self.document = document

    @property
    def root_path(self) -> str:
        """The explorer path of the strategy's first node."""
        return ""

    @abstractmethod
    def action(self, position: Any) -> int | None:
        """What the strategy plays at `position`; None where it never goes."""

    def to_json(self) -> dict[str, Any]:
        """The ``strategy`` object of the document."""
        return self.document["strategy"]

    @property
    def held_bytes(self) -> int:
        """The memory its arrays hold, where they are large (a staged game's values, a
        target's rows: what a server holding many strategies counts); else 0."""
        return 0

    @abstractmethod
    def verify(self, resolve: bool = True):
        """The document checked by replaying the strategy (``verdict.Verdict``)."""

    @abstractmethod
    def render(self, tree, depth: int) -> None:
        """Add the strategy's first `depth` levels under the rich Tree `tree`."""

    @abstractmethod
    def explore(self, path: str) -> View:
        """The node at `path` (``root_path`` first, then the paths its options name)."""

    def solve_options(self) -> dict[str, Any]:
        """The engine options that solve the same root again (to re-check a claim)."""
        return {}

    def learned(self):
        """A rich Table of what the strategy learned, where the game labels it; else None."""
        return None

    def spread(self, state: int) -> float | None:
        """The standard deviation of the score (or cost) still to come from the Markov
        state `state` when played by this strategy, where the strategy knows it (a
        staged game's); else None."""
        return None
