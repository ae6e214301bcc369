"""`colcon build` of both packages from a ROS 2 workspace, as docs/setup.md tells ROS 2 users.

Runs only where the venv made by `make setup` provides colcon and the ament CMake packages (a
ROS 2 install builds these packages with its own colcon instead). The workspace is the session's
``colcon_workspace`` (conftest.py), which test_launch_run.py runs the launch files from.
"""

from __future__ import annotations

import sys

import pytest

pytestmark = pytest.mark.colcon


def test_colcon_builds_both_packages_from_a_workspace(colcon_workspace):
    assert colcon_workspace.returncode == 0, colcon_workspace.output
    assert "2 packages finished" in colcon_workspace.output, colcon_workspace.output
    install = colcon_workspace.install
    assert (install / "ik_solvers" / "lib" / "ik_solvers" / "ik_demo").is_file()
    assert (install / "ik_solvers" / "share" / "ik_solvers" / "urdf" / "humanoid.urdf").is_file()
    assert (
        install / "ik_solvers" / "share" / "ament_index" / "resource_index" / "packages" / "ik_solvers"
    ).is_file()
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    generated = install / "ik_solvers_interfaces" / "lib" / python / "site-packages" / "ik_solvers_interfaces"
    assert (generated / "srv" / "_solve_ik.py").is_file()
    assert (generated / "srv" / "_solve_ik_path.py").is_file()


def test_colcon_install_compiles_the_kernels(colcon_workspace):
    """So that a node's first start loads them (about 0.5 s) instead of compiling (about 40 s)."""
    assert colcon_workspace.returncode == 0, colcon_workspace.output
    python = f"python{sys.version_info.major}.{sys.version_info.minor}"
    package = colcon_workspace.install / "ik_solvers" / "lib" / python / "site-packages" / "ik_solvers"
    assert (package / "solvers" / "numeric" / "__pycache__" / "kernels-complete.json").is_file()
    assert (package / "whole_body" / "__pycache__" / "kernels-complete.json").is_file()  # the CoM's
