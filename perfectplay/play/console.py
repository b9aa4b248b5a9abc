"""Where an interactive session reads and writes: a real terminal or plain pipes.

In a terminal, prompt_toolkit gives line editing and history and rich gives colour; when
stdin is not a terminal, plain lines are read, so sessions can be scripted.
"""

from __future__ import annotations

import sys
from typing import TextIO

COMMANDS_HELP = "commands at any prompt: undo, help, quit"


class Quit(Exception):
    """The person asked to stop (or the input ended)."""


class Console:
    """Ask questions and print answers; ``ask`` returns a stripped line, raising Quit
    on ``quit`` or end of input. ``undo`` and ``help`` are returned for the caller."""

    def __init__(
        self,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        interactive: bool | None = None,
    ):
        self.stdin = stdin or sys.stdin
        self.stdout = stdout or sys.stdout
        self.interactive = self.stdin.isatty() if interactive is None else interactive
        self._session = None
        from rich.console import Console as RichConsole

        self._rich = RichConsole(
            file=self.stdout,
            highlight=False,
            force_terminal=self.interactive,
            no_color=not self.interactive,
        )

    def say(self, text: str = "") -> None:
        """Print a line (rich markup allowed), wrapped between words at the console's width
        (a terminal's own wrapping would break words)."""
        self._rich.print(text)

    def show(self, renderable) -> None:
        """Print a rich renderable (a table)."""
        self._rich.print(renderable)

    def ask(self, prompt: str) -> str:
        if self.interactive:
            if self._session is None:
                from prompt_toolkit import PromptSession

                self._session = PromptSession()
            try:
                line = self._session.prompt(prompt + " ")
            except EOFError:
                raise Quit from None
        else:
            self.stdout.write(prompt + " ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:
                self.stdout.write("\n")
                raise Quit
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        line = line.strip()
        if line.lower() in ("quit", "q", "exit"):
            raise Quit
        return line
