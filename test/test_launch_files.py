"""Launch and parameter files, checked as far as possible without launch/launch_ros installed.

Each launch file compiles; every executable it names is a console script of the package; every
package file it references exists and is installed by setup.py; every parameter that the YAML
files (``ik_node`` sections) and the ik_node-only launch files set is declared by a running node.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
LAUNCH_FILES = sorted((REPO_ROOT / "launch").glob("*.launch.py"))
CONFIG_FILES = sorted((REPO_ROOT / "config").glob("*.yaml"))
SETUP = (REPO_ROOT / "setup.py").read_text()
CONSOLE_SCRIPTS = set(re.findall(r'"(\w+) = ik_solvers\.[\w.]+:\w+"', SETUP))
INSTALLED_FOLDERS = set(re.findall(r'share_files\("(\w+)"\)', SETUP))


def _calls(tree: ast.AST):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def executables(path: Path) -> set[str]:
    """Values of every ``executable="..."`` keyword in a launch file, except those of nodes of
    other packages (``package="controller_manager"``, for instance)."""
    found = set()
    for call in _calls(ast.parse(path.read_text())):
        package = next((k.value for k in call.keywords if k.arg == "package"), None)
        if isinstance(package, ast.Constant) and package.value != "ik_solvers":
            continue
        for keyword in call.keywords:
            if keyword.arg == "executable" and isinstance(keyword.value, ast.Constant):
                found.add(keyword.value.value)
    return found


def package_files(path: Path) -> set[str]:
    """Relative paths named by ``os.path.join(share, "<folder>", ..., "<file>")`` in a launch file."""
    found = set()
    for call in _calls(ast.parse(path.read_text())):
        if ast.unparse(call.func) == "os.path.join" and len(call.args) > 2:
            parts = call.args[1:]
            if all(isinstance(p, ast.Constant) for p in parts):
                found.add("/".join(p.value for p in parts))
    return found


def dict_keys(path: Path) -> set[str]:
    """String keys of every dict literal in a launch file (its parameter overrides)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Dict):
            found |= {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    return found


def flatten(tree: dict, prefix: str = "") -> set[str]:
    """Dotted parameter names of a nested ros__parameters mapping."""
    names = set()
    for key, value in tree.items():
        name = f"{prefix}{key}"
        names |= flatten(value, f"{name}.") if isinstance(value, dict) else {name}
    return names


def test_there_are_launch_files_for_the_node_and_for_hardware():
    assert {"ik.launch.py", "hardware.launch.py"} <= {p.name for p in LAUNCH_FILES}


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_a_launch_file_compiles_and_defines_its_description(path):
    tree = compile(path.read_text(), str(path), "exec", flags=ast.PyCF_ONLY_AST)
    assert "generate_launch_description" in {f.name for f in tree.body if isinstance(f, ast.FunctionDef)}
    compile(tree, str(path), "exec")


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_executable_a_launch_file_names_is_a_console_script(path):
    named = executables(path)
    assert named, f"{path.name} starts no executable"
    assert named <= CONSOLE_SCRIPTS, f"not console scripts of setup.py: {named - CONSOLE_SCRIPTS}"


@pytest.mark.parametrize("path", LAUNCH_FILES, ids=lambda p: p.name)
def test_every_file_a_launch_file_references_exists_and_is_installed(path):
    for relative in package_files(path):
        assert (REPO_ROOT / relative).is_file(), f"{path.name} references missing {relative}"
        assert relative.split("/")[0] in INSTALLED_FOLDERS, f"setup.py does not install {relative}"


def test_launch_and_config_folders_are_installed():
    assert {"launch", "config", "urdf"} <= INSTALLED_FOLDERS


def _ik_node_parameter_names() -> set[str]:
    names = set()
    for path in CONFIG_FILES:
        section = (yaml.safe_load(path.read_text()) or {}).get("ik_node", {})
        names |= flatten(section.get("ros__parameters", {}))
    for path in LAUNCH_FILES:
        if executables(path) == {"ik_node"}:
            names |= dict_keys(path)
    return names


def test_every_parameter_the_files_set_is_declared_by_the_node(processes, make_node, executor):
    pytest.importorskip("rclpy")
    from ik_node_harness import node_arguments
    from rcl_interfaces.srv import ListParameters
    from ros_helpers import call_service, spin_until

    names = _ik_node_parameter_names()
    assert "jacobian.method" in names and "robot_description" in names  # chain_names: found in the tree
    process = processes.start_console_script("ik_node", *node_arguments(config=None))
    client = make_node("launch_parameter_check").create_client(ListParameters, "/ik_node/list_parameters")
    ready = spin_until(executor, lambda: client.service_is_ready() or process.poll() is not None)
    assert ready and process.poll() is None, processes.output(process)
    response = call_service(executor, client, ListParameters.Request())
    assert response is not None, processes.output(process)
    undeclared = names - set(response.result.names)
    assert not undeclared, f"set in config/ or launch/ but not declared by ik_node: {sorted(undeclared)}"
