"""A fresh Z3 context per unit, so that what is proved does not depend on what ran before."""

from __future__ import annotations

import functools
import gc
from contextlib import contextmanager
from typing import Callable, Iterator, ParamSpec, TypeVar

import z3


@contextmanager
def fresh_context() -> Iterator[None]:
    """A new Z3 context for what runs inside, with Python's cyclic garbage collector paused.

    The models and unsat cores Z3 returns depend on the terms its context holds and on their
    ids, which Z3 recycles as terms are freed: a term is freed when Python drops the last
    reference to it, and a collection of cycles drops them at moments set by the process's
    history (how much it allocated before).  Without both, a unit's verdicts (which
    candidates a proof rests on, which it drops, and so what is proved) would depend on the
    units its process ran before: on the pool's scheduling, or on a pytest worker's share of
    the items (measured: the same check twice in one process, 10.5M and 9.9M of ``rlimit``,
    72 and 74 candidates proven).  Pausing the collector for one unit keeps its cycles until
    the end of the unit, a bounded cost."""
    z3.z3._main_ctx = None  # z3py creates the default context anew on its next use
    gc.collect()
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


_P = ParamSpec("_P")
_R = TypeVar("_R")


def in_fresh_context(f: Callable[_P, _R]) -> Callable[_P, _R]:
    """``f`` run inside :func:`fresh_context`."""
    @functools.wraps(f)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with fresh_context():
            return f(*args, **kwargs)
    return run
