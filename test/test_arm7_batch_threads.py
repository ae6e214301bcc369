"""The 7-DoF arm's batch split over the cores (``arm7_solve.solve_columns_parallel``) gives the
one-thread batch's answers bit for bit, and survives Python threads calling it at once.

Each thread of the batch works in its own scratch: a shared one would mix rows' constructions
and change answers. numba's workqueue threading layer (its default where neither TBB nor OpenMP
is installed) aborts the process when two Python threads enter a parallel kernel at once; the
solver holds ``PARALLEL_LOCK`` around the call. The second test runs that layer in a child
process (the layer is chosen once per process) and fails if it aborts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from test_arm7 import elbow_points
from test_continuity import model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric.arm7 import solver as arm7


@pytest.mark.parametrize("kind", ["none", "near", "far", "poles"])
def test_batch_over_the_cores_gives_the_one_thread_answers(monkeypatch, kind):
    chain = model_of("packaged").chain("base_link", "l_wrist")
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(3)
    q = chain.random_configurations(601, rng)  # an odd count: unequal parts
    targets = chain.fk(q)
    targets[::9, :3, 3] *= 1.8  # out of reach
    targets[5, 0, 0] = np.nan  # a malformed row fails alone
    seeds = {"near": np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper)}
    seeds["far"] = chain.random_configurations(len(q), rng)
    poles = elbow_points("packaged", "l_wrist", q) if kind == "poles" else None
    parallel = solver.solve_batch(targets, seeds=seeds.get(kind), poles=poles)
    monkeypatch.setattr(arm7, "PARALLEL_ROWS", len(q) + 1)
    serial = solver.solve_batch(targets, seeds=seeds.get(kind), poles=poles)
    for field in ("success", "q", "position_error", "orientation_error", "continuous"):
        assert np.array_equal(getattr(parallel, field), getattr(serial, field), equal_nan=True), field
    assert parallel.messages == serial.messages
    assert 0.5 < parallel.success.mean() < 1.0  # solved rows and failed ones both compared


CONCURRENT = textwrap.dedent(
    """
    import threading, numba, numpy as np
    from ik_solvers import RobotModel, make_solver
    from ik_solvers.resources import package_share_path
    chain = RobotModel.from_urdf_file(package_share_path("urdf", "humanoid.urdf")).chain("base_link", "l_wrist")
    solvers = [make_solver("geometric", chain) for _ in range(2)]
    q = chain.random_configurations(500, np.random.default_rng(4))
    targets = chain.fk(q)
    expected = solvers[0].solve_batch(targets, seeds=q).q
    differing = []
    def run(solver):
        for _ in range(10):
            differing.append(not np.array_equal(solver.solve_batch(targets, seeds=q).q, expected))
    threads = [threading.Thread(target=run, args=(solver,)) for solver in solvers]
    [thread.start() for thread in threads]
    [thread.join() for thread in threads]
    print(numba.threading_layer(), sum(differing), len(differing))
    """
)


def test_two_python_threads_batch_at_once_on_the_workqueue_layer():
    env = {**os.environ, "NUMBA_THREADING_LAYER": "workqueue"}
    done = subprocess.run(
        [sys.executable, "-c", CONCURRENT], check=False, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["workqueue", "0", "20"]
