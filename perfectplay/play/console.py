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


class Undo(Exception):
    """The person asked to take back the last turn (or what was just typed)."""


class Console:
    """Ask questions and print answers; ``ask`` returns a stripped line once it is not
    one of the commands every prompt takes (``COMMANDS_HELP``), which it handles itself."""

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

    def ask(self, prompt: str, hint: str) -> str:
        """The line typed at `prompt`, stripped, once it is not a command: ``help`` (or
        ``?``, ``h``) says `hint` and asks again, ``undo`` raises Undo, ``quit`` (or
        ``q``, ``exit``, or the input's end) raises Quit."""
        while True:
            line = self._line(prompt)
            word = line.lower()
            if word in ("quit", "q", "exit"):
                raise Quit
            if word == "undo":
                raise Undo
            if word not in ("help", "?", "h"):
                return line
            self.say(hint)

    def _line(self, prompt: str) -> str:
        """One line typed at `prompt`, stripped; Quit at the input's end."""
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
        return line.strip()
