"""Run set-up code on one of numba's modules as soon as it is loaded, in this process only.

Importing perfectplay does not import numba (a command that runs no kernel never pays
for it), yet two of its settings must be in place before the first kernel is defined or
loaded: where compiled kernels are kept (``kernel_cache``) and how cached ones are
loaded (``numba_start``). ``when_loaded`` runs such a set-up right after the module
named is executed, or at once if it is loaded already. The environment is left alone, so
other programs started from this one get numba as it comes.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from collections.abc import Callable
from types import ModuleType

#: Set-ups per module name, waiting for that module's import.
_WAITING: dict[str, list[Callable[[ModuleType], None]]] = {}


class _OnImport(importlib.abc.MetaPathFinder):
    """Wraps the loader of a module in ``_WAITING`` so that its set-ups run right after
    the module's own code."""

    def find_spec(self, name, path, target=None):
        if name not in _WAITING:
            return None
        setups = _WAITING.pop(name)
        if not _WAITING:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        load = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            load(module)
            for setup in setups:
                setup(module)

        spec.loader.exec_module = exec_module
        return spec


def when_loaded(name: str, setup: Callable[[ModuleType], None]) -> None:
    """Call ``setup(module)`` once module `name` is loaded: now if it is, else right after
    its import."""
    module = sys.modules.get(name)
    if module is not None:
        setup(module)
        return
    if setup in _WAITING.get(name, []):
        return
    _WAITING.setdefault(name, []).append(setup)
    if not any(isinstance(finder, _OnImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _OnImport())
