"""Parameter constraints: one object gives both the check and the error message.

A :class:`Constraint` holds a predicate, the allowed values in words and an optional
converter; :meth:`Constraint.validate` returns the (converted) value or raises a ValueError
that names the argument, the allowed values and the value given.  The methods' parameters
(:class:`fstools.methods.registry.Parameter`), ``compare``, ``stability``, ``evaluate_online``
and the transformer all check their arguments through it, so that every entry point accepts
and refuses the same values with the same words.

The predicates below are the single definition of "a number", "a positive integer", "a seed":
booleans are never numbers here (``True`` is not a valid ``beta``).
"""
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

__all__ = ["Constraint", "POSITIVE_INTEGER", "POSITIVE_NUMBER", "NONNEGATIVE_NUMBER", "UNIT_INTERVAL",
           "BOOLEAN", "SEED", "OPEN_UNIT_INTERVAL", "RANDOM_STATE", "one_of", "integer_at_least",
           "validate", "is_integer", "is_number", "is_positive_number", "is_nonnegative_number", "is_unit_interval",
           "is_positive_integer", "is_integer_at_least", "is_none_or", "is_seed", "is_bool",
           "is_one_of", "none_or_int", "none_or_float"]


def is_number(value):
    """A finite real number (int or float, NumPy scalars included), not a boolean."""
    return (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
            and bool(np.isfinite(value)))


def is_integer(value):
    """An integer (NumPy's included), not a boolean."""
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_positive_number(value):
    return is_number(value) and float(value) > 0.0


def is_nonnegative_number(value):
    return is_number(value) and float(value) >= 0.0


def is_unit_interval(value):
    return is_number(value) and 0.0 <= float(value) <= 1.0


def is_integer_at_least(minimum):
    """Predicate: an integer (not a boolean) >= ``minimum``."""
    def check(value):
        return (isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
                and int(value) >= minimum)
    return check


is_positive_integer = is_integer_at_least(1)


def is_none_or(check):
    """Predicate: None, or a value passing ``check``."""
    def none_or(value):
        return value is None or check(value)
    return none_or


def is_seed(value):
    """A ``random_state``: None or a non-negative integer."""
    return is_none_or(is_integer_at_least(0))(value)


def is_bool(value):
    return isinstance(value, (bool, np.bool_))


def is_one_of(allowed):
    """Predicate: a string among ``allowed``."""
    def check(value):
        return isinstance(value, str) and value in allowed
    return check


def none_or_int(value):
    return None if value is None else int(value)


def none_or_float(value):
    return None if value is None else float(value)


@dataclass(frozen=True)
class Constraint:
    """What an argument may be: a predicate, the allowed values in words, a converter.

    Attributes
    ----------
    allowed : str
        The allowed values in words, used in error messages (e.g. "a number in [0, 1]").
    check : callable
        ``check(value) -> bool``: True when the value is allowed.
    convert : callable or None
        Applied to an allowed value before it is used (e.g. ``float``).
    """

    allowed: str
    check: Callable[[Any], bool]
    convert: Callable[[Any], Any] | None = None

    def validate(self, value, name, context=""):
        """``value`` converted, or ValueError ``"<name>: must be <allowed><context>; got <value>"``."""
        if not self.check(value):
            raise ValueError(f"{name}: must be {self.allowed}{context}; got {value!r}")
        return self.convert(value) if self.convert is not None else value


POSITIVE_INTEGER = Constraint("an integer >= 1", is_positive_integer, int)
POSITIVE_NUMBER = Constraint("a finite number > 0", is_positive_number, float)
NONNEGATIVE_NUMBER = Constraint("a finite number >= 0", is_nonnegative_number, float)
UNIT_INTERVAL = Constraint("a number in [0, 1]", is_unit_interval, float)
BOOLEAN = Constraint("True or False", is_bool, bool)
SEED = Constraint("None or an integer >= 0", is_seed, none_or_int)


def one_of(allowed):
    """A string among ``allowed`` (the message lists them)."""
    return Constraint("one of " + ", ".join(map(repr, allowed)), is_one_of(tuple(allowed)))


def integer_at_least(minimum, what=None):
    """An integer (not a boolean) >= ``minimum``; ``what`` says what it counts, in the message."""
    words = f"an integer >= {minimum}" + (f" ({what})" if what else "")
    return Constraint(words, is_integer_at_least(minimum), int)

#: A number strictly between 0 and 1 (a significance level, a held-out share).
OPEN_UNIT_INTERVAL = Constraint("in (0, 1)", lambda value: is_number(value) and 0.0 < float(value) < 1.0, float)

#: A ``random_state`` that may also be a NumPy RandomState (used as it is): None, an integer or one.
RANDOM_STATE = Constraint("None, an integer or a numpy RandomState",
                          lambda value: value is None or is_integer(value)
                          or isinstance(value, np.random.RandomState))


def validate(constraint, value, name, right_type=None, context=""):
    """``constraint.validate(value, name, context)``, raising TypeError with the same words instead of
    ValueError when ``right_type(value)`` is false (a value of the wrong kind rather than out of range,
    e.g. ``cv=2.0``)."""
    try:
        return constraint.validate(value, name, context)
    except ValueError as error:
        if right_type is not None and not right_type(value):
            raise TypeError(str(error)) from None
        raise
