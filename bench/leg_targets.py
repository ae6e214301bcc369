"""The leg benchmarks' targets and seeds (``bench/leg_batch.py``, ``bench/leg_seeds.py``).

On the packaged humanoid's ``l_sole``: 200 targets (FK of random in-limit configurations)
repeated to ``rows``, and per kind of seed the (rows, 6) seeds [rad]: none, the answer itself,
near it (±0.1 rad normal, clipped to the limits, as ``bench/quick.py``) and at random.
"""

from __future__ import annotations

import numpy as np

import ik_solvers as ik
from ik_solvers.resources import package_share_path

DISTINCT = 200  # distinct targets, repeated to the rows asked for


def leg_targets(rows: int) -> tuple[object, np.ndarray, dict[str, np.ndarray | None]]:
    """(the geometric solver, (rows, 4, 4) targets, seeds by kind: "none", "self", "near", "random")."""
    model = ik.RobotModel.from_urdf_file(str(package_share_path("urdf", "humanoid.urdf")))
    chain = model.chain("base_link", "l_sole")
    rng = np.random.default_rng(1)
    q = np.resize(chain.random_configurations(DISTINCT, rng), (rows, 6))
    seeds = {
        "none": None,
        "self": q,
        "near": np.clip(q + rng.normal(0.0, 0.1, q.shape), chain.lower, chain.upper),
        "random": chain.random_configurations(rows, rng),
    }
    return ik.make_solver("geometric", chain), chain.fk(q), seeds
