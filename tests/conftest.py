"""Shared fixtures.

Hypothesis profiles: the property tests set their own modest example counts so the suite
stays fast. ``HYPOTHESIS_PROFILE=thorough`` (opt-in) raises the stateful edit test
(tests/test_edit_stateful.py) from about 300 random edit steps to about 12,000 (200 runs
of 60 steps) and lets every other test keep shrinking as long as it needs:

    HYPOTHESIS_PROFILE=thorough python -m pytest -q tests/test_edit_stateful.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

# Keep compiled test modules and the package's bytecode between processes even where the
# environment says not to write it (PYTHONDONTWRITEBYTECODE, as on this project's machines).
# Otherwise each xdist worker and every console-script run compiles the
# package again, and pytest rewrites every test module's asserts again: 4-5 s of CPU per
# worker, of a suite that has to stay within 60 s on two cores.
sys.dont_write_bytecode = False

settings.register_profile("thorough", deadline=None, max_examples=200, stateful_step_count=60)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


@pytest.fixture
def root() -> Path:
    return ROOT


def rackdesigner_command() -> list[str]:
    """The installed console script, run the way users run it."""
    script = Path(sys.executable).with_name("rackdesigner")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rackdesigner"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long tests first: the Pilot journeys (test_tui*) and the modules with hypothesis
    properties, whole modules at a time (their module fixtures are made once).

    xdist hands each worker a run of tests in collection order, so the journeys, last in
    alphabetical order, all landed at the end on one worker: the others finished 10-20 s
    earlier and sat idle. Started first, they spread over the workers and the many short
    tests fill the gaps (with ``--dist worksteal``, set in pyproject.toml)."""
    long = {item.path for item in items if item.path.name.startswith("test_tui")}
    long |= {
        item.path
        for item in items
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False)
    }
    items.sort(key=lambda item: item.path not in long)  # stable: each group keeps its order


def pytest_configure(config: pytest.Config) -> None:
    """Compile the package and rewrite the test modules once, before xdist starts workers.

    On a fresh clone no bytecode exists, and every worker compiled every module of the
    package and rewrote every test module's asserts at the same moment: pytest's rewriting
    is about 3 s of CPU per process, four times over on two cores. The controller (which
    has no ``workerinput``) does it first, and the workers read what it wrote."""
    if hasattr(config, "workerinput"):
        return
    import compileall

    compileall.compile_dir(ROOT / "rackdesigner", quiet=2)
    _rewrite_test_modules(config)
    try:  # hypothesis's table of unicode characters, made once on a fresh clone (0.5 s)
        from hypothesis.internal.charmap import charmap

        charmap()
    except Exception:  # an internal of hypothesis: without it, each worker makes the table
        pass


def _rewrite_test_modules(config: pytest.Config) -> None:
    """Write pytest's cache of the rewritten test modules, as importing them would, on two
    processes (the rewriting is CPU work: half the wait, on two cores).

    This uses pytest's own rewriting functions, which are private: if they change, it does
    nothing and the workers rewrite as before (slower, not wrong)."""
    global _REWRITING
    try:
        from _pytest.assertion import rewrite

        state = config.stash[rewrite.assertstate_key]
        todo = []
        for source in sorted((ROOT / "tests").glob("test_*.py")):
            cache = rewrite.get_cache_dir(source)
            pyc = cache / (source.name[:-3] + rewrite.PYC_TAIL)
            if rewrite._read_pyc(source, pyc) is None and rewrite.try_makedirs(cache):
                todo.append((source, pyc))
    except (ImportError, AttributeError, KeyError, TypeError):
        return
    if not todo:
        return
    _REWRITING = (rewrite, config, state)
    if len(todo) < 8 or not hasattr(os, "fork"):
        for item in todo:
            _rewrite_one(item)
        return
    import multiprocessing

    # Forked before xdist starts anything: the controller has no other threads yet.
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(_rewrite_one, todo, chunksize=4)


_REWRITING: tuple[object, pytest.Config, object] | None = None


def _rewrite_one(item: tuple[Path, Path]) -> None:
    """Rewrite one test module into its cache (in a forked helper, or here)."""
    assert _REWRITING is not None
    rewrite, config, state = _REWRITING
    source, pyc = item
    try:
        source_hash, code = rewrite._rewrite_test(source, config)  # type: ignore[attr-defined]
        rewrite._write_pyc(state, code, source_hash, pyc)  # type: ignore[attr-defined]
    except Exception:  # a syntax error is reported by collection, as it was before
        return
