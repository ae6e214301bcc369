"""The leg's batch on the cores (``kernels/leg_batch.py``: chunks handed to numba's threads as
they come free, each thread in its own scratch) gives the one-thread batch's answers bit for bit.

A scratch shared between threads would mix rows' hip parts and bounds and change answers; chunks
taken out of order must still land in their own rows.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_continuity import model_of

from ik_solvers import make_solver
from ik_solvers.solvers.geometric import leg


@pytest.mark.parametrize("robot", ["packaged", "tight limits"])
@pytest.mark.parametrize("kind", ["none", "near", "far"])
def test_batch_over_the_cores_gives_the_one_thread_answers(monkeypatch, robot, kind):
    chain = model_of(robot).chain("base_link", "l_sole")
    solver = make_solver("geometric", chain)
    rng = np.random.default_rng(5)
    q = chain.random_configurations(1301, rng)  # five chunks and a part of one
    targets = chain.fk(q)
    targets[::7, :3, 3] *= 1.5  # out of reach
    targets[11, 1, 2] = np.inf  # a malformed row fails alone
    seeds = {"near": np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper)}
    seeds["far"] = chain.random_configurations(len(q), rng)
    assert len(q) >= leg.PARALLEL_ROWS
    parallel = solver.solve_batch(targets, seeds=seeds.get(kind))
    monkeypatch.setattr(leg, "PARALLEL_ROWS", len(q) + 1)
    serial = solver.solve_batch(targets, seeds=seeds.get(kind))
    for field in ("success", "q", "position_error", "orientation_error", "continuous"):
        assert np.array_equal(getattr(parallel, field), getattr(serial, field), equal_nan=True), field
    assert parallel.messages == serial.messages
    assert 0.5 < parallel.success.mean() < 1.0  # solved rows and failed ones both compared
