"""Pieces of error and warning messages that several layers print the same way."""
import difflib
import functools
import inspect

import numpy as np

__all__ = ["preview", "ColumnError", "did_you_mean", "suggest_keywords", "noun_for", "format_count"]


def preview(values, limit=5, quote=False):
    """The first ``limit`` of ``values`` joined by commas, then how many there are in all.

    >>> preview([3, 8, 9, 11, 12, 20, 21])
    '3, 8, 9, 11, 12, ... (7 in all)'
    >>> preview(["a", "b"], quote=True)
    "'a', 'b'"
    """
    values = list(values)
    shown = ", ".join(repr(str(v)) if quote else str(v) for v in values[:limit])
    return shown + (f", ... ({len(values)} in all)" if len(values) > limit else "")


class ColumnError(ValueError):
    """A ValueError about some columns of ``X``, named by position where the columns have no names.

    The layers that know the names (``fs.select``, ``fs.compare``, the transformer fitted on a
    DataFrame) restate it with :meth:`with_names`, so that the user reads the column's name.

    Parameters
    ----------
    template : str
        The message, with ``{columns}`` where the columns go.
    columns : sequence
        The columns' positions (or names).
    """

    def __init__(self, template, columns):
        self.template = template
        self.columns = list(columns)
        super().__init__(template.format(columns=preview(self.columns)))

    def with_names(self, names):
        """The same error naming the columns by ``names[position]``."""
        return ColumnError(self.template, [repr(str(names[int(j)])) for j in self.columns])


def did_you_mean(word, choices):
    """``". Did you mean 'x'?"`` for the nearest of ``choices`` to ``word``, or ``""``."""
    near = difflib.get_close_matches(str(word), [str(c) for c in choices], n=2, cutoff=0.6)
    return f". Did you mean {' or '.join(map(repr, near))}?" if near else ""


def suggest_keywords(function):
    """Decorate a public function so that a misspelt keyword argument gets a did-you-mean message.

    ``compare(..., metric="accuracy")`` raises ``TypeError: compare() got an unexpected keyword
    argument 'metric'. Did you mean 'metrics'?`` instead of Python's bare message.  A function
    that takes ``**kwargs`` is returned unchanged: its extra keywords are checked where they are
    used (the method parameters of ``select``).
    """
    parameters = inspect.signature(function).parameters.values()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return function
    names = [p.name for p in parameters
             if p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)]
    known = frozenset(names)

    @functools.wraps(function)
    def checked(*args, **kwargs):
        for name in kwargs:
            if name not in known:
                hint = did_you_mean(name, names) or f"; its arguments are: {', '.join(names)}"
                raise TypeError(f"{function.__name__}() got an unexpected keyword argument {name!r}{hint}")
        return function(*args, **kwargs)

    return checked


def noun_for(n, noun, plural=None):
    """The noun in the number a count of ``n`` asks for: the singular for 1, else the plural -- the one
    rule of every count printed in words (:func:`format_count` puts the count in front).

    Parameters
    ----------
    n : int
        The count.
    noun : str
        The noun in the singular ("comparison", "data set", "class").
    plural : str, optional
        The plural, for a noun not made plural by the rule: ``noun + 'es'`` after s, x, ch or sh
        ("class" -> "classes"), ``noun + 's'`` otherwise ("fold" -> "folds").

    Returns
    -------
    str

    Raises
    ------
    TypeError
        When ``n`` is not an integer (a bool is not one).
    """
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"n: must be an integer count; got {n!r} of type {type(n).__name__}")
    if n == 1:
        return noun
    if plural is None:
        plural = noun + ("es" if noun.endswith(("s", "x", "ch", "sh")) else "s")
    return plural


def format_count(n, noun, plural=None):
    """A count and its noun (:func:`noun_for`): ``'1 comparison'``, ``'0 comparisons'``, ``'2 comparisons'``,
    ``'3 classes'``, ``'2 data sets'``."""
    word = noun_for(n, noun, plural)  # (checks n)
    return f"{int(n)} {word}"
