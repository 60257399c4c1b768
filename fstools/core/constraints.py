"""Predicates and converters for method parameters (``Parameter(check=..., convert=...)``).

One definition of "a number", "a positive integer", "a seed" for every
method, so that all methods accept and refuse the same values.  Booleans are
never numbers here (``True`` is not a valid ``beta``).
"""
import numbers

import numpy as np

__all__ = ["is_number", "is_positive_number", "is_nonnegative_number", "is_unit_interval",
           "is_positive_integer", "is_integer_at_least", "is_none_or", "is_seed", "is_bool",
           "is_one_of", "none_or_int", "none_or_float"]


def is_number(value):
    """A finite real number (int or float, NumPy scalars included), not a boolean."""
    return (isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
            and bool(np.isfinite(value)))


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
