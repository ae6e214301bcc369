"""Prepare every kernel set of the package now: ``python -m ik_solvers.compiled`` (``make setup``
and the colcon install run it, so that no first start pays the compile)."""

from __future__ import annotations

import logging
import sys

from ik_solvers.compiled.cache import LOG


def main() -> int:
    """Compile (or load) the Jacobian solver's, the centre of mass's and the closed forms' kernels."""
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    from ik_solvers.solvers.geometric.kernels import prepare_kernels as prepare_closed_forms
    from ik_solvers.solvers.numeric.jacobian import prepare_kernels
    from ik_solvers.whole_body import com_kernel

    prepare_kernels()
    com_kernel.prepare()
    prepare_closed_forms()
    LOG.warning("kernels ready")
    return 0


if __name__ == "__main__":
    sys.exit(main())
