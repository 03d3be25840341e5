"""Where ``mtgcheck check`` runs its work units: a local process pool, or a Dask cluster.

Both are ``concurrent.futures`` executors, so :func:`mtgcheck.check_run.run_check` does not
care which one it gets.  Units are pure functions of their arguments (a configuration, the
properties, the options) and return verdicts; they never write the counterexample store,
which only the main process touches, so a run on many machines still leaves one file per
counterexample.

Dask is an optional extra (``pip install mtgcheck[dask]``): it is imported only when a
scheduler address is given.  The workers must be able to import the same version of
mtgcheck as the main process.
"""

from __future__ import annotations

from concurrent.futures import Executor, Future, ProcessPoolExecutor
from typing import Any, Callable

from mtgcheck.errors import UsageError

#: Seconds to wait for the scheduler to answer before giving up: an unreachable address
#: should be a quick one-line error, not a hang.
CONNECT_TIMEOUT = 5.0


class DaskExecutor(Executor):
    """A Dask client's executor that also closes its client on shutdown.

    ``Client.get_executor()`` leaves the client open; owning both here means the caller
    shuts down one object, whatever the backend.  Tasks are submitted with ``pure=False``:
    two units with equal arguments must both run (Dask would otherwise share one result).
    """

    def __init__(self, client: Any) -> None:
        self.client = client
        self._inner = client.get_executor(pure=False)

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return self._inner.submit(fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        try:
            self._inner.shutdown(wait=wait)
        finally:
            self.client.close()


def _distributed() -> Any:
    """The ``distributed`` module, or a one-line usage error saying how to get it."""
    try:
        import distributed
    except ImportError:
        raise UsageError("--scheduler needs Dask: pip install mtgcheck[dask]") from None
    return distributed


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> DaskExecutor:
    """An executor on the Dask scheduler at ``address``; a UsageError if it can't be reached."""
    distributed = _distributed()
    try:
        client = distributed.Client(address, timeout=timeout, set_as_default=False)
    except (OSError, ValueError, TypeError) as exc:  # refused, timed out, or not an address
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise UsageError(f"--scheduler: can't reach a Dask scheduler at {address!r} ({reason})") from None
    return DaskExecutor(client)


def make_executor(scheduler: str | None, jobs: int) -> Executor:
    """A local pool of ``jobs`` processes, or the Dask cluster whose scheduler is at ``scheduler``.

    One process per worker (never threads): Z3 contexts and Hypothesis runs are not
    meant to share an interpreter, and the rules are CPU-bound Python.
    """
    if scheduler:
        return connect(scheduler)
    return ProcessPoolExecutor(max_workers=jobs)
