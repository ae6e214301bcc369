"""ROS domains held between runs on one machine (ik_solvers.node.domains): a demo started by hand and
a test session never share one.

Real processes and real ports: ``ik_demo`` started as a user starts it (its own ``ROS_DOMAIN_ID``,
not the session's, and not told that a parent holds it), and this session's reservation as
test/conftest.py makes it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import pytest

from ik_solvers.demo.processes import console_script
from ik_solvers.node import domains

HAND_DOMAINS = range(201, 233)  # above the test sessions' and the benchmarks': a user's choice
START_TIMEOUT = 60.0  # [s] ik_demo's imports on a loaded machine


@pytest.fixture
def free_domain() -> int:
    """A domain id of HAND_DOMAINS that nobody holds right now."""
    with contextlib.ExitStack() as probe:
        return domains.reserve(HAND_DOMAINS, probe)


def by_hand(domain: int, tmp_path, *arguments: str) -> subprocess.Popen:
    """``ik_demo *arguments`` on ``domain`` as started from a shell (in a session of its own, so
    that it and any child it started can be stopped together)."""
    env = {**os.environ, "ROS_DOMAIN_ID": str(domain)}
    env.pop(domains.HELD_VARIABLE, None)
    log = open(tmp_path / "ik_demo.log", "wb")  # noqa: SIM115 (closed with the process, below)
    argv = [console_script("ik_demo"), *arguments, "--output", str(tmp_path / "out")]
    return subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stopped(process: subprocess.Popen) -> None:
    """Ctrl-C to ``process``'s session, SIGKILL 10 s later if anything of it still runs."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGINT)
    try:
        process.wait(timeout=10.0)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        process.stdout and process.stdout.close()


def test_a_demo_refuses_a_domain_that_another_run_holds(free_domain, tmp_path):
    with contextlib.ExitStack() as session:  # another run (a test session) holds the domain
        assert domains.reserve([free_domain], session) == free_domain
        process = by_hand(free_domain, tmp_path, "--quick")
        try:
            code = process.wait(timeout=START_TIMEOUT)
        finally:
            stopped(process)
    printed = (tmp_path / "ik_demo.log").read_text()
    assert code == 1, printed
    assert (
        f"ik_demo: cannot start: ROS domain {free_domain} (ROS_DOMAIN_ID) is in use by another run" in printed
    )
    assert "run on a free domain, e.g. ROS_DOMAIN_ID=" in printed and "Traceback" not in printed, printed
    assert not (tmp_path / "out" / "logs").exists(), "no child should have started"


def test_a_test_session_passes_over_the_domain_of_a_running_demo(free_domain, tmp_path):
    process = by_hand(free_domain, tmp_path, "--quick")
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while (holder := domains.hold(free_domain)) is not None:  # not held yet: let go, look again
            holder.close()
            assert process.poll() is None, (tmp_path / "ik_demo.log").read_text()
            assert time.monotonic() < deadline, "ik_demo never held its domain"
            time.sleep(0.02)
        with contextlib.ExitStack() as session:
            assert domains.reserve([free_domain, *HAND_DOMAINS], session) != free_domain
    finally:
        stopped(process)
    with contextlib.ExitStack() as session:  # let go at its end
        assert domains.reserve([free_domain], session) == free_domain
