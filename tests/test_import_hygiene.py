"""The package's shape holds: layers, no import cycles, Textual only in the designer.

- no import cycle, counting imports inside functions and under ``TYPE_CHECKING``;
- the layers, lowest first: model < layout_io < analysis < topology < rules < check < edit <
  design < export < report < cli, tui; of cli and tui only the entry point (cli/edit.py)
  imports tui, and only it imports tui/app.py;
- Textual only in rackdesigner/tui/ (and the headless commands never load it: CI machines
  need no terminal stack);
- the loader (layout_io but its catalog) reaches no rules, analysis or catalog;
- at most four modules directly in rackdesigner/.

Each checker is first shown a small graph it must fail on. docs/architecture.md explains
the layers."""

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

# The layers, lowest first: a module imports only from its own layer or the ones before it.
# cli and tui share the top; of the two, only the entry point (cli/edit.py) imports tui.
LAYERS = (
    "model",
    "layout_io",
    "analysis",
    "topology",
    "rules",
    "check",
    "edit",
    "design",
    "netbox",  # NetBox interop: device types in, the bulk-import rows out (docs/netbox.md)
    "asbuilt",  # the as-built check: export --ibsim writes its designed fabric
    "whatif",  # failure analysis: the report's "single failures" section reads it
    "export",
    "report",
    "diff",  # semantic diffs: compares exported tables and figures
    "cli tui",
)
ENTRY_POINT = "rackdesigner.cli.edit"  # the one module that imports the designer's app
APP = "rackdesigner.tui.app"
ROOT_MODULES_MAX = 4  # __init__.py and __main__.py today; the code lives in the packages
LOADER_BANNED = ("rackdesigner.rules", "rackdesigner.analysis", "rackdesigner.layout_io.catalog")


def _module_name(path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path, name: str, modules: set[str]) -> set[str]:
    """Every package module and Textual module ``path`` imports: at the top, inside a
    function, or under ``if TYPE_CHECKING:`` (never executed, but a type-only import is
    still a dependency: the layers and cycles count it)."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
    return {m for m in found if m in modules and m != name} | {
        m for m in found if m.split(".")[0] == "textual"
    }


@functools.cache  # several tests read it; parsing the package is a second
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


def _layer(module: str) -> int:
    """The layer of a package module: the root package (``rackdesigner/__init__.py``) is
    below every layer, ``__main__`` with the top one."""
    parts = module.split(".")
    if len(parts) == 1:
        return -1
    if parts[1] == "__main__":
        return len(LAYERS) - 1
    return next(rank for rank, names in enumerate(LAYERS) if parts[1] in names.split())


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a higher layer, and between cli and tui any but the entry point's."""
    found = []
    for name, imported in sorted(graph.items()):
        for module in sorted(m for m in imported if m.startswith("rackdesigner")):
            upward = _layer(module) > _layer(name)
            across = _layer(module) == _layer(name) and _package(module) != _package(name)
            entry = name == ENTRY_POINT and _package(module) == "rackdesigner.tui"
            entry |= name == "rackdesigner.__main__"  # python -m rackdesigner: runs the cli
            if upward or (across and not entry):
                found.append(f"{name} -> {module}")
    return found


def _textual_outside_tui(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        f"{name} -> {module}"
        for name, imported in graph.items()
        if _package(name) != "rackdesigner.tui"
        for module in imported
        if module.split(".")[0] == "textual"
    )


def _app_importers(graph: dict[str, set[str]]) -> list[str]:
    return sorted(
        name for name, imported in graph.items() if APP in imported and name != ENTRY_POINT
    )


def _reach(graph: dict[str, set[str]], starts: list[str]) -> set[str]:
    """Every module the ``starts`` import, directly or through others."""
    reach: set[str] = set()
    todo = list(starts)
    while todo:
        for module in graph[todo.pop()]:
            if module not in reach and module in graph:
                reach.add(module)
                todo.append(module)
    return reach


def _loader_leaks(graph: dict[str, set[str]]) -> list[str]:
    """What the loader (layout_io but its catalog) reaches of rules, analysis, the catalog."""
    loader = [
        n
        for n in graph
        if _package(n) == "rackdesigner.layout_io" and n != "rackdesigner.layout_io.catalog"
    ]
    return sorted(m for m in _reach(graph, loader) if m.startswith(LOADER_BANNED))


def _design_importers_below(graph: dict[str, set[str]]) -> list[str]:
    design = _layer("rackdesigner.design")
    return sorted(
        f"{name} -> {module}"
        for name, imported in graph.items()
        if _layer(name) < design
        for module in imported
        if _package(module) == "rackdesigner.design"
    )


def _root_modules(package) -> list[str]:
    return sorted(p.name for p in package.glob("*.py"))


def test_the_graph_counts_imports_in_functions_and_under_type_checking(tmp_path) -> None:
    source = tmp_path / "pkg" / "a.py"
    source.parent.mkdir()
    source.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.b import B\n"
        "def f():\n    import pkg.c\n    from . import d\n"
        "class K:\n    def g(self):\n        from textual.app import App\n"
    )
    found = _imports(source, "pkg.a", {"pkg.a", "pkg.b", "pkg.c", "pkg.d"})
    assert found == {"pkg.b", "pkg.c", "pkg.d", "textual.app"}


def test_the_package_has_no_import_cycles_counting_deferred_imports() -> None:
    # The checker itself finds a cycle made of deferred imports (checked first: a failure
    # below then means the package, not the checker).
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]
    graph = _graph()
    assert "rackdesigner.layout_io.reader" in graph
    assert _cycles(graph) == []


def test_lower_layers_never_import_higher_ones() -> None:
    # The checker itself: an upward import, a cli module other than the entry point
    # importing tui, and tui importing cli fail; downward imports and the entry point pass.
    assert _layer_violations(
        {
            "rackdesigner.model.units": {"rackdesigner.rules.base", "rackdesigner.model.refs"},
            "rackdesigner.check.engine": {"rackdesigner.rules.base", "rackdesigner.model.units"},
            "rackdesigner.cli.main": {"rackdesigner.tui.rows", "rackdesigner.report.report"},
            "rackdesigner.cli.edit": {"rackdesigner.tui.app"},
            "rackdesigner.tui.rows": {"rackdesigner.cli.conventions", "rackdesigner.report"},
            "rackdesigner": set(),
            "rackdesigner.__main__": {"rackdesigner.cli.main"},
        }
    ) == [
        "rackdesigner.cli.main -> rackdesigner.tui.rows",
        "rackdesigner.model.units -> rackdesigner.rules.base",
        "rackdesigner.tui.rows -> rackdesigner.cli.conventions",
    ]
    assert _layer_violations({"rackdesigner": {"rackdesigner.model"}}) == [
        "rackdesigner -> rackdesigner.model"
    ]
    assert _layer_violations(_graph()) == []


def test_nothing_below_design_imports_it() -> None:
    graph = {
        "rackdesigner.edit.session": {"rackdesigner.design.placing"},
        "rackdesigner.export.tables": {"rackdesigner.design.templates"},
        "rackdesigner.design.fixes": {"rackdesigner.design.placing"},
    }
    assert _design_importers_below(graph) == [
        "rackdesigner.edit.session -> rackdesigner.design.placing"
    ]
    assert _design_importers_below(_graph()) == []


def test_only_the_tui_imports_textual() -> None:
    graph = {
        "rackdesigner.tui.app": {"textual.app"},
        "rackdesigner.edit.live": {"textual.worker", "rackdesigner.edit.session"},
    }
    assert _textual_outside_tui(graph) == ["rackdesigner.edit.live -> textual.worker"]
    assert _textual_outside_tui(_graph()) == []


def test_only_the_entry_point_imports_the_app() -> None:
    fake = {ENTRY_POINT: {APP}, "rackdesigner.tui.controllers.x": {APP}, APP: set()}
    assert _app_importers(fake) == ["rackdesigner.tui.controllers.x"]
    graph = _graph()
    assert APP in graph and APP in graph[ENTRY_POINT]
    assert _app_importers(graph) == []


def test_the_package_root_holds_at_most_four_modules(tmp_path) -> None:
    for name in ("__init__.py", "__main__.py", "a.py", "b.py", "c.py"):
        (tmp_path / name).write_text("")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "d.py").write_text("")
    assert len(_root_modules(tmp_path)) == 5 > ROOT_MODULES_MAX
    assert len(_root_modules(PACKAGE)) <= ROOT_MODULES_MAX, _root_modules(PACKAGE)


def test_the_loader_imports_no_rules_analysis_or_catalog() -> None:
    graph = {
        "rackdesigner.layout_io.reader": {"rackdesigner.layout_io.schema"},
        "rackdesigner.layout_io.schema": {"rackdesigner.model.units"},
        "rackdesigner.layout_io.document": {"rackdesigner.layout_io.reader", "rackdesigner.x"},
        "rackdesigner.x": {"rackdesigner.analysis.facts"},
        "rackdesigner.analysis.facts": set(),
        "rackdesigner.layout_io.catalog": {"rackdesigner.rules.base"},
        "rackdesigner.rules.base": set(),
        "rackdesigner.model.units": set(),
    }
    # Through another module counts; the catalog's own imports do not.
    assert _loader_leaks(graph) == ["rackdesigner.analysis.facts"]
    assert _loader_leaks(_graph()) == []


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
