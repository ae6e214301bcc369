"""The compiled kernels' on-disk cache, kept whole: a start-up loads it, or rebuilds it, never crashes.

numba caches each compiled function on its own (an index ``.nbi`` and data ``.nbc`` in the
``__pycache__`` next to its source) as soon as that function is compiled, and keys it on its own
source file only. So a first start interrupted by Ctrl-C during the ~40 s compile leaves some
functions cached and their callers not; a file can be cut short (disk full, a killed copy); an
update in place leaves callers' caches stale. Loading such a cache has crashed starts with numba's
errors ("no compiled object yet for <Library 'run_rounds'>", "pickle data was truncated").

Here the kernels are prepared as a unit. A marker written after a complete compile records what it
was made from (numba, Python, CPU, and each kernel source's size and time stamp):

- the marker matches: the kernels load from the cache (about 0.5 s);
- no marker, or another one: every cache file of the kernels is removed (a partial or stale cache
  is reported as such), the kernels are compiled, saying so and how long it took, and the marker
  is written;
- loading or compiling fails all the same (a file damaged after the marker was written): the cache
  is removed, the reason logged, and the kernels are compiled once more.

Processes that start together take turns (a file lock): the second loads what the first compiled.
Messages go to the ``ik_solvers`` logger (the ik_node forwards it to its ROS log). Run
``python -m ik_solvers.solvers.numeric.kernel_cache`` to prepare the kernels ahead of a first
start (``make setup`` and the colcon install do).
"""

from __future__ import annotations

import fcntl
import json
import logging
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numba
from llvmlite import binding

LOG = logging.getLogger("ik_solvers.kernels")
NUMERIC = Path(__file__).resolve().parent
SOURCE_FOLDERS = (NUMERIC, NUMERIC / "kernels")  # where the cached kernels' sources live
CACHE_FOLDERS = tuple(folder / "__pycache__" for folder in SOURCE_FOLDERS)
MARKER = CACHE_FOLDERS[0] / "kernels-complete.json"
LOCK = CACHE_FOLDERS[0] / "kernels.lock"
FIRST_COMPILE = "about 40 s on a 2-core machine, once; later starts load them in about 0.5 s"


def prepare(compile_kernels: Callable[[], None]) -> None:
    """Run ``compile_kernels`` (which compiles every kernel, or loads it from the cache) safely.

    Where the cache folder cannot be written (a read-only install), numba compiles in memory in
    every process (:mod:`.jit`) and this only says so and times it.
    """
    try:
        CACHE_FOLDERS[0].mkdir(exist_ok=True)
        lock = open(LOCK, "a")  # noqa: SIM115 - held for the whole preparation below
    except OSError:
        _compile(compile_kernels, "no writable cache folder: compiling the kernels in memory")
        return
    with lock:
        _wait_for(lock)
        _prepare_locked(compile_kernels)


def _wait_for(lock) -> None:
    """Take the cache's file lock (released when ``lock`` closes); say so when another process
    holds it (it is compiling the kernels)."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        LOG.warning("waiting for another process that is compiling the kernels")
        fcntl.flock(lock, fcntl.LOCK_EX)


def _prepare_locked(compile_kernels: Callable[[], None]) -> None:
    expected = fingerprint()
    if _marker() == expected:
        try:
            compile_kernels()
            return
        except Exception as error:  # noqa: BLE001 - numba's cache raises many types; all mean "rebuild"
            LOG.warning(f"the kernel cache does not load ({type(error).__name__}: {error}); rebuilding it")
            _remove_cache()
    else:
        stale = _cache_files()
        if stale:
            LOG.warning(
                f"removing a partial or stale kernel cache ({len(stale)} files in {CACHE_FOLDERS[0].parent})"
            )
            _remove_cache()
    _compile(compile_kernels, f"compiling the Jacobian solver's kernels ({FIRST_COMPILE})")
    MARKER.write_text(json.dumps(expected, indent=1))


def _compile(compile_kernels: Callable[[], None], announcement: str) -> None:
    LOG.warning(announcement)
    start = time.perf_counter()
    compile_kernels()
    LOG.warning(f"kernels compiled in {time.perf_counter() - start:.1f} s")


def fingerprint() -> dict[str, object]:
    """What a complete cache was made from: numba, Python, the CPU, each kernel source's stamp."""
    sources = {}
    for folder in SOURCE_FOLDERS:
        for path in sorted(folder.glob("*.py")):
            stat = path.stat()
            sources[str(path.relative_to(NUMERIC))] = [stat.st_mtime_ns, stat.st_size]
    return {
        "numba": numba.__version__,
        "python": sys.version,
        "cpu": binding.get_host_cpu_name(),
        "sources": sources,
    }


def _marker() -> dict | None:
    try:
        return json.loads(MARKER.read_text())
    except (OSError, ValueError):
        return None


def _cache_files() -> list[Path]:
    return [
        path for folder in CACHE_FOLDERS for pattern in ("*.nbi", "*.nbc") for path in folder.glob(pattern)
    ]


def _remove_cache() -> None:
    MARKER.unlink(missing_ok=True)
    for path in _cache_files():
        path.unlink(missing_ok=True)


def main() -> int:
    """Prepare the kernels now (``python -m ik_solvers.solvers.numeric.kernel_cache``)."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from ik_solvers.solvers.numeric.jacobian import prepare_kernels

    prepare_kernels()
    LOG.warning("kernels ready")
    return 0


if __name__ == "__main__":
    sys.exit(main())
