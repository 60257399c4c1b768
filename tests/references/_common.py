"""Helpers shared by several reference modules (no fstools code)."""


def _all_equal(values):
    return all(v == values[0] for v in values)
