"""The compiled kernels' on-disk cache, kept whole: a start-up loads it, or rebuilds it, never crashes.

numba caches each compiled function on its own (an index ``.nbi`` and data ``.nbc`` in the
``__pycache__`` next to its source) as soon as that function is compiled, and keys it on its own
source file only. So a first start interrupted by Ctrl-C during the ~40 s compile leaves some
functions cached and their callers not; a file can be cut short (disk full, a killed copy); an
update in place leaves callers' caches stale. Loading such a cache has crashed starts with numba's
errors ("no compiled object yet for <Library 'run_rounds'>", "pickle data was truncated").

Here each set of kernels (a :class:`KernelSet`: the Jacobian solver's, the centre of mass's, the
closed forms') is prepared as a unit; this module knows none of them (each set's module declares
it). A marker written after a complete compile records what it
was made from (numba, Python, CPU, and each kernel source's size and time stamp):

- the marker matches: the kernels load from the cache (about 0.5 s);
- no marker, or another one: every cache file of the kernels is removed (a partial or stale cache
  is reported as such), the kernels are compiled, saying so and how long it took, and the marker
  is written;
- loading or compiling fails all the same (a file damaged after the marker was written): the cache
  is removed, the reason logged, and the kernels are compiled once more.

Processes that start together take turns (a file lock): the second loads what the first compiled.
Messages go to the ``ik_solvers`` logger (the ik_node forwards it to its ROS log). Run
``python -m ik_solvers.compiled`` to prepare every set ahead of a first start (``make setup``
and the colcon install do).
"""

from __future__ import annotations

import fcntl
import json
import logging
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numba
from llvmlite import binding

LOG = logging.getLogger("ik_solvers.kernels")
PACKAGE = Path(__file__).resolve().parents[1]  # the ik_solvers folder


@dataclass(frozen=True)
class KernelSet:
    """Compiled kernels that are cached, checked and rebuilt together.

    Attributes:
        name: what they are, for the log ("the Jacobian solver's kernels").
        duration: how long a first compile takes, for the log.
        source_folders: the folders of their sources; each one's ``__pycache__`` holds their cache,
            the first one's also the marker and the lock.
        compile: compiles every kernel of the set (or loads it from numba's cache).
        pattern: which files of the folders are their sources (numba names a cache file after
            its source: ``<source stem>.<function>-<line>.py311.nbi``).
    """

    name: str
    duration: str
    source_folders: tuple[Path, ...]
    compile: Callable[[], None]
    pattern: str = "*.py"

    def sources(self) -> list[Path]:
        return [path for folder in self.source_folders for path in sorted(folder.glob(self.pattern))]

    @property
    def cache_folders(self) -> tuple[Path, ...]:
        return tuple(folder / "__pycache__" for folder in self.source_folders)

    @property
    def marker(self) -> Path:
        return self.cache_folders[0] / "kernels-complete.json"


def prepare(kernels: KernelSet) -> None:
    """Compile ``kernels`` (or load them from the cache) safely: see the module docstring.

    Where the cache folder cannot be written (a read-only install), numba compiles in memory in
    every process (:mod:`.jit`) and this only says so and times it.
    """
    try:
        kernels.cache_folders[0].mkdir(exist_ok=True)
        lock = open(kernels.cache_folders[0] / "kernels.lock", "a")  # noqa: SIM115 - held below
    except OSError:
        _compile(kernels, f"no writable cache folder: compiling {kernels.name} in memory")
        return
    with lock:
        _wait_for(lock, kernels)
        _prepare_locked(kernels)


def _wait_for(lock, kernels: KernelSet) -> None:
    """Take the cache's file lock (released when ``lock`` closes); say so when another process
    holds it (it is loading or compiling the kernels)."""
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        LOG.warning(f"waiting for another process that is preparing {kernels.name}")
        fcntl.flock(lock, fcntl.LOCK_EX)


def _prepare_locked(kernels: KernelSet) -> None:
    expected = fingerprint(kernels)
    if _marker(kernels) == expected:
        try:
            kernels.compile()
            return
        except Exception as error:  # noqa: BLE001 - numba's cache raises many types; all mean "rebuild"
            LOG.warning(f"the kernel cache does not load ({type(error).__name__}: {error}); rebuilding it")
            _remove_cache(kernels)
    else:
        stale = _cache_files(kernels)
        if stale:
            LOG.warning(
                f"removing a partial or stale kernel cache ({len(stale)} files in "
                f"{kernels.cache_folders[0].parent})"
            )
            _remove_cache(kernels)
    _compile(kernels, f"compiling {kernels.name} ({kernels.duration})")
    kernels.marker.write_text(json.dumps(expected, indent=1))


def _compile(kernels: KernelSet, announcement: str) -> None:
    LOG.warning(announcement)
    start = time.perf_counter()
    kernels.compile()
    LOG.warning(f"kernels compiled in {time.perf_counter() - start:.1f} s")


def fingerprint(kernels: KernelSet) -> dict[str, object]:
    """What a complete cache was made from: numba, Python, the CPU, each kernel source's stamp."""
    sources = {}
    for path in kernels.sources():
        stat = path.stat()
        sources[str(path.relative_to(PACKAGE))] = [stat.st_mtime_ns, stat.st_size]
    return {
        "numba": numba.__version__,
        "python": sys.version,
        "cpu": binding.get_host_cpu_name(),
        "sources": sources,
    }


def _marker(kernels: KernelSet) -> dict | None:
    try:
        return json.loads(kernels.marker.read_text())
    except (OSError, ValueError):
        return None


def _cache_files(kernels: KernelSet) -> list[Path]:
    return [
        path
        for source in kernels.sources()
        for suffix in ("nbi", "nbc")
        for path in (source.parent / "__pycache__").glob(f"{source.stem}.*.{suffix}")
    ]


def _remove_cache(kernels: KernelSet) -> None:
    kernels.marker.unlink(missing_ok=True)
    for path in _cache_files(kernels):
        path.unlink(missing_ok=True)
