"""Pieces of error and warning messages that several layers print the same way."""

__all__ = ["preview", "ColumnError"]


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
