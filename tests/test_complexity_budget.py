"""The CI complexity budget (.ci/complexity), measured on made-up modules.

The script is loaded in-process (it has no .py suffix: it is run as a command); the tests
measure small sources written here, never the package (CI runs the script on that).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "complexity"


def _load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("complexity_budget", str(SCRIPT))
    spec = importlib.util.spec_from_loader("complexity_budget", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    # A dataclass looks its module up by name while it is being made.
    sys.modules[spec.name] = module
    loader.exec_module(module)
    return module


budget = _load()


def branches(name: str, count: int) -> str:
    """A function of complexity ``count + 1`` (one per `if`) and ``count + 1`` lines."""
    body = "".join(f"    if x == {i}:  return {i}\n" for i in range(count))
    return f"def {name}(x):\n{body}"


def long_function(name: str, lines: int) -> str:
    """A function of complexity 1 and ``lines`` lines."""
    return f"def {name}():\n" + "    pass\n" * (lines - 1)


def test_counts_as_radon_does_and_names_methods_and_closures():
    """Complexity: 1, +1 per `if`, +1 per extra operand of `and`/`or`, +1 per comprehension
    and its `if`; a method is named after its class, a closure after its function and
    measured apart from it (its branches are not the outer function's)."""
    source = (
        "class Rack:\n"
        "    def load(self, a, b):\n"  # 1 + if (1) + `and` (1) + comprehension (1) + its if (1)
        "        if a and b:\n"
        "            return [x for x in a if x]\n"
        "        return []\n"
        "def outer(a):\n"  # 1 + if (1); inner's branches are not counted here
        "    def inner(b):\n"
        "        if b: return 1\n"
        "        if not b: return 2\n"
        "    if a: return inner(a)\n"
    )
    measures = {m.name: m for m in budget.measure_source(source, "pkg/a.py")}
    assert measures["Rack.load"].complexity == 5
    assert measures["Rack.load"].lines == 4
    assert measures["outer"].complexity == 2
    assert measures["outer"].lines == 5
    assert measures["outer.inner"].complexity == 3
    assert str(measures["Rack.load"]) == "pkg/a.py:2 Rack.load: complexity 5, 4 lines"


def test_a_function_over_40_breaks_the_budget():
    at_limit = budget.measure_source(branches("f", 39), "a.py")
    assert at_limit[0].complexity == 40
    assert budget.over_budget(at_limit) == []
    over = budget.measure_source(branches("g", 40), "a.py")
    ((said, offenders),) = budget.over_budget(over)
    assert said == "complexity over 40 (none may be)"
    assert [m.name for m in offenders] == ["g"]


def test_more_than_60_functions_over_20_break_the_budget():
    source = "".join(branches(f"f{i}", 20) for i in range(60))  # complexity 21 each
    sixty = budget.measure_source(source, "a.py")
    assert budget.over_budget(sixty) == []
    sixty_one = sixty + budget.measure_source(branches("g", 20), "b.py")
    ((said, offenders),) = budget.over_budget(sixty_one)
    assert said == "61 functions of complexity over 20 (at most 60)"
    assert len(offenders) == 61
    # A function at 20 is not over it.
    at_twenty = sixty + budget.measure_source(branches("h", 19), "b.py")
    assert budget.over_budget(at_twenty) == []


def test_more_than_5_functions_over_100_lines_break_the_budget():
    source = "".join(long_function(f"f{i}", 101) for i in range(5))
    five = budget.measure_source(source, "a.py")
    assert [m.lines for m in five] == [101] * 5
    assert budget.over_budget(five + budget.measure_source(long_function("g", 100), "b.py")) == []
    six = five + budget.measure_source(long_function("g", 150), "b.py")
    ((said, offenders),) = budget.over_budget(six)
    assert said == "6 functions over 100 lines (at most 5)"
    assert offenders[0].name == "g"  # the longest first


def test_the_command_prints_the_offenders_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "ok.py").write_text(branches("small", 3), encoding="utf-8")
    assert budget.main(["--package", str(package)]) == 0
    assert "the most complex 4 (at most 40)" in capsys.readouterr().out
    (package / "big.py").write_text(branches("huge", 45), encoding="utf-8")
    assert budget.main(["--package", str(package)]) == 1
    out = capsys.readouterr().out
    assert "over the complexity budget: complexity over 40 (none may be):" in out
    assert "  pkg/big.py:1 huge: complexity 46, 46 lines" in out


def test_a_module_that_does_not_parse_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "bad.py").write_text("def f(:\n", encoding="utf-8")
    assert budget.main(["--package", str(package)]) == 2
    assert "cannot measure the package" in capsys.readouterr().err
