"""Shared fixtures, the hypothesis profiles and the order the tests run in.

Hypothesis profiles, chosen by ``HYPOTHESIS_PROFILE``, else ``ci`` where ``CI`` is set (CI
runs with ``CI=true``), else ``full``:

- ``full`` (local runs): hypothesis's defaults and each test's own example count.
- ``ci``: at most about 25 examples a test (``tests.strategies.examples`` caps the counts
  that tests set themselves), no deadline (CI machines are shared and slow), and a failure
  prints the blob that reproduces it (``@reproduce_failure``).
- ``thorough`` (opt-in): no deadline, 200 examples, and the stateful edit test
  (tests/edit/test_stateful.py) from about 300 random edit steps to about 12,000 (200 runs
  of 60 steps), checking everything after every step:

    HYPOTHESIS_PROFILE=thorough python -m pytest -q tests/edit/test_stateful.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Keep the package's bytecode between processes even where the environment says not to
# write it (PYTHONDONTWRITEBYTECODE, as on this project's machines): otherwise each xdist
# worker and every console-script run compiles the package again.
sys.dont_write_bytecode = False

CI_EXAMPLES = 25
settings.register_profile("full", settings.get_profile("default"))
settings.register_profile("ci", max_examples=CI_EXAMPLES, deadline=None, print_blob=True)
settings.register_profile("thorough", deadline=None, max_examples=200, stateful_step_count=60)


def _profile() -> str:
    chosen = os.environ.get("HYPOTHESIS_PROFILE")
    if chosen:
        return chosen
    on_ci = os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")
    return "ci" if on_ci else "full"


settings.load_profile(_profile())

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
TUI = ROOT / "tests" / "tui"


@pytest.fixture
def root() -> Path:
    return ROOT


def rackdesigner_command() -> list[str]:
    """The installed console script, run the way users run it."""
    script = Path(sys.executable).with_name("rackdesigner")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rackdesigner"]


SUBPROCESS_NAMES = frozenset({"subprocess", "rackdesigner_command"})
# The shared helpers that start a process, by module and name.
STARTERS = frozenset({("tests.processes", "console")})


def _starter(helper: object) -> bool:
    return (getattr(helper, "__module__", None), getattr(helper, "__name__", None)) in STARTERS


def _starts_a_process(function: object) -> bool:
    """Whether a test starts a process (the console script, an interpreter, tmux): its code,
    or that of a function of its module it calls, names ``subprocess`` or
    ``rackdesigner_command``, or it calls one of :data:`STARTERS` (tests/processes.py)."""
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    names = set(code.co_names)
    module = getattr(function, "__globals__", {})
    for name in code.co_names:
        helper = module.get(name)
        if not callable(helper):
            continue
        home = getattr(helper, "__module__", None)
        if _starter(helper):
            return True
        if home == function.__module__:
            for called in getattr(getattr(helper, "__code__", None), "co_names", ()):
                names.add(called)
                if _starter(module.get(called)):
                    return True
    return not names.isdisjoint(SUBPROCESS_NAMES)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests that start processes are marked ``slow`` (``-m "not slow"`` leaves them out),
    and the long tests run first: the Pilot journeys (tests/tui/) and the modules with hypothesis
    properties, whole modules at a time (their module fixtures are made once).

    xdist hands each worker a run of tests in collection order, so the journeys, last in
    alphabetical order, all landed at the end on one worker: the others finished 10-20 s
    earlier and sat idle. Started first, they spread over the workers and the many short
    tests fill the gaps (with ``--dist worksteal``, set in pyproject.toml)."""
    long = {item.path for item in items if TUI in item.path.parents}
    long |= {
        item.path
        for item in items
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
    }
    items.sort(key=lambda item: item.path not in long)  # stable: each group keeps its order
    for item in items:
        if isinstance(item, pytest.Function) and _starts_a_process(item.function):
            item.add_marker(pytest.mark.slow)
