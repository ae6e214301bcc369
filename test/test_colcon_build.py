"""`colcon build` of both packages from a ROS 2 workspace, as the README tells ROS 2 users.

Runs only where the venv made by `make setup` provides colcon and the ament CMake
packages (a ROS 2 install builds these packages with its own colcon instead).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
VENV_PREFIX = Path(sys.prefix)
NOT_COPIED = shutil.ignore_patterns(
    ".git", ".venv", "build", "install", "log", "*.egg-info", "__pycache__", ".*cache"
)

COLCON_READY = (
    shutil.which("colcon", path=str(VENV_PREFIX / "bin")) is not None
    and (VENV_PREFIX / "share" / "ament_cmake").is_dir()
)
NOT_READY = "needs colcon and ament_cmake in this Python's prefix (make setup)"

pytestmark = pytest.mark.colcon


@pytest.fixture(autouse=True)
def _require_colcon() -> None:
    """Skip without colcon in the venv; in CI (CI=true) that is a failure, not a skip."""
    if COLCON_READY:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(NOT_READY)
    pytest.skip(NOT_READY)


def _colcon_env() -> dict[str, str]:
    """The environment of a ROS 2 shell whose underlay is the venv prefix."""
    return {
        **os.environ,
        "PATH": f"{VENV_PREFIX / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "AMENT_PREFIX_PATH": str(VENV_PREFIX),
        "CMAKE_PREFIX_PATH": str(VENV_PREFIX),
    }


def test_colcon_builds_both_packages_from_a_workspace(tmp_path: Path):
    workspace = tmp_path / "ws"
    shutil.copytree(REPO_ROOT, workspace / "src" / "ik_solvers", ignore=NOT_COPIED)
    command = [
        "colcon",
        "build",
        "--base-paths",
        "src",
        "src/ik_solvers/ik_solvers_interfaces",
    ]

    result = subprocess.run(
        command,
        check=False,
        cwd=workspace,
        env=_colcon_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )

    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    assert "2 packages finished" in result.stdout, result.stdout
    install = workspace / "install"
    assert (install / "ik_solvers" / "lib" / "ik_solvers" / "ik_demo").is_file()
    assert (install / "ik_solvers" / "share" / "ik_solvers" / "urdf" / "humanoid.urdf").is_file()
    assert (
        install / "ik_solvers" / "share" / "ament_index" / "resource_index" / "packages" / "ik_solvers"
    ).is_file()
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    generated = install / "ik_solvers_interfaces" / "lib" / python / "site-packages" / "ik_solvers_interfaces"
    assert (generated / "srv" / "_solve_ik.py").is_file()
