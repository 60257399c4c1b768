"""What the evaluation protocols share: argument checks and the context of a failure.

* :func:`validate` -- :meth:`fstools.core.constraints.Constraint.validate` (one wording for
  every argument), raising TypeError instead of ValueError when the value is not even of the
  right type (``cv=2.0``, ``select_in_fold="yes"``), as ``compare`` and ``stability`` always did.
* :data:`OPEN_UNIT_INTERVAL` -- a number strictly between 0 and 1 (``alpha``, ``test_size``).
* :func:`reraise_with_context` -- an exception raised inside a run (a method, a classifier)
  reaches the caller as the same type, its message prefixed with where it happened (method,
  data set, repeat and fold, bootstrap run).
"""
import numbers

import numpy as np

from fstools.core.constraints import Constraint, is_number

__all__ = ["OPEN_UNIT_INTERVAL", "RANDOM_STATE", "is_integer", "validate", "reraise_with_context"]


def is_integer(value):
    """An integer (NumPy's included), not a boolean."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


#: A number strictly between 0 and 1 (a significance level, a held-out share).
OPEN_UNIT_INTERVAL = Constraint("in (0, 1)", lambda value: is_number(value) and 0.0 < float(value) < 1.0, float)

#: ``compare``'s ``random_state``: None, an integer or a NumPy RandomState (used as it is).
RANDOM_STATE = Constraint("None, an integer or a numpy RandomState",
                          lambda value: value is None or is_integer(value)
                          or isinstance(value, np.random.RandomState))


def validate(constraint, value, name, right_type=None, context=""):
    """``constraint.validate(value, name, context)``; a TypeError with the same words when
    ``right_type(value)`` is false (a value of the wrong kind rather than out of range)."""
    try:
        return constraint.validate(value, name, context)
    except ValueError as error:
        if right_type is not None and not right_type(value):
            raise TypeError(str(error)) from None
        raise


def reraise_with_context(error, context):
    """Raise ``error`` again, as the same type, with ``context`` (where it happened) added.

    When the class can be built from one string that it shows as its message (ValueError,
    TypeError, FloatingPointError, ... and the subclasses that keep that constructor), a new
    exception of the class with the message ``"<context>: <error>"`` is raised ``from error``
    (the original, with its traceback, is its ``__cause__``).  Otherwise (KeyError, whose
    message is the repr of its argument; UnicodeDecodeError, which takes five arguments; ...)
    the original exception is raised again with the context as a note (Python 3.11+; on
    Python 3.10 it is raised unchanged).  Call it in an ``except Exception`` block: other
    BaseExceptions (KeyboardInterrupt, SystemExit) are not to be caught on the way.
    """
    message = f"{context}: {error}"
    try:
        augmented = type(error)(message)
    except Exception:  # the class needs other arguments
        augmented = None
    if augmented is not None and augmented.args == (message,) and str(augmented) == message:
        raise augmented from error
    if hasattr(error, "add_note"):
        error.add_note(context)
    raise error
