"""Errors by cause, under one base class.

They belong to the model (an illegal action, an unknown card, a malformed card record are
the rules' own errors), so the model imports nothing from the harness; the harness reaches
them as ``mtgcheck.errors``.

The CLI prints a :class:`MtgcheckError` as one line and exits 2; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations


def display(text: str) -> str:
    """The text on one line: control characters (a newline in a file name) escaped."""
    return text if text.isprintable() else repr(text)[1:-1]


def one_line(text: str) -> str:
    """Several lines (an OS or parser message) as one, each part escaped as :func:`display`."""
    return " ".join(display(part) for part in text.splitlines()) if text else text


class MtgcheckError(Exception):
    """Base of every error that is the user's input, not a bug of mtgcheck."""

    exit_code = 2


class FormatError(MtgcheckError):
    """A file mtgcheck reads is malformed: names the file, the field, what was expected."""

    def __init__(self, file: str, field: str, expected: str, got: object = None) -> None:
        self.file, self.field, self.expected, self.got = file, field, expected, got
        msg = f"{file}: {field}: expected {expected}"
        if got is not None:
            shown = repr(got)
            msg += f", got {shown if len(shown) <= 60 else shown[:57] + '...'}"
        super().__init__(msg)


class UnknownCardError(FormatError):
    """A card or plane name that the built-in pool does not hold."""


class UsageError(MtgcheckError):
    """The command line itself is wrong."""


class UnknownConditionError(UsageError):
    """A rule set switches off a condition that is neither a declared guard condition nor an
    effect clause."""


class OutputError(MtgcheckError):
    """A file mtgcheck writes (a report, a counterexample, a graph) could not be written.

    Disk full, a read-only folder, a file where a folder should be, a name too long: the
    user's environment, not a bug, so one line naming the file and the cause, exit 2.
    """

    def __init__(self, path: object, cause: str) -> None:
        self.path, self.cause = str(path), cause
        super().__init__(f"cannot write {display(str(path))}: {cause}")

    def __reduce__(self) -> tuple[type[OutputError], tuple[str, str]]:
        # Raised in worker processes (a graph export): it must cross back unchanged.
        return type(self), (self.path, self.cause)

    @classmethod
    def of(cls, path: object, exc: OSError) -> OutputError:
        """The error of an OSError raised while writing ``path`` (its strerror, in one line)."""
        where = exc.filename if exc.filename is not None else path
        cause = exc.strerror or type(exc).__name__
        if where is not None and str(where) != str(path):
            cause += f" ({where})"
        return cls(path, cause)
