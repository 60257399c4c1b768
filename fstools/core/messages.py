"""Pieces of error and warning messages that several layers print the same way."""

__all__ = ["preview"]


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
