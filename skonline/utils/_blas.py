"""One BLAS thread for the many small BLAS/LAPACK calls of the sketches and the learners."""

from __future__ import annotations

import contextlib
import math
import threading
from collections.abc import Iterator

from threadpoolctl import ThreadpoolController

__all__ = ["single_blas_thread"]


#: Below this many entries in a call's rows (rows x features) the limit is not set.
#: Entering and leaving it costs 10-20 µs, about what one-row calls learn a row in,
#: and their BLAS calls are too small for OpenBLAS to start threads anyway. Measured
#: (RFD-SON, interleaved rounds, median ratio, a loaded 2-core machine): without the
#: limit a call is 0.80-0.92 x the time with it for one row at d = 20 to 5000, and
#: within noise of it (0.96-1.07 x) for 10 to 100 rows at d = 100 to 1000.
SMALL_WORK = 50_000
_CONTROLLER: ThreadpoolController | None = None
_DEPTH = 0  # open contexts of the main thread (they nest)


@contextlib.contextmanager
def single_blas_thread(work: float = math.inf) -> Iterator[None]:
    """Context manager limiting BLAS to one thread (a few µs to enter).

    ``work``: the number of entries of the rows the block processes (rows x
    features); below :data:`SMALL_WORK` nothing is limited.

    The sketches make many small BLAS/LAPACK calls (a ``2m x 2m`` eigensolver,
    ``2m x d`` products). Measured on 2 cores: one thread is 1.2x (d = 1000)
    to 2x (SVD route) faster than OpenBLAS's default, and does not collapse
    when other processes load the machine.

    The BLAS thread limit is process-wide, and OpenBLAS does not let a
    thread raise a limit that another thread lowered. So only the main thread
    sets and restores the limit (the outermost of nested contexts); in any
    other thread the context changes nothing. Threads training at once thus
    never leave the process on one BLAS thread.
    """
    global _CONTROLLER, _DEPTH
    if work < SMALL_WORK or threading.current_thread() is not threading.main_thread():
        yield
        return
    limiter = None
    if _DEPTH == 0:
        if _CONTROLLER is None:
            _CONTROLLER = ThreadpoolController()
        limiter = _CONTROLLER.limit(limits=1, user_api="blas")
    _DEPTH += 1
    try:
        yield
    finally:
        _DEPTH -= 1
        if limiter is not None:
            limiter.restore_original_limits()
