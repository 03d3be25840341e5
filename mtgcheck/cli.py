"""The ``mtgcheck`` command line.

Exit codes (DESIGN.md, CLI): 0 all hold, 1 a property or expectation failed, 2 bad input
or usage, 3 inconclusive.  A user error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import click

from mtgcheck import __version__
from mtgcheck.errors import MtgcheckError


def _guard(fn: Callable[..., int]) -> Callable[..., None]:
    """Turn user errors into one line and exit 2; pass exit codes through."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = fn(*args, **kwargs)
        except MtgcheckError as exc:
            click.echo(f"mtgcheck: error: {exc}", err=True)
            sys.exit(exc.exit_code if exc.exit_code != 1 else 2)
        sys.exit(code)

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mtgcheck")
def main() -> None:
    """Formal verification and property testing of the rules of Magic: The Gathering."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--json", "json_out", type=click.Path(dir_okay=False), help="Write the verdicts as JSON here.")
@click.option("-q", "--quiet", is_flag=True, help="Print only failures and the summary.")
@_guard
def scenario(files: tuple[str, ...], json_out: str | None, quiet: bool) -> int:
    """Run scenario files (mtgcheck.scenario/1) on the reference model."""
    from mtgcheck.atomic import write_json
    from mtgcheck.errors import FormatError
    from mtgcheck.scenario_run import load, run

    reports: list[dict[str, Any]] = []
    loaded, malformed, failed = [], 0, 0
    for path in files:  # every file is checked before any scenario runs
        try:
            loaded.append(load(path))
        except FormatError as exc:
            click.echo(f"mtgcheck: error: {exc}", err=True)
            malformed += 1
            reports.append({"file": path, "error": str(exc)})
    for sc in loaded:
        rep = run(sc)
        reports.append(rep.to_json())
        if not rep.passed:
            failed += 1
        if quiet and rep.passed:
            continue
        click.echo(f"{'PASS' if rep.passed else 'FAIL'} {rep.path}: {rep.name} (CR {', '.join(rep.rules)})")
        for v in rep.verdicts:
            verdict = "legal" if v.legal else f"illegal (CR {v.refusal.cr}: {v.refusal.why})" if v.refusal else "illegal"
            mark = "  " if v.ok else "!!"
            want = f" [expected {v.expected or 'legal'}]" if not v.ok else ""
            click.echo(f"  {mark} #{v.index} {v.text}: {verdict}{want}")
        for m in rep.mismatches:
            click.echo(f"  !! {m}")
    click.echo(f"{len(files) - failed - malformed} passed, {failed} failed" + (f", {malformed} malformed" if malformed else ""))
    if json_out:
        write_json(json_out, {"format": "mtgcheck.scenario-report/1", "reports": reports})
    return 2 if malformed else 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    main()
