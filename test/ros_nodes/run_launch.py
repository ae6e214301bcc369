"""Test helper: run one launch file through ``launch.LaunchService``, as ``ros2 launch`` does.

    python run_launch.py <path/to/file.launch.py> [name:=value ...]

Needs ``launch`` and ``launch_ros`` importable (test/workspaces.py sets the environment). SIGINT
shuts the launched processes down as Ctrl-C on ``ros2 launch`` would; the exit code is
LaunchService's. SIGINT is given Python's default handler first: a process started from a
background job inherits SIGINT ignored, and LaunchService (whose signal manager only wakes on a
Python-level handler) then never hears the Ctrl-C, nor escalates to SIGTERM when a node does not
stop: a node that hung after SIGINT kept the test waiting its whole 30 s without a word.
"""

import signal
import sys

import launch
from launch.actions import IncludeLaunchDescription
from launch.launch_description_sources import PythonLaunchDescriptionSource


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGINT, signal.default_int_handler)
    path, arguments = argv[0], [a.split(":=", 1) for a in argv[1:]]
    service = launch.LaunchService(argv=[])
    included = IncludeLaunchDescription(
        PythonLaunchDescriptionSource(path), launch_arguments=[(k, v) for k, v in arguments]
    )
    service.include_launch_description(launch.LaunchDescription([included]))
    return service.run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
