"""MuJoCo's warnings are logged, and nothing is written into the working directory: MuJoCo's own
default appends them to ``MUJOCO_LOG.TXT`` there (one was committed at the repository root)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

# A real MuJoCo model driven into its bad-acceleration warning (a torque of 1e20 N m on a hinge).
UNSTABLE_STEP = """
import mujoco
import ik_solvers.sim.mujoco_robot  # what the simulator's users import

model = mujoco.MjModel.from_xml_string(
    "<mujoco><worldbody><body><joint type='hinge'/><geom size='0.1' mass='1'/></body></worldbody></mujoco>"
)
data = mujoco.MjData(model)
data.qfrc_applied[0] = 1e20
mujoco.mj_step(model, data)
print(data.warning[mujoco.mjtWarning.mjWARN_BADQACC].number)
"""


def test_a_mujoco_warning_is_logged_and_writes_no_file_in_the_working_directory(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", UNSTABLE_STEP],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["1"], "the step did not raise MuJoCo's bad-acceleration warning"
    assert "MuJoCo: Nan, Inf or huge value in QACC" in result.stderr
    assert list(tmp_path.iterdir()) == [], "MuJoCo wrote into the working directory"
