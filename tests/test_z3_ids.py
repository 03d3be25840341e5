"""A Z3 term's id names it within its context only, and every Z3 check runs in a fresh context
(``z3bmc.fresh_context``) whose ids start again from the same numbers.  A cache that outlives
one check (a module-level container) and is keyed by ``get_id()`` alone gives a term another
context's entry: the property plan once gave a property the fields another context's term read.

The rule, checked over the package's source: a function that calls ``.get_id()`` and touches a
module-level container must also call ``.ctx_ref()`` (the context in the key).  Containers made
per call or per object (a printer's table of the terms it printed) live in one context and are
not concerned."""

from __future__ import annotations

import ast
from pathlib import Path

from .test_import_graph import PACKAGES

_CONTAINERS = (ast.Dict, ast.Set, ast.List, ast.DictComp, ast.SetComp)


def _module_containers(tree: ast.Module) -> set[str]:
    """Names bound at module level to a dict, set or list (literal or ``dict()``...)."""
    names: set[str] = set()
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        made = isinstance(value, _CONTAINERS) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                                                  and value.func.id in {"dict", "set", "list", "defaultdict"})
        if made:
            names |= {t.id for t in targets if isinstance(t, ast.Name)}
    return names


def offenders(source: str, where: str = "<source>") -> list[str]:
    """The functions of ``source`` that key a module-level container by term ids alone."""
    tree = ast.parse(source)
    shared = _module_containers(tree)
    out = []
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = {n.func.attr for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
        names = {n.id for n in ast.walk(fn) if isinstance(n, ast.Name)}
        if "get_id" in calls and names & shared and "ctx_ref" not in calls:
            out.append(f"{where}: {fn.name} calls get_id() without ctx_ref() and touches the module-level "
                       f"{', '.join(sorted(names & shared))}")
    return out


def test_no_cache_outlives_a_context_keyed_by_ids_alone() -> None:
    found = []
    for folder in PACKAGES.values():
        for path in sorted(Path(folder).rglob("*.py")):
            found += offenders(path.read_text(encoding="utf-8"), str(path))
    assert not found, "\n".join(found)


def test_the_rule_finds_the_bug_it_is_for() -> None:
    """The property plan's cache as it was: flagged; with the context in its key: not."""
    before = '''
_READS = {}

def _read_by_term(t, state):
    key = (t.get_id(), state)
    seen = _READS.get(key)
    if seen is None:
        seen = _READS[key] = (t, reads(t))
    return seen[1]
'''
    assert offenders(before) == ["<source>: _read_by_term calls get_id() without ctx_ref() and touches the "
                                 "module-level _READS"]
    assert offenders(before.replace("(t.get_id(), state)", "(t.ctx_ref().value, t.get_id(), state)")) == []
    per_call = '''
def group(terms):
    seen = {}
    for t in terms:
        seen.setdefault(t.get_id(), t)
    return seen
'''
    assert offenders(per_call) == []
