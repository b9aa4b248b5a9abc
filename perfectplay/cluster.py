"""Dask distributed as a back end: one lane (an Executor) per worker of a Dask cluster.

The deduction engine hands its cells to lanes, each a ``concurrent.futures.Executor``
of one worker (``deduction.root``). Here each worker of a Dask cluster is such a lane:
its tasks are pinned to it, so that, as with the thread lanes, a cell of a later pass
finds the memo its worker built in an earlier one (each Dask worker process keeps its
searches between tasks). ``--cluster local:N`` starts N single-threaded worker
processes on this machine; ``--cluster ADDRESS`` uses a running scheduler
(``dask scheduler`` plus ``dask worker ADDRESS`` on each machine; docs/cluster.md).

Dask is an optional extra: ``pip install 'perfectplay[cluster]'``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Executor, Future, InvalidStateError

from .allocator import keep_freed_memory
from .errors import PerfectplayError, Unsupported
from .ranges import LONGEST_WAIT, MOST_LANES, within

#: Seconds an address is given in all to answer as a Dask scheduler and show a worker:
#: with the command's start and close, a wrong address is refused within 30 s.
CONNECT_TIMEOUT = 25.0
#: Set to a number of seconds to wait for a scheduler instead of ``CONNECT_TIMEOUT``.
TIMEOUT_ENV = "PERFECTPLAY_CLUSTER_TIMEOUT"
#: The local workers' Dask settings, so that Dask's own threads take less of the cores
#: the search runs on: no statistical profiler (it samples every thread every 10 ms), no
#: work stealing (every task is pinned to its worker), and the event loop's tick and the
#: system monitor every second and every five instead of every 20 ms and 500 ms.
QUIET_WORKERS = {
    "distributed.worker.profile.enabled": False,
    "distributed.scheduler.work-stealing": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}


class _Cluster:
    """The client (and the local cluster it started, if any), closed with its last lane."""

    def __init__(self, client, local, lanes: int) -> None:
        self.client, self.local, self.open = client, local, lanes
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            self.open -= 1
            if self.open:
                return
        try:
            if self.local is not None:  # our own workers: stop them now (see ``_stop_now``)
                self.client.run(_stop_now, wait=False, on_error="ignore")
        except Exception:  # noqa: BLE001 - only saves time; the closes below still run
            pass
        finally:
            self.client.close()
            if self.local is not None:
                self.local.close()


async def _stop_now(dask_worker) -> None:
    """Close this worker (run on each worker of a local cluster) without waiting for the
    task it runs: when the solve ends, a worker may still search a cell whose guess has
    lost (compiled code cannot be interrupted), and a graceful close waits 4 s for it
    before killing the process."""
    await dask_worker.close(executor_wait=False, nanny=True, reason="the solve is done")


class DaskLane(Executor):
    """The tasks of one Dask worker (by address), as an Executor: each task pinned to the
    worker, its result handed to a ``concurrent.futures.Future`` (cancelling that future
    cancels the task)."""

    def __init__(self, cluster: _Cluster, worker: str) -> None:
        self.cluster, self.worker = cluster, worker
        self._tasks: dict = {}  # our future -> the Dask task, while pending
        self._closed = False

    def submit(self, fn, /, *args, **kwargs) -> Future:
        if self._closed:
            raise RuntimeError("cannot submit to a closed lane")
        task = self.cluster.client.submit(
            fn, *args, workers=[self.worker], allow_other_workers=False, pure=False, **kwargs
        )
        future: Future = Future()
        self._tasks[future] = task

        def settle(done) -> None:  # on a Dask thread, once the task ended
            self._tasks.pop(future, None)
            if future.cancelled():
                return
            try:
                if done.status == "finished":
                    future.set_result(done.result())
                elif done.status != "cancelled":
                    future.set_exception(done.exception())
            except InvalidStateError:  # cancelled meanwhile
                pass

        def cancel(ours) -> None:
            if ours.cancelled():
                task.cancel()

        future.add_done_callback(cancel)
        task.add_done_callback(settle)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Cancel what is left (with `cancel_futures`) and let the cluster go with the last
        lane (a local cluster's workers stop then; a remote cluster's finish their task)."""
        if self._closed:
            return
        self._closed = True
        if cancel_futures:
            for future in list(self._tasks):
                future.cancel()
        self.cluster.release()


def check_cluster(spec: str) -> None:
    """Refuse `spec` in one line before a solve starts: ``local:N`` with N >= 1, or the
    address of a scheduler that answers and has a worker (connected to, then let go; the
    solve connects again when its position is large enough to split)."""
    if spec.startswith("local:"):
        _local_workers(spec)
        return
    _connect(spec).close()


def _local_workers(spec: str) -> int:
    """The N worker processes ``local:N`` asks for, refused in one line unless from 1 to
    ``MOST_LANES``."""
    return int(within(spec.partition(":")[2], 1, MOST_LANES, what="--cluster local:N: N"))


def _distributed():
    """Dask's distributed module, or a one-line error naming the extra."""
    try:
        import distributed
    except ImportError:
        raise Unsupported("--cluster needs Dask: pip install 'perfectplay[cluster]'") from None
    return distributed


def connect_timeout() -> float:
    """The seconds an address is given to answer (``CONNECT_TIMEOUT``, or
    ``$PERFECTPLAY_CLUSTER_TIMEOUT``); a setting that is not a number of seconds from
    a millisecond to a day (``LONGEST_WAIT``) is one line."""
    text = os.environ.get(TIMEOUT_ENV)
    if text is None:
        return CONNECT_TIMEOUT
    return within(text, 0.001, LONGEST_WAIT, integer=False, what=f"${TIMEOUT_ENV}", unit="seconds")


def _connect(spec: str):
    """A client of the scheduler at the address `spec`, once it has a worker, within
    ``connect_timeout()`` seconds in all; any failure is one line naming the address."""
    distributed = _distributed()
    seconds = connect_timeout()
    deadline = time.monotonic() + seconds
    try:
        scheme, location = _parse_address(spec)
        if scheme == "tcp":  # a refused or unroutable address fails at once
            _knock(location, seconds)
        _handshake(scheme, location, deadline - time.monotonic())
        return _client(distributed, spec, seconds, deadline)
    except TimeoutError as err:
        raise PerfectplayError(
            f"--cluster {spec}: {_what_timed_out(err)} within {seconds:g} s "
            f"(${TIMEOUT_ENV} sets the wait)"
        ) from None
    except (OSError, ValueError) as err:
        raise PerfectplayError(
            f"--cluster {spec}: cannot reach the Dask scheduler ({err.__class__.__name__}: {err})"
        ) from None
    except _NotScheduler as err:
        raise PerfectplayError(f"--cluster {spec}: {err}") from None


class _NotScheduler(Exception):
    """The address answered, but not as a Dask scheduler: the message says how."""


_NOT_DASK = "something answers there, but not a Dask scheduler"


def _client(distributed, spec: str, seconds: float, deadline: float):
    """Dask's client of the scheduler at `spec` (which answered Dask's handshake), once
    it has a worker, by `deadline`; a Dask process that is not a scheduler (a worker's
    address) fails its requests with errors of its own, which are `_NotScheduler`."""
    try:
        client = distributed.Client(spec, timeout=seconds)
    except OSError:  # TimeoutError too
        raise
    except Exception as err:  # noqa: BLE001 - the remote end's own error
        raise _NotScheduler(
            f"a Dask process answers there, but not as a scheduler "
            f"({err.__class__.__name__}: {err})"
        ) from None
    try:
        client.wait_for_workers(1, timeout=max(deadline - time.monotonic(), 0.001))
    except BaseException:
        client.close()
        raise
    return client


def _what_timed_out(err: TimeoutError) -> str:
    """What did not happen in time, for the one line: no worker joined a scheduler that
    answered, or nothing answered as a Dask scheduler does."""
    from distributed.exceptions import WorkerStartTimeoutError

    if isinstance(err, WorkerStartTimeoutError):
        return "the Dask scheduler answered but no worker joined it"
    return "no Dask scheduler answered"


def _parse_address(spec: str) -> tuple[str, str]:
    """The scheme and location of the address `spec`; ValueError for a scheme Dask does
    not know, or one it cannot connect by here (``ucx://`` without its package)."""
    from distributed.comm.addressing import parse_address
    from distributed.comm.registry import get_backend

    scheme, location = parse_address(spec)
    try:
        get_backend(scheme).get_connector()
    except Exception as err:  # noqa: BLE001 - ValueError, or a transport not installed
        if isinstance(err, ValueError):
            raise
        raise ValueError(f"Dask cannot connect by {scheme}:// here") from None
    return scheme, location


def _knock(location: str, seconds: float) -> None:
    """Open and close a TCP connection to `location` (``host:port``): a refused or
    unroutable address fails at once (OSError), where Dask's client would retry it for
    its whole timeout."""
    import socket

    from distributed.comm.addressing import parse_host_port

    with socket.create_connection(parse_host_port(location), timeout=seconds):
        pass


def _handshake(scheme: str, location: str, seconds: float) -> None:
    """Connect to `location` as Dask's client does (its transport and security settings) and
    exchange the handshake each end of a Dask connection sends first, within `seconds`
    (else TimeoutError), closing the connection in every case. Dask's client waits for
    the other end's handshake without a timeout, so an address that accepts and never
    writes (a silent listener, or an HTTP server waiting for a line that never comes)
    would hold it for ever; an end that hangs up, or sends anything but a handshake
    (another protocol's bytes read as Dask's frames), is `_NotScheduler`."""
    from distributed import Security
    from distributed.comm import CommClosedError
    from distributed.comm.registry import get_backend

    connector = get_backend(scheme).get_connector()
    arguments = Security().get_connection_args("client")

    async def exchange() -> object:
        comm = await connector.connect(location, deserialize=True, **arguments)
        try:
            await comm.write(comm.handshake_info())
            return await comm.read()
        finally:
            comm.abort()

    try:
        answer = asyncio.run(asyncio.wait_for(exchange(), max(seconds, 0.001)))
    except CommClosedError:  # it read our handshake and hung up
        raise _NotScheduler(_NOT_DASK) from None
    except OSError:  # TimeoutError too: said as such by the caller
        raise
    except Exception:  # noqa: BLE001 - another protocol's bytes read as Dask's frames
        raise _NotScheduler(_NOT_DASK) from None
    if not isinstance(answer, dict):
        raise _NotScheduler(_NOT_DASK)


def cluster_lanes(spec: str) -> list[Executor]:
    """One lane per worker of the cluster `spec` names: ``local:N`` (N worker processes
    started here) or a scheduler's address (``tcp://host:8786``)."""
    distributed = _distributed()
    local = None
    try:
        if spec.startswith("local:"):
            import dask

            with dask.config.set(QUIET_WORKERS):
                local = distributed.LocalCluster(
                    n_workers=_local_workers(spec),
                    threads_per_worker=1,
                    processes=True,
                    memory_limit=0,
                    dashboard_address=":0",  # (None means 8787, and a warning when it is taken)
                    silence_logs=logging.ERROR,
                )
            client = distributed.Client(local)
        else:
            client = _connect(spec)
        workers = sorted(client.scheduler_info()["workers"])
        # see ``allocator``; a worker that cannot run it only goes slower
        client.run(keep_freed_memory, workers=workers, on_error="ignore")
    except PerfectplayError:
        raise
    except (OSError, TimeoutError, ValueError) as err:
        if local is not None:
            local.close()
        raise PerfectplayError(
            f"--cluster {spec}: cannot reach the Dask scheduler ({err.__class__.__name__}: {err})"
        ) from None
    shared = _Cluster(client, local, len(workers))
    return [DaskLane(shared, worker) for worker in workers]
