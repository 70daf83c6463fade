"""How the designer is put together: a thin app, no import cycles inside tui/, nothing but
the entry point importing the app, and the state and results going one way each."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "rackdesigner"
TUI = PACKAGE / "tui"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports: at the top, in functions, under TYPE_CHECKING."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_no_import_cycles_inside_tui() -> None:
    modules = {_module(p): p for p in TUI.rglob("*.py")}
    graph = {name: {m for m in _imports(p) if m in modules} for name, p in modules.items()}
    done: set[str] = set()

    def visit(name: str, path: list[str]) -> None:
        for dep in graph[name]:
            assert dep not in path, " -> ".join([*path[path.index(dep) :], dep])
            if dep not in done:
                visit(dep, [*path, dep])
        done.add(name)

    for name in graph:
        visit(name, [name])


def test_only_the_entry_point_imports_the_app_and_the_app_is_thin() -> None:
    importers = sorted(
        _module(p) for p in PACKAGE.rglob("*.py") if "rackdesigner.tui.app" in _imports(p)
    )
    assert importers == ["rackdesigner.cli.edit"]
    assert len((TUI / "app.py").read_text(encoding="utf-8").splitlines()) <= 300


def test_no_mixins_self_typing_tricks_or_callbacks_from_threads() -> None:
    banned = {
        r"type: ignore\[misc\]": "self typed with an ignore",
        r"getattr\(self\.app\b": "a widget guessing at the app",
        r"call_from_thread": "a worker calling back (workers post messages)",
        r"app: Any = self": "self typed as Any",
    }
    for path in TUI.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        for pattern, why in banned.items():
            assert not re.search(pattern, text), f"{path.relative_to(ROOT)}: {why}"
    for path in (TUI / "controllers").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                assert not node.bases, f"{path.name}: {node.name} is a plain class"


def test_the_main_screen_is_what_the_controllers_are_given() -> None:
    """Every member of the controllers' DesignerUI exists on MainScreen (a method, a
    property, or state its ``__init__`` declares)."""
    from rackdesigner.tui.main_screen import MainScreen
    from rackdesigner.tui.ui import DesignerUI

    init = ast.unparse(ast.parse((TUI / "main_screen.py").read_text(encoding="utf-8")))
    declared = set(re.findall(r"self\.(\w+)(?:: [^=]+)? = ", init))
    members = {n for n in vars(DesignerUI) if not n.startswith("_")}
    members |= set(DesignerUI.__annotations__)
    missing = {n for n in members if not hasattr(MainScreen, n) and n not in declared}
    assert not missing, missing


def test_the_garbage_collector_has_one_home() -> None:
    """Pausing, freezing and collecting go through ``model/collector.py``: no module of the
    package but that one imports ``gc`` (the designer's workers had a second pause with
    its own freeze threshold)."""
    imports_gc = re.compile(r"^\s*(import gc\b|from gc import)", re.MULTILINE)
    users = sorted(
        _module(path)
        for path in PACKAGE.rglob("*.py")
        if imports_gc.search(path.read_text(encoding="utf-8"))
    )
    assert users == ["rackdesigner.model.collector"]
