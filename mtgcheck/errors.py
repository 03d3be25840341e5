"""Errors by cause, under one base class.

The CLI prints a :class:`MtgcheckError` as one line and exits 2; anything else is a bug
and keeps its traceback.
"""

from __future__ import annotations


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
