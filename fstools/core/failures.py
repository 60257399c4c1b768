"""The context of a failure inside a run of many (evaluation, resampling, the guarantees).

:func:`reraise_with_context` -- an exception raised inside a run (a method, a classifier)
reaches the caller as the same type, its message prefixed with where it happened (method,
data set, repeat and fold, bootstrap run).
"""

__all__ = ["reraise_with_context"]


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
