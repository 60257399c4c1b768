"""Test results that print as R's ``htest`` objects, and ties within a tolerance.

:class:`HypothesisTest` is one test: what was compared, the statistic, its degrees of freedom,
the p-value (and the adjusted one, in a family of tests), the estimate with its confidence
interval and an effect size.  It prints as R prints ``t.test`` or ``wilcox.test``; its numbers
are one attribute away, :attr:`HypothesisTest.frame`.  :class:`PairedTests` is a family of them
(one reference method against every other): it prints each test, ``frame`` has one row per
test and ``summary()`` the compact table.

Scores of cross-validation are fractions (61 correct of 72 is 0.8472...), and averages of the
same fractions added in another order can differ in the last bit.  :func:`merge_near_ties`
makes values that agree to :data:`TIE_TOLERANCE` (relative) one value, so that ranks and signed
ranks see a tie where the exact fractions are equal.
"""
import numpy as np
import pandas as pd

from fstools.results.tables import format_number, format_p_value

__all__ = ["HypothesisTest", "PairedTests", "merge_near_ties", "TIE_TOLERANCE"]

#: Values closer than this (relative to max(1, |value|)) are taken as equal before ranking.
TIE_TOLERANCE = 1e-9


def merge_near_ties(values, tolerance=TIE_TOLERANCE):
    """``values`` with every run of near-equal values replaced by the smallest of the run.

    Sorted, each value within ``tolerance * max(1, |value|)`` of the previous one joins its run.
    The distinct averages of fold scores (fractions with denominators the fold sizes) differ by
    far more than 1e-9, while one fraction summed in two orders differs by about 1e-16.

    Parameters
    ----------
    values : array-like of float
    tolerance : float

    Returns
    -------
    numpy.ndarray of float, the shape of ``values`` (NaN kept).
    """
    values = np.asarray(values, dtype=float)
    flat = values.ravel().copy()
    finite = np.flatnonzero(np.isfinite(flat))
    order = finite[np.argsort(flat[finite], kind="stable")]
    start = None
    for position in order:
        value = flat[position]
        if start is not None and value - start <= tolerance * max(1.0, abs(start)):
            flat[position] = start
        else:
            start = value
    return flat.reshape(values.shape)


_ALTERNATIVE_TEXT = {"two-sided": "not equal to", "greater": "greater than", "less": "less than"}


class HypothesisTest:
    """One test, printed as R prints an ``htest`` object.

    Attributes
    ----------
    method : str
        The test's name (e.g. "Corrected resampled t-test (Nadeau and Bengio 2003)").
    data : str
        What was compared.
    statistic_name, statistic : str, float
    parameters : dict
        Name -> value (e.g. ``{"df": 99}``); empty when the null law has none.
    p_value : float
    p_adjusted, adjustment : float, str or None
        The p-value adjusted over the family of tests, and how.
    alternative : {'two-sided', 'greater', 'less'}
    null_value : float
    estimate_name, estimate : str, float
    conf_int : tuple of float or None
        (lower, upper) at ``conf_level``; one-sided alternatives give one-sided intervals, as R.
    conf_level : float
    effect_size_name, effect_size : str, float
    notes : list of str
    scale : float
        The printed estimate, interval and null value are these attributes times ``scale`` (100 for
        a metric shown in percent: a difference of proportions printed in percentage points, as the
        tables of the same tests); the attributes and :attr:`frame` keep the data's own units.
    unit : str or None
        The unit of the printed estimate and interval (e.g. "percentage points"), named after them;
        None prints no unit.
    """

    def __init__(self, *, method, data, statistic_name, statistic, parameters=None, p_value, alternative,
                 estimate_name, estimate, conf_int=None, conf_level=0.95, effect_size_name=None,
                 effect_size=np.nan, p_adjusted=None, adjustment=None, null_value=0.0, notes=(), scale=1.0,
                 unit=None):
        self.method = method
        self.data = data
        self.statistic_name = statistic_name
        self.statistic = float(statistic)
        self.parameters = dict(parameters or {})
        self.p_value = float(p_value)
        self.p_adjusted = None if p_adjusted is None else float(p_adjusted)
        self.adjustment = adjustment
        self.alternative = alternative
        self.null_value = float(null_value)
        self.estimate_name = estimate_name
        self.estimate = float(estimate)
        self.conf_int = None if conf_int is None else (float(conf_int[0]), float(conf_int[1]))
        self.conf_level = float(conf_level)
        self.effect_size_name = effect_size_name
        self.effect_size = float(effect_size)
        self.notes = list(notes)
        self.scale = float(scale)
        if not np.isfinite(self.scale) or self.scale <= 0:
            raise ValueError(f"scale: must be a positive finite number; got {scale!r}")
        self.unit = unit

    def __setstate__(self, state):
        # tests pickled before the printed unit existed print in the data's units
        self.__dict__.update({"scale": 1.0, "unit": None, **state})

    @property
    def frame(self):
        """The numbers as a one-row DataFrame."""
        row = {"statistic": self.statistic, **self.parameters, "p_value": self.p_value}
        if self.p_adjusted is not None:
            row["p_adjusted"] = self.p_adjusted
        row["estimate"] = self.estimate
        if self.conf_int is not None:
            row["conf_low"], row["conf_high"] = self.conf_int
        row["effect_size"] = self.effect_size
        return pd.DataFrame([row], index=pd.Index([self.data], name="data"))

    def as_text(self):
        """The test as R prints an ``htest``; the estimate and interval times :attr:`scale`, in :attr:`unit`."""
        unit = f" ({self.unit})" if self.unit else ""

        def shown(value):
            return format_number(self.scale * value)

        parameters = "".join(f", {name} = {format_number(value)}" for name, value in self.parameters.items())
        p_text = f"p-value = {format_p_value(self.p_value)}"
        if self.p_adjusted is not None:
            p_text += f" ({self.adjustment}-adjusted: {format_p_value(self.p_adjusted)})"
        lines = ["", f"\t{self.method}", "", f"data:  {self.data}",
                 f"{self.statistic_name} = {format_number(self.statistic)}{parameters}, {p_text}",
                 f"alternative hypothesis: true {self.estimate_name} is {_ALTERNATIVE_TEXT[self.alternative]} "
                 f"{shown(self.null_value)}{unit if self.null_value else ''}"]
        if self.conf_int is not None:
            lines.append(f"{100 * self.conf_level:g} percent confidence interval{unit}:")
            lines.append(f" {shown(self.conf_int[0])} {shown(self.conf_int[1])}")
        lines.append("sample estimates:")
        lines.append(f"{self.estimate_name}{unit}: {shown(self.estimate)}")
        if self.effect_size_name is not None:
            lines.append(f"effect size, {self.effect_size_name}: {format_number(self.effect_size, 3)}")
        lines += self.notes
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return self.as_text()

    def __str__(self):
        return self.as_text()


class PairedTests:
    """A family of paired tests of one reference method against the others.

    Printing shows every test as R does; ``frame`` holds the numbers (one row per test),
    ``summary()`` the compact table (text, HTML, LaTeX); ``tests[i]`` or ``tests["a vs b"]`` one
    :class:`HypothesisTest`.

    Attributes
    ----------
    title : str
    tests : list of HypothesisTest
    frame : pandas.DataFrame
        One row per test; the settings in ``frame.attrs``.
    notes : list of str
        Caveats printed after the tests.
    """

    def __init__(self, title, tests, frame, summary, notes=()):
        self.title = title
        self.tests = list(tests)
        self.frame = frame
        self._summary = summary
        self.notes = list(notes)

    def summary(self):
        """The compact table: a :class:`~fstools.results.tables.Summary`."""
        return self._summary

    def summary_frame(self):
        return self.frame.copy()

    def __len__(self):
        return len(self.tests)

    def __iter__(self):
        return iter(self.tests)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            return self.tests[key]
        names = list(self.frame["comparison"])
        if key in names:
            return self.tests[names.index(key)]
        raise KeyError(f"{key!r}: not a comparison; allowed: {', '.join(map(repr, names))} or a position. The "
                       f"numbers are a DataFrame in .frame")

    def as_text(self):
        lines = [self.title, "=" * len(self.title)]
        lines += [test.as_text() for test in self.tests]
        if self.notes:
            lines.append("---")
            lines += self.notes
        return "\n".join(lines)

    def __repr__(self):
        return self.as_text()

    def __str__(self):
        return self.as_text()

    def _repr_html_(self):
        return self._summary.as_html()
