"""The walking parameters of a walk_node parameter file (``config/walk.yaml``) as a WalkConfig.

The same file configures walk_node (``--params-file``), the demo and the offline walking loop, so
that all three walk alike.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from ik_solvers.resources import package_share_path
from ik_solvers.whole_body import WalkConfig


def load_walk_config(path: Path | None = None, node: str = "walk_node") -> WalkConfig:
    """WalkConfig from ``<node>: ros__parameters: walk:`` of ``path`` (default: the packaged
    ``config/walk.yaml``); fields the file does not set keep their defaults.

    Raises:
        ValueError: the file lacks that section, or names an unknown or invalid parameter.
    """
    path = path or package_share_path("config", "walk.yaml")
    document = yaml.safe_load(Path(path).read_text()) or {}
    try:
        values = document[node]["ros__parameters"]["walk"]
    except (KeyError, TypeError) as error:
        raise ValueError(f"{path} has no '{node}: ros__parameters: walk:' section") from error
    return WalkConfig.from_mapping(values)
