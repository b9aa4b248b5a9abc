"""How much memory this process may still take, and the one-line refusal of a request
that needs more.

Every allocation that grows with a request (a deduction game's codes and table, a Markov
game's states, a document read) is estimated by its own module before it is made, and
the estimate is held to `available` here, so that a request too large for the machine is
refused in one line naming the estimate and the way out, instead of being killed by the
system's out-of-memory killer after minutes of paging. The memory available is the least
of: what the system could give (``MemAvailable`` of ``/proc/meminfo``, else the physical
memory), what the address-space limit leaves (``RLIMIT_AS``, ``ulimit -v``, less the
address space already mapped) and what the container's memory limit leaves (cgroup v2's
``memory.max``, or v1's ``memory.limit_in_bytes``, less what the group uses apart from
the file cache it can drop).
"""

from __future__ import annotations

import os
import resource

from .errors import PerfectplayError, Unsupported

#: The system's memory report.
MEMINFO = "/proc/meminfo"
#: This process's mapped pages (the first number: the address space, in pages).
STATM = "/proc/self/statm"
#: The container's memory limit and use, as (limit, usage, statistics) files: cgroup v2,
#: then v1 (each read where the container mounts its own group at the root).
CGROUPS = (
    ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current", "/sys/fs/cgroup/memory.stat"),
    (
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
        "/sys/fs/cgroup/memory/memory.usage_in_bytes",
        "/sys/fs/cgroup/memory/memory.stat",
    ),
)
#: A cgroup limit at or above this is no limit (v1 writes "no limit" as nearly 2^63).
NO_LIMIT = 1 << 60


def available() -> int:
    """The bytes this process may still allocate (see the module's docstring); a very
    large number where nothing can be read (no limit known)."""
    candidates = [_system(), _address_space(), _container()]
    return min((c for c in candidates if c is not None), default=NO_LIMIT)


def size_text(n: int) -> str:
    """A number of bytes for a person: ``12.5 GiB``, ``300 MiB``, ``12 kiB``."""
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("kiB", 10)):
        if n >= 1 << shift:
            value = n / (1 << shift)
            return f"{value:,.1f} {unit}" if value < 100 else f"{value:,.0f} {unit}"
    return f"{n} bytes"


def refuse_beyond(
    need: int,
    what: str,
    way_out: str,
    free: int | None = None,
    error: type[PerfectplayError] = Unsupported,
) -> None:
    """`error` (Unsupported: a request too large), in one line, when `need` bytes (the
    estimate of `what`, which the message continues: "... would take about 30 GiB of
    memory") exceed the memory available (`free`; by default ``available()``), naming
    both and `way_out` (what the person can do instead)."""
    free = available() if free is None else free
    if need > free:
        raise error(
            f"{what} would take about {size_text(need)} of memory, more than the "
            f"{size_text(max(free, 0))} available; {way_out}"
        )


def _system() -> int | None:
    """``MemAvailable`` (what the system can give without swapping), else the physical
    memory (``os.sysconf``), else None."""
    try:
        with open(MEMINFO) as lines:
            for line in lines:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):
        return None


def _address_space() -> int | None:
    """What ``RLIMIT_AS`` leaves of the address space beyond what is mapped already;
    None without a limit."""
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    if limit == resource.RLIM_INFINITY:
        return None
    try:
        with open(STATM) as statm:
            mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        mapped = 0
    return limit - mapped


def _container() -> int | None:
    """What the container's memory limit leaves (its use less its inactive file cache,
    which the system drops before refusing memory); None without a limit."""
    for limit_file, usage_file, stat_file in CGROUPS:
        try:
            with open(limit_file) as f:
                text = f.read().strip()
            if text == "max":
                return None
            limit = int(text)
            if limit >= NO_LIMIT:
                return None
            with open(usage_file) as f:
                usage = int(f.read())
        except (OSError, ValueError):
            continue
        return limit - usage + _inactive_files(stat_file)
    return None


def _inactive_files(stat_file: str) -> int:
    """The group's inactive file cache (``inactive_file``, v1's ``total_inactive_file``)."""
    try:
        with open(stat_file) as lines:
            for line in lines:
                key, _, value = line.partition(" ")
                if key in ("inactive_file", "total_inactive_file"):
                    return int(value)
    except (OSError, ValueError):
        pass
    return 0
