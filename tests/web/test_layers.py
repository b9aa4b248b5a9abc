"""The web package reaches the engines only through the Api (issue 49, item 8): no module
of perfectplay/web imports a module of an engine (perfectplay.deduction,
perfectplay.markov: their protocols included) or the terminal's screens
(perfectplay.play); what a board needs is on the Api's floor (``advice``,
``positions``, ``engine``, ``catalogue``)."""

from __future__ import annotations

import ast
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "perfectplay" / "web"
BARRED = ("perfectplay.deduction", "perfectplay.markov", "perfectplay.play")


def _imported(path: Path) -> list[str]:
    """Every module `path` (a module of perfectplay.web) imports, absolute, wherever the
    import stands (at the top, in a function, for type checkers only)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from perfectplay.web (level 1) upwards
                base = ["perfectplay", "web"][: 3 - node.level]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            found += [stem] + [f"{stem}.{a.name}" for a in node.names]
    return found


def test_the_web_imports_no_engine_and_no_terminal_screen():
    breaches = [
        f"{path.name} imports {name}"
        for path in sorted(WEB.rglob("*.py"))
        for name in _imported(path)
        if any(name == b or name.startswith(b + ".") for b in BARRED)
    ]
    assert not breaches, "\n".join(breaches)


def test_the_check_sees_a_breach(tmp_path):
    """(The check can fail: relative and absolute imports of an engine are both seen.)"""
    bad = tmp_path / "bad.py"
    bad.write_text("from ..markov import contract\nimport perfectplay.deduction.rank\n")
    names = _imported(bad)
    assert "perfectplay.markov.contract" in names and "perfectplay.deduction.rank" in names
