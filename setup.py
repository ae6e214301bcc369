"""Build script of the ament_python package ik_solvers (colcon and pip)."""

import os
import subprocess
import sys
from glob import glob

from setuptools import find_packages, setup
from setuptools.command.install import install

PACKAGE_NAME = "ik_solvers"
SHARE = f"share/{PACKAGE_NAME}"


def share_files(folder: str) -> list[tuple[str, list[str]]]:
    """Data-file entries installing every file under ``folder`` into share/.

    Globbing at build time means files added later are installed without
    editing this script. Sub-folders keep their relative layout.
    """
    entries: dict[str, list[str]] = {}
    for path in sorted(glob(f"{folder}/**/*", recursive=True)):
        if not os.path.isfile(path):
            continue
        parent = path.rsplit("/", 1)[0]
        entries.setdefault(f"{SHARE}/{parent}", []).append(path)
    return sorted(entries.items())


class InstallWithKernels(install):
    """``setup.py install`` (what ``colcon build`` runs for an ament_python package), then the
    numba kernels compiled into the installed package's cache, so that a node's first start loads
    them (about 0.5 s) instead of compiling them (about 40 s). Skipped when installing into a
    staging root (pip building a wheel); where it fails, the first start compiles them, saying so.
    """

    def run(self):
        super().run()
        if self.root is None and not self.dry_run:
            compile_kernels(self.install_lib)


def compile_kernels(install_lib: str) -> None:
    """Prepare the kernels of the package installed in ``install_lib`` (a site-packages folder)."""
    paths = [install_lib, os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    command = [sys.executable, "-m", "ik_solvers.compiled"]
    if subprocess.run(command, cwd=install_lib, env=env, check=False).returncode != 0:
        print("warning: kernels not compiled at install; the first start compiles them", file=sys.stderr)


setup(
    name=PACKAGE_NAME,
    version="0.1.0",
    packages=find_packages(include=[PACKAGE_NAME, f"{PACKAGE_NAME}.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE_NAME}"]),
        (SHARE, ["package.xml"]),
        *share_files("launch"),
        *share_files("urdf"),
        *share_files("config"),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    maintainer="ik_solvers maintainers",
    maintainer_email="maintainers@ik-solvers.invalid",
    description="Inverse kinematics for a humanoid's legs and arms, with a ROS 2 node.",
    license="Apache-2.0",
    cmdclass={"install": InstallWithKernels},
    entry_points={
        "console_scripts": [
            "ik_demo = ik_solvers.console_scripts:ik_demo",
            "ik_node = ik_solvers.console_scripts:ik_node",
            "servo_bridge = ik_solvers.console_scripts:servo_bridge",
            "servo_bus_emulator = ik_solvers.console_scripts:servo_bus_emulator",
            "servo_ros2_control = ik_solvers.console_scripts:servo_ros2_control",
            "sim_node = ik_solvers.console_scripts:sim_node",
            "walk_node = ik_solvers.console_scripts:walk_node",
        ],
    },
)
