"""A first start that never breaks: the compiled kernels' cache after Ctrl-C and after damage.

A fresh copy of the package (no cache, as after an install) prepares its kernels in real
subprocesses, as a node's first start does: one is interrupted with SIGINT while compiling, one
file of what it left is cut short, and the next start must say what it does, rebuild and finish;
the start after that loads the cache; a cache file damaged later is rebuilt too. Two full compiles
(about 40 s each on an idle 2-core machine). The centre of mass's kernels (a set of their own)
are rebuilt after damage and after their source changed.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# SIGINT raises KeyboardInterrupt as at a terminal's Ctrl-C, even where this test runs with SIGINT
# ignored (a background job of a shell), which the child would inherit.
PREPARE = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from ik_solvers.solvers import warm_up; warm_up()"
)
COMPILE_TIMEOUT = 900.0  # [s] a full compile on a loaded 2-core machine, generous


@pytest.fixture
def fresh_install(tmp_path: Path) -> Path:
    """A copy of the package's sources without any cache, importable from the returned folder."""
    shutil.copytree(
        REPO_ROOT / "ik_solvers", tmp_path / "ik_solvers", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path


PREPARE_COM = "from ik_solvers.whole_body import com_kernel; com_kernel.prepare()"


def start(root: Path, code: str = PREPARE) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.Popen(
        [sys.executable, "-c", code],
        cwd=root,  # `python -c` imports from the working directory first: not the repository's copy
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(root: Path, code: str = PREPARE) -> str:
    """Start a preparation, wait for it; assert it succeeded; return what it printed."""
    process = start(root, code)
    output, _ = process.communicate(timeout=COMPILE_TIMEOUT)
    assert process.returncode == 0, output
    return output


def cache_files(root: Path, pattern: str) -> list[Path]:
    return sorted(root.glob(f"ik_solvers/solvers/numeric/**/__pycache__/{pattern}"))


def marker(root: Path) -> Path:
    """The numeric kernels' completion marker (:mod:`ik_solvers.compiled.cache`)."""
    return root / "ik_solvers/solvers/numeric/__pycache__/kernels-complete.json"


def interrupt_while_compiling(root: Path, attempts: int = 3) -> None:
    """Start a preparation and SIGINT it mid-compile: once its first kernel is in the cache, before
    the completion marker is written. On a loaded machine the signal can land after the compile
    has finished (a CI run: the marker was written before the KeyboardInterrupt); then the cache is
    cleared and the start tried again, up to ``attempts`` times."""
    for _ in range(attempts):
        process = start(root)
        deadline = time.monotonic() + COMPILE_TIMEOUT
        while not cache_files(root, "*.nbi") and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        process.send_signal(signal.SIGINT)
        output, _ = process.communicate(timeout=COMPILE_TIMEOUT)
        assert "KeyboardInterrupt" in output, (
            f"not interrupted while compiling (exit {process.returncode}):\n{output}"
        )
        if not marker(root).exists():
            return
        for folder in root.glob("ik_solvers/**/__pycache__"):
            shutil.rmtree(folder)
    pytest.fail(f"the SIGINT landed after the compile had finished in {attempts} attempts")


def test_interrupted_or_damaged_cache_is_rebuilt_and_said_so(fresh_install):
    interrupt_while_compiling(fresh_install)
    partial = cache_files(fresh_install, "*.nbc")
    assert partial, "the interrupted compile left no cache file"
    partial[-1].write_bytes(partial[-1].read_bytes()[:100])  # and one file cut short

    output = finish(fresh_install)
    assert "removing a partial or stale kernel cache" in output, output
    assert "compiling the Jacobian solver's kernels (about 40 s" in output, output
    assert "kernels compiled in" in output, output

    assert "compiling" not in finish(fresh_install)  # the next start loads the complete cache

    (run_rounds,) = cache_files(fresh_install, "attempts.run_rounds-*.nbc")
    run_rounds.write_bytes(run_rounds.read_bytes()[:100])  # damaged after it was complete
    output = finish(fresh_install)
    assert "the kernel cache does not load" in output and "kernels compiled in" in output, output
    assert "compiling" not in finish(fresh_install)


def test_the_centre_of_mass_kernels_are_kept_whole_too(fresh_install):
    output = finish(fresh_install, PREPARE_COM)
    assert "compiling the centre of mass's kernels" in output and "kernels compiled in" in output, output
    assert "compiling" not in finish(fresh_install, PREPARE_COM)

    cached = sorted(fresh_install.glob("ik_solvers/whole_body/__pycache__/com_kernel.com_jacobian-*.nbc"))
    assert cached, "no cache file of com_jacobian"
    cached[0].write_bytes(cached[0].read_bytes()[:100])  # damaged after it was complete
    output = finish(fresh_install, PREPARE_COM)
    assert "the kernel cache does not load" in output and "kernels compiled in" in output, output

    source = fresh_install / "ik_solvers/whole_body/com_kernel.py"
    source.write_text(source.read_text() + "\n")  # an update in place: the cache is stale
    output = finish(fresh_install, PREPARE_COM)
    assert "removing a partial or stale kernel cache" in output and "kernels compiled in" in output, output
    assert "compiling" not in finish(fresh_install, PREPARE_COM)
