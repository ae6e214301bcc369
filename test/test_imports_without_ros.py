"""The library imports without ROS: no rclpy and no *_msgs module is loaded by the packages that
must stay ROS-free (only the feature folders node, sim, hardware, walk and demo may import ROS)."""

from __future__ import annotations

import subprocess
import sys

import pytest

# Every ROS-free package, imported with all its modules; extend when one is added.
ROS_FREE_PACKAGES = ["ik_solvers.solvers", "ik_solvers.limbs", "ik_solvers.control", "ik_solvers.whole_body"]
# The top-level package: itself and its own modules, not the ROS feature folders below it.
TOP_LEVEL = "ik_solvers"

PROBE = """
import importlib, pkgutil, sys
package = importlib.import_module(sys.argv[1])
recursive = sys.argv[2] == "all"
if not hasattr(package, "__path__"):
    found = ()
elif recursive:
    found = pkgutil.walk_packages(package.__path__, package.__name__ + ".")
else:
    found = (info for info in pkgutil.iter_modules(package.__path__, package.__name__ + ".") if not info.ispkg)
names = [info.name for info in found]
for name in names:
    importlib.import_module(name)
print(len(names))
print(*sorted(sys.modules), sep="\\n")
"""


def loaded_modules(package: str, recursive: bool) -> tuple[int, list[str]]:
    """How many modules the probe imported below ``package``, and every module loaded then."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE, package, "all" if recursive else "own"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    count, *modules = result.stdout.split()
    return int(count), modules


def ros_modules(modules: list[str]) -> list[str]:
    return [m for m in modules if m.split(".")[0] == "rclpy" or m.split(".")[0].endswith("_msgs")]


@pytest.mark.parametrize("package", ROS_FREE_PACKAGES)
def test_a_ros_free_package_and_all_its_modules_load_no_ros(package):
    count, modules = loaded_modules(package, recursive=True)
    assert count > 0 and package in modules
    assert not ros_modules(modules), f"importing {package} loaded {ros_modules(modules)}"


def test_the_top_level_package_and_its_own_modules_load_no_ros():
    count, modules = loaded_modules(TOP_LEVEL, recursive=False)
    assert count > 0 and "ik_solvers.chain" in modules
    assert not ros_modules(modules), f"importing {TOP_LEVEL} loaded {ros_modules(modules)}"


def test_the_check_sees_ros_when_it_is_loaded():
    """The probe can fail: the node package does load rclpy and message modules."""
    _, modules = loaded_modules("ik_solvers.node.ik_node", recursive=False)
    assert "rclpy" in modules and ros_modules(modules)
