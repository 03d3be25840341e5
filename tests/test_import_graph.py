"""The package's import graph has no cycle, and nothing imports upward (README "Layout").

Imports inside functions count too: a cycle hidden in a function is still two modules that
cannot be understood (or changed) one without the other.  The layers, bottom first: the
rules (``mtgcheck.model``), the properties, then the harness; the model never imports the
harness at all (its errors are its own: ``mtgcheck.errors`` re-exports them), and the properties
import only the model.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

from .conftest import ROOT

#: Where each import package's source lives (setuptools package-dir, pyproject.toml).
PACKAGES = {"mtgcheck": ROOT / "mtgcheck", "mtgcheck.model": ROOT / "model", "mtgcheck.properties": ROOT / "properties"}
def _module_of(path: Path) -> str:
    for pkg, folder in sorted(PACKAGES.items(), key=lambda kv: -len(kv[0])):
        if folder in path.parents:
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            return ".".join([pkg, *parts])
    raise AssertionError(path)


def import_graph() -> nx.DiGraph:
    """Module -> module it imports (at the top or inside a function), within the package."""
    modules = {_module_of(p): p for folder in PACKAGES.values() for p in folder.rglob("*.py")}
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                # ``from package import module`` imports the module itself.
                targets = [source, *(f"{source}.{alias.name}" for alias in node.names)]
            else:
                continue
            graph.add_edges_from((name, t) for t in targets if t in modules and t != name)
    return graph


def test_the_walk_sees_the_whole_package() -> None:
    graph = import_graph()
    assert {"mtgcheck.cli", "mtgcheck.model.actions", "mtgcheck.properties.catalogue"} <= set(graph)
    assert graph.has_edge("mtgcheck.model.actions", "mtgcheck.model.vocabulary")


def test_no_import_cycle() -> None:
    graph = import_graph()
    cycles = [sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1]
    assert not cycles, f"import cycles (each a set of modules importing one another): {cycles}"


def test_nothing_imports_upward() -> None:
    graph = import_graph()
    upward = []
    for src, dst in graph.edges:
        if src.startswith("mtgcheck.model") and not dst.startswith("mtgcheck.model"):
            upward.append((src, dst))
        if src.startswith("mtgcheck.properties") and not dst.startswith(("mtgcheck.model", "mtgcheck.properties")):
            upward.append((src, dst))
    assert not upward, f"lower layers importing the harness: {upward}"
