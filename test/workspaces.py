"""Build helpers for the tests that run the package as a ROS 2 user would: a colcon workspace
built from a copy of the repository, and the vendored ``launch`` / ``launch_ros`` /
``composition_interfaces`` (``../shared/vendor``, test tools only) to run its launch files.

Everything runs with the colcon and ament tools of the venv that ``make setup`` made; nothing is
written outside the test's own folders and the repository's ``build/``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
VENV_PREFIX = Path(sys.prefix)
VENDOR = REPO_ROOT.parent / "shared" / "vendor"
PYTHON = f"python{sys.version_info.major}.{sys.version_info.minor}"
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv",
    ".venv-bench",
    "build",
    "install",
    "log",
    "output",
    "*.egg-info",
    "__pycache__",
    ".*cache",
)
BUILD_TIMEOUT = (
    900.0  # [s] colcon build compiles the numba kernels (about 40 s on 2 busy cores, more when loaded)
)

COLCON_READY = (
    shutil.which("colcon", path=str(VENV_PREFIX / "bin")) is not None
    and (VENV_PREFIX / "share" / "ament_cmake").is_dir()
)
COLCON_NOT_READY = "needs colcon and ament_cmake in this Python's prefix (make setup)"
VENDOR_MISSING = f"needs the vendored launch, launch_ros and composition_interfaces in {VENDOR}"


def ament_environment() -> dict[str, str]:
    """The environment of a ROS 2 shell whose underlay is the venv prefix."""
    return {
        **os.environ,
        "PATH": f"{VENV_PREFIX / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "AMENT_PREFIX_PATH": str(VENV_PREFIX),
        "CMAKE_PREFIX_PATH": str(VENV_PREFIX),
    }


@dataclass(frozen=True)
class ColconBuild:
    """A workspace built by ``colcon build``: its folder and what colcon printed."""

    workspace: Path
    returncode: int
    output: str

    @property
    def install(self) -> Path:
        return self.workspace / "install"


def colcon_build(workspace: Path) -> ColconBuild:
    """Copy the repository into ``workspace``/src and build both packages as docs/setup.md says."""
    shutil.copytree(REPO_ROOT, workspace / "src" / "ik_solvers", ignore=NOT_COPIED)
    command = ["colcon", "build", "--base-paths", "src", "src/ik_solvers/ik_solvers_interfaces"]
    build = subprocess.Popen(  # a session of its own: a timeout ends the build's grandchildren too
        command,
        cwd=workspace,
        env=ament_environment(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        stdout, stderr = build.communicate(timeout=BUILD_TIMEOUT)
    except subprocess.TimeoutExpired:  # killing colcon alone left its kernel compile running on
        os.killpg(build.pid, signal.SIGKILL)
        stdout, stderr = build.communicate()
        stderr += f"\ncolcon build: not done after {BUILD_TIMEOUT:g} s, stopped with its children"
    return ColconBuild(workspace, build.returncode, f"{' '.join(command)}\n{stdout}\n{stderr}")


def vendor_present() -> bool:
    """True where ``../shared/vendor`` holds the three packages."""
    return (
        all((VENDOR / name / "package.xml").is_file() for name in ("launch", "launch_ros"))
        and (VENDOR / "composition_interfaces" / "CMakeLists.txt").is_file()
    )


def build_composition_interfaces(prefix: Path) -> Path:
    """Build and install ``composition_interfaces`` into ``prefix`` (once: a stamp marks it done).

    About a minute on two cores. Returns ``prefix``; raises CalledProcessError with CMake's output.
    """
    stamp = prefix / ".built"
    if stamp.is_file():
        return prefix
    shutil.rmtree(prefix, ignore_errors=True)
    build = prefix / "build"
    env = ament_environment()
    configure = [
        "cmake",
        "-S",
        str(VENDOR / "composition_interfaces"),
        "-B",
        str(build),
        f"-DCMAKE_PROJECT_INCLUDE={VENDOR / 'pypi_ros_include_fix.cmake'}",
        f"-DCMAKE_INSTALL_PREFIX={prefix}",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DBUILD_TESTING=OFF",
    ]
    for command in (configure, ["cmake", "--build", str(build), "-j2"], ["cmake", "--install", str(build)]):
        subprocess.run(command, check=True, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT)
    stamp.touch()
    return prefix


def launch_environment(install: Path, vendor_prefix: Path) -> dict[str, str]:
    """Environment of a shell that sourced the workspace ``install`` and the vendor prefix.

    launch_ros finds executables and share files through the ament index, as on a ROS install;
    ``launch`` and ``launch_ros`` are pure Python and imported straight from ``../shared/vendor``.
    """
    site = f"lib/{PYTHON}/site-packages"
    env = ament_environment()
    packages = [install / "ik_solvers", install / "ik_solvers_interfaces"]
    env["AMENT_PREFIX_PATH"] = os.pathsep.join(map(str, [*packages, vendor_prefix, VENV_PREFIX]))
    python_path = [
        *(p / site for p in packages),
        VENDOR / "launch",
        VENDOR / "launch_ros",
        vendor_prefix / site,
    ]
    env["PYTHONPATH"] = os.pathsep.join(map(str, python_path))
    env["LD_LIBRARY_PATH"] = os.pathsep.join(
        filter(None, [str(vendor_prefix / "lib"), os.environ.get("LD_LIBRARY_PATH", "")])
    )
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # nothing written into ../shared/vendor
    return env
