"""ROS domain reservations between processes of one machine, so that two runs never hear each other.

Two ROS 2 programmes on one ``ROS_DOMAIN_ID`` share their topics: a demo started by hand and a test
session on the same domain send each other targets, joint states and clocks. Every process here that
runs on a domain holds it for as long as it runs, in the scheme of ros-domain-coordinator (Apex.AI,
Fraunhofer FKIE; the ROS 2 test tools' own): TCP port ``PORT_BASE + domain`` on this machine, bound and
never listening. A bind fails while another process holds the port, and the port is free again the
moment its holder exits, even when killed. Holders:

- a test session (test/conftest.py) reserves a free domain among ``TEST_DOMAINS`` for the session,
  and tells its children that it holds it (``HELD_VARIABLE``);
- ``ik_demo`` holds the domain it runs on (``ROS_DOMAIN_ID``, 0 when unset) for its whole run, and
  refuses to start on one that another run holds;
- the benchmarks that start nodes reserve a free domain among ``BENCH_DOMAINS``.

A process started by a holder inherits the domain with the variable, and does not hold it again.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterable, Iterator, Mapping, MutableMapping

PORT_BASE = 32768  # ros-domain-coordinator's: port PORT_BASE + domain held while the domain is in use
TEST_DOMAINS = range(1, 101)  # the test sessions' (as ros-domain-coordinator's)
BENCH_DOMAINS = range(101, 201)  # the benchmarks'
DOMAIN_IDS = range(233)  # what Fast DDS accepts as ROS_DOMAIN_ID (its ports stay below 65536)
HELD_VARIABLE = "IK_SOLVERS_DOMAIN_HELD"  # the domain id a parent process holds for its children


class DomainInUse(RuntimeError):
    """The domain is held by another run on this machine (its nodes would hear ours)."""


def hold(domain: int) -> socket.socket | None:
    """Hold ``domain`` (bind port PORT_BASE + domain); the socket that holds it (close it to let
    go), or None when another process holds it."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind(("", PORT_BASE + domain))
    except OSError:
        holder.close()
        return None
    return holder


def reserve(candidates: Iterable[int], stack: contextlib.ExitStack) -> int:
    """The first of ``candidates`` (domain ids) that no other process holds, held until ``stack``
    closes.

    Raises:
        RuntimeError: every candidate is held.
    """
    candidates = list(candidates)
    for domain in candidates:
        holder = hold(domain)
        if holder is not None:
            stack.callback(holder.close)
            return domain
    raise RuntimeError(f"every ROS domain id of {candidates[0]}..{candidates[-1]} is in use on this machine")


@contextlib.contextmanager
def held_for_run(environ: Mapping[str, str] = os.environ) -> Iterator[int]:
    """Hold the domain this process runs on (``ROS_DOMAIN_ID`` of ``environ``, 0 when unset) while
    the context lasts; nothing to hold when the parent holds it for us (``HELD_VARIABLE``).

    Raises:
        DomainInUse: another run (a test session, another ik_demo, a benchmark) holds it, saying
            which domains are free.
        ValueError: ``ROS_DOMAIN_ID`` is not an integer in DOMAIN_IDS.
    """
    text = environ.get("ROS_DOMAIN_ID", "").strip() or "0"
    if not text.isdigit() or int(text) not in DOMAIN_IDS:
        raise ValueError(
            f"ROS_DOMAIN_ID={text!r} is not a domain id: an integer in {DOMAIN_IDS[0]}..{DOMAIN_IDS[-1]}"
        )
    domain = int(text)
    if environ.get(HELD_VARIABLE) == str(domain):
        yield domain
        return
    holder = hold(domain)
    if holder is None:
        raise DomainInUse(
            f"ROS domain {domain} (ROS_DOMAIN_ID) is in use by another run on this machine (a test "
            f"session, another ik_demo or a benchmark holds port {PORT_BASE + domain}), whose nodes "
            f"would hear this one's; run on a free domain, e.g. ROS_DOMAIN_ID={free_domain()} "
            f"(test sessions take {TEST_DOMAINS[0]}..{TEST_DOMAINS[-1]})"
        )
    with holder:
        yield domain


def free_domain() -> int:
    """A domain id above the test sessions' and the benchmarks' that nobody holds right now (not
    reserved: for a suggestion), or the last of DOMAIN_IDS."""
    for domain in range(BENCH_DOMAINS[-1] + 1, DOMAIN_IDS[-1]):
        holder = hold(domain)
        if holder is not None:
            holder.close()
            return domain
    return DOMAIN_IDS[-1]


def hold_a_free_domain(candidates: Iterable[int], environ: MutableMapping[str, str] = os.environ) -> None:
    """Unless ``environ`` names a ``ROS_DOMAIN_ID``: set it to the first free domain of
    ``candidates``, held until this process exits, and say so to its children (``HELD_VARIABLE``).
    For scripts that start nodes (the benchmarks).

    Raises:
        RuntimeError: every candidate is held.
    """
    if environ.get("ROS_DOMAIN_ID", "").strip():
        return
    domain = str(reserve(candidates, _PROCESS_HOLDS))
    environ["ROS_DOMAIN_ID"] = environ[HELD_VARIABLE] = domain


_PROCESS_HOLDS = contextlib.ExitStack()  # the domains this process holds until it exits
