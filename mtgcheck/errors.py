"""The errors of mtgcheck, by cause (defined with the model: :mod:`mtgcheck.model.errors`).

The CLI prints a :class:`MtgcheckError` as one line and exits 2; anything else is a bug
and keeps its traceback.
"""

from mtgcheck.model.errors import (FormatError, MtgcheckError, OutputError, UnknownCardError, UsageError, display,
                                   one_line)

__all__ = ["MtgcheckError", "FormatError", "UnknownCardError", "UsageError", "OutputError", "display", "one_line"]
