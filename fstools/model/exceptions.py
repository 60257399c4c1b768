"""Exception types of fstools."""


class FormulaError(ValueError):
    """A model formula that cannot be used with the given data.

    The message quotes the formula and names the problem (unknown column, no
    response, no predictors, response also on the right-hand side, syntax).
    """
