"""kernelcost's deductions and shortcuts in sympy's place, only while kernelcost computes.

Ten modules replace functions of sympy's, each naming what it replaces and why:
`sound_signs` (sympy's sign and integrality deductions less the two that prove false facts
about sizes), `number_facts` (a rational number's facts found once for each kind of
number), `rounding` (floor and ceiling of integer expressions without sympy's questions),
`term_factors` (a term's factors from a dict without sympifying the dict), `texts` (the
order of a sum's terms and a product's precedence, for the printers), `monomial_ops`
(a polynomial ring's monomial arithmetic compiled with the package, not exec'd),
`fact_order` (the facts the assumption system tries, in a fixed order), `fact_deductions`
(a knowledge base's forward chaining, each distinct deduction done once), `root_bounds`
(the bound on a polynomial's positive roots that real-root isolation asks, in plain
integers) and `free_symbol_sets` (an expression's free symbols and atoms found once). All but
sound_signs give sympy's own answers, which their tests check against sympy.

A caller's process is left as it was. `patched()`, a context manager and a decorator that
the public API enters, puts the replacements in place when the first caller enters and
sympy's own back when the last one leaves. It is re-entrant and thread-safe: what it puts
in place dispatches on the calling thread, so that another thread's sympy work gets
sympy's own answers meanwhile. sympy's cache holds expressions built under either, so it is
cleared as the first enters and the last leaves; while an analysis runs, a second thread's
expressions still share that cache with it. `own_process()` is for a process kernelcost
owns (its console script): the replacements stay for good, without the dispatch.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import sympy

from . import (
    fact_deductions,
    fact_order,
    free_symbol_sets,
    monomial_ops,
    number_facts,
    root_bounds,
    rounding,
    sound_signs,
    term_factors,
    texts,
)
from .sympy_patch import Patch

PATCHES: tuple[Patch, ...] = (*sound_signs.PATCHES, *number_facts.PATCHES, *rounding.PATCHES,
                              *term_factors.PATCHES, *texts.PATCHES, *monomial_ops.PATCHES,
                              *fact_order.PATCHES, *fact_deductions.PATCHES,
                              *root_bounds.PATCHES, *free_symbol_sets.PATCHES)

_thread = threading.local()  # .on: this thread's override of the process's default
_lock = threading.Lock()
_holders = 0  # threads inside patched()
_stored: list[object] = []  # what each place held before the replacements
_owned = False  # own_process(): the replacements for good, every thread


def active() -> bool:
    """Whether the calling thread computes with kernelcost's replacements."""
    return getattr(_thread, "on", _owned)


def _dispatching(patch: Patch) -> Callable:
    ours, sympys = patch.ours, patch.sympys()

    def either(*args, **kwargs):
        if getattr(_thread, "on", _owned):
            return ours(*args, **kwargs)
        return sympys(*args, **kwargs)

    either.wraps = sympys  # type: ignore[attr-defined]
    return either


@contextmanager
def patched() -> Iterator[None]:
    """kernelcost's replacements for the calling thread, sympy's own again on exit."""
    previous = getattr(_thread, "on", None)
    if previous or (previous is None and _owned):
        yield
        return
    _hold()
    _thread.on = True
    try:
        yield
    finally:
        _restore(previous)
        _release()


@contextmanager
def sympys_own() -> Iterator[None]:
    """sympy's own functions for the calling thread inside kernelcost's scope, to compare the
    replacements with them (sympy's cache, which may hold either's answers, is cleared on the
    way in and out)."""
    previous = getattr(_thread, "on", None)
    _thread.on = False
    sympy.core.cache.clear_cache()
    try:
        yield
    finally:
        _restore(previous)
        sympy.core.cache.clear_cache()


def _restore(previous: bool | None) -> None:
    """The calling thread's choice as it was before a scope (None: it had made none)."""
    if previous is None:
        del _thread.on
    else:
        _thread.on = previous


def own_process() -> None:
    """Put the replacements in sympy's place for good, for every thread: only where
    kernelcost owns the process."""
    global _owned
    with _lock:
        if _owned:
            return
        if _holders:  # the dispatching ones are in place: they serve every thread now
            _owned = True
            return
        for patch in PATCHES:
            patch.put(patch.ours)
        _owned = True


def _hold() -> None:
    global _holders
    with _lock:
        if _holders == 0 and not _owned:
            _stored[:] = [patch.stored() for patch in PATCHES]
            for patch in PATCHES:
                patch.put(_dispatching(patch))
            sympy.core.cache.clear_cache()
            free_symbol_sets.forget()
        _holders += 1


def _release() -> None:
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0 and not _owned:
            for patch, stored in zip(reversed(PATCHES), reversed(_stored), strict=True):
                patch.restore(stored)
            _stored.clear()
            sympy.core.cache.clear_cache()
            free_symbol_sets.forget()
