"""The headless commands never import the TUI: CI machines need no terminal stack."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys

from tests.conftest import ROOT

PROBE = """
import sys
from click.testing import CliRunner
from rackdesigner.cli.main import cli
runner = CliRunner()
for args in (["validate", {path!r}, "--format", "json"], ["rules"], ["rules", "PWR001"],
             ["catalog"], ["catalog", "dgx-h100"], ["schema"],
             ["export", {path!r}, "--toml", "-"], ["report", {path!r}],
             ["report", {path!r}, "--format", "json"], ["edit", "--help"]):
    result = runner.invoke(cli, args)
    assert result.exit_code in (0, 1), (args, result.output, result.exception)
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(",".join(leaked))
"""


def test_headless_commands_do_not_import_textual() -> None:
    path = str(ROOT / "tests" / "rules" / "PLC001" / "fires.toml")
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(path=path)], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


PACKAGE = ROOT / "rackdesigner"


def _module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name: str, modules: set[str]) -> set[str]:
    """Every package module ``path`` imports, at the top or inside a function, leaving out
    ``if TYPE_CHECKING:`` blocks (never executed)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - child.level + 1]
                    target = ".".join([*base, *([child.module] if child.module else [])])
                else:
                    target = child.module or ""
                for alias in child.names:
                    sub = f"{target}.{alias.name}"
                    found.add(sub if sub in modules else target)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in found if m in modules and m != name} | {
        m for m in found if m.split(".")[0] == "textual"
    }


@functools.cache  # three tests read it; parsing the package is a second each
def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _imports(path, name, modules) for name, path in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected parts of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next((c for c in children if c in graph), None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                part = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    part.append(member)
                    if member == node:
                        break
                if len(part) > 1:
                    found.append(sorted(part))
    return found


def test_the_package_has_no_import_cycles_counting_deferred_imports() -> None:
    graph = _graph()
    assert "rackdesigner.layout_io.reader" in graph
    assert _cycles(graph) == []
    # The checker itself finds a cycle made of deferred imports.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_only_the_tui_imports_textual_and_the_loader_imports_no_rules_or_analysis() -> None:
    graph = _graph()
    for name, imported in graph.items():
        if not name.startswith("rackdesigner.tui"):
            assert not [m for m in imported if m.split(".")[0] == "textual"], name
    loader = [n for n in graph if n.startswith("rackdesigner.layout_io") or n.endswith("document")]
    reach: set[str] = set()
    todo = list(loader)
    while todo:
        current = todo.pop()
        for module in graph[current]:
            if module not in reach and module in graph:
                reach.add(module)
                todo.append(module)
    banned = ("rackdesigner.rules", "rackdesigner.analysis", "rackdesigner.layout_io.catalog")
    assert not sorted(m for m in reach if m.startswith(banned))


LOADER_PROBE = """
import sys
from rackdesigner.layout_io.document import load
document = load({path!r})
assert document.layout.catalog and document.layout.rules is not None
loaded = sorted(m for m in sys.modules if m.startswith("rackdesigner."))
print("\\n".join(loaded))
"""


def test_loading_in_a_fresh_interpreter_imports_no_rules_analysis_or_catalog(tmp_path) -> None:
    path = tmp_path / "layout.toml"
    path.write_text(
        'format = 1\nname = "x"\n\n[rules]\nselect = ["PWR"]\n\n'
        '[catalog.dgx-h100]\npower = "11 kW"\n\n[catalog.mine]\nkind = "switch"\n\n'
        '[[racks]]\nid = "r1"\n\n[[racks.devices]]\nid = "n1"\nmodel = "dgx-h100"\n'
        "position = 1\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", LOADER_PROBE.format(path=str(path))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    loaded = result.stdout.split()
    assert "rackdesigner.layout_io.reader" in loaded
    banned = ("rackdesigner.rules", "rackdesigner.analysis", "rackdesigner.layout_io.catalog")
    assert [m for m in loaded if m.startswith(banned)] == []


EDIT_PROBE = """
import sys
from rackdesigner.layout_io.document import load
from rackdesigner.edit import MoveDevice, Session
session = Session(load({path!r}))
session.do(MoveDevice("a01-n01"))
session.undo()
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(",".join(leaked))
"""


def test_the_editing_core_does_not_import_textual() -> None:
    # In a fresh interpreter: a Session opened, an edit done and undone, and no Textual.
    path = str(ROOT / "layouts" / "training-128.toml")
    result = subprocess.run(
        [sys.executable, "-c", EDIT_PROBE.format(path=path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_only_the_tui_package_imports_textual() -> None:
    """Textual lives in rackdesigner/tui/; the ``edit`` command imports it when it runs."""
    package = ROOT / "rackdesigner"
    offenders = []
    for path in sorted(package.rglob("*.py")):
        if (package / "tui") in path.parents:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.startswith(("import textual", "from textual")):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == []


def test_no_module_of_the_editing_core_imports_textual() -> None:
    graph = _graph()
    edit = {name: found for name, found in graph.items() if name.startswith("rackdesigner.edit")}
    assert edit, "the editing core's modules"
    for name, found in edit.items():
        assert not any(m.split(".")[0] == "textual" for m in found), name
