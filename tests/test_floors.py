"""The package's floors, read from its own imports (docs/architecture.md, "Floors").

Every module has a floor; an import may go to the same floor or down, never up, and
none may close a circle. Every import counts: at the top of a module, inside a function,
or for type checkers only; and so does a string that names a module of the package (an
import by name). Screens reach an engine only through the vocabulary (``engine_of``) and
the registry: they import no module of an engine, only its rules protocol.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "perfectplay"

PLUMBING, VOCABULARY, PROTOCOL, ENGINE, GAMES, REGISTRY, SCREEN, TOOL = range(8)
NAMES = ["plumbing", "vocabulary", "protocol", "engine", "games", "registry", "screen", "tool"]

#: Modules by floor (the rest of deduction/ and markov/ is the engines'; of games/, the
#: games'). A new module must be placed here: the test names any it cannot place.
PLACED = {
    PLUMBING: """errors progress store cluster kernel_cache numba_hooks numba_start threading_layer
        allocator speedups ranges memory reading compile_errors aligned""",
    VOCABULARY: "game measure params objectives solution strategy engine verdict shards",
    PROTOCOL: """deduction.model deduction.restriction deduction.restriction_kernels
        deduction.contract markov.model markov.contract markov.stage_model markov.table""",
    REGISTRY: "engines catalogue book advice kept positions scorecard simulation",
    SCREEN: """__init__ __main__ cli cli_openings cli_simulate cli_ranges show plot verify_file
        gym play web""",
    # The build step that compiles the kernels at install time: it drives the command
    # line and forces the Markov engine's streamed path on tiny games (as a test would).
    TOOL: "precompile",
}


def floor_of(module: str) -> int:
    """The floor of `module` (dotted, relative to the package: ``deduction.root``)."""
    for floor, names in PLACED.items():
        for name in names.split():
            if module == name or module.startswith(name + "."):
                return floor
    head = module.split(".")[0]
    if head in ("deduction", "markov"):
        return ENGINE
    if head == "games":
        return GAMES
    raise AssertionError(f"perfectplay.{module} has no floor: place it in PLACED")


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[-1] == "__init__" and len(parts) > 1:
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _target(name: str) -> str | None:
    """The package module a dotted name lies in (None: outside the package)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    """Every package module `module` imports, by statement or by a string naming it."""
    is_package = path.name == "__init__.py"
    here = module.split(".") if module != "__init__" else []
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_package else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                stem = ".".join(base + ([node.module] if node.module else []))
            else:
                stem = node.module or ""
            names = [f"{stem}.{a.name}".strip(".") for a in node.names] + [stem]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = re.fullmatch(r"(perfectplay(?:\.\w+)+)(?::\w+)?", node.value)
            names = [named.group(1)] if named else []
        for name in names:
            if name == "perfectplay" or name.startswith("perfectplay."):
                name = name.removeprefix("perfectplay").lstrip(".")
            elif not (isinstance(node, ast.ImportFrom) and node.level):
                continue
            target = _target(name) if name else "__init__"
            if target and target != module:
                found.add(target)
                break  # an ImportFrom's names: the first that is a module, else its stem
    return found


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return {m: _imports(m, p) for m, p in MODULES.items()}


def test_every_module_has_a_floor():
    for module in MODULES:
        floor_of(module)


def test_no_import_goes_up_a_floor(graph):
    up = [
        f"{a} ({NAMES[floor_of(a)]}) imports {b} ({NAMES[floor_of(b)]})"
        for a, targets in graph.items()
        for b in targets
        if floor_of(b) > floor_of(a)
    ]
    assert not up, "\n".join(sorted(up))


def test_screens_import_no_engine_module(graph):
    past = [
        f"{a} imports {b}"
        for a, targets in graph.items()
        if floor_of(a) == SCREEN
        for b in targets
        if floor_of(b) in (ENGINE, GAMES)
    ]
    assert not past, "\n".join(sorted(past))


def test_engines_import_no_game(graph):
    games = [
        f"{a} imports {b}"
        for a, targets in graph.items()
        if floor_of(a) <= ENGINE
        for b in targets
        if floor_of(b) == GAMES
    ]
    assert not games, "\n".join(sorted(games))


def test_no_import_circle(graph):
    circles = _strong_components(graph)
    assert not circles, "\n".join(" -> ".join(sorted(c)) for c in circles)


def _strong_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_the_checker_sees_a_circle_and_an_upward_import():
    """The checks can fail: a made-up circle and a made-up upward arrow are found."""
    made_up = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert sorted(map(sorted, _strong_components(made_up))) == [["a", "b", "c"]]
    assert floor_of("deduction.root") > floor_of("deduction.model") > floor_of("game")
    assert floor_of("web.play") == SCREEN and floor_of("games.wordle") == GAMES
    assert _imports("engine", MODULES["engine"]) >= {"objectives", "errors"}
    assert "catalogue" in _imports("gym", MODULES["gym"])  # a top-level from-import
    assert "deduction.openings" in _imports("deduction.engine", MODULES["deduction.engine"])
