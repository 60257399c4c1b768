"""Column names of the data sets: the response's name and the snake_case rule for predictors."""
import re

__all__ = ["RESPONSE", "snake_case"]

#: The name of the response column of every single-label data set.
RESPONSE = "class"


def snake_case(name):
    """``'sepal length (cm)'`` -> ``'sepal_length_cm'``: lower case, runs of other characters -> ``_``."""
    text = re.sub(r"[^0-9a-zA-Z]+", "_", str(name).strip()).strip("_").lower()
    if not text:
        raise ValueError(f"name {name!r} has no letters or digits to build a column name from")
    return text
