"""Numba's threading layer, chosen fork-safe before any kernel runs.

Worker processes are forked (the deduction search's pool, the advisor's budgeted
search). A child forked from a process that has run numba's GNU OpenMP layer dies at
its first parallel kernel ("Terminating: fork() called from a process already using
GNU OpenMP, this is unsafe"), and numba picks OpenMP whenever libgomp is installed and
TBB is not. So the package asks numba for its "forksafe" layer (TBB where installed,
else numba's own workqueue) unless the user named a layer in ``NUMBA_THREADING_LAYER``;
``fork_is_safe`` tells code that forks whether this process may still do so.
"""

from __future__ import annotations

import os
import sys

VARIABLE = "NUMBA_THREADING_LAYER"


def choose_fork_safe_layer() -> None:
    """Ask numba for a fork-safe threading layer, unless the user chose one."""
    if VARIABLE in os.environ:
        return
    # numba re-reads its configuration from the environment when it compiles, so the
    # choice goes there (and to worker processes); set it directly too if numba is loaded
    os.environ[VARIABLE] = "forksafe"
    config = sys.modules.get("numba.core.config")
    if config is not None:
        config.THREADING_LAYER = "forksafe"


def fork_is_safe() -> bool:
    """False once this process has started numba's OpenMP layer (a forked child would die
    at its first parallel kernel); True before any parallel kernel ran or with TBB or
    workqueue."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return True
    import numba

    try:
        return numba.threading_layer() != "omp"
    except ValueError:  # no layer started yet
        return True
