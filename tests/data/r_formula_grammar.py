"""Random formulas from R's formula grammar, for ``tests/test_formula_r_random.py``.

The formulas are written over the frame of ``r_formulas_data.csv`` (numeric ``y``, ``x1``,
``x2``, ``pos`` (positive), ``n`` (integer 1-4), ``a.b``; factors ``f``, ``g``; logical
``flag``).  The generator is deterministic (fixed seed): running it again prints the same
formulas, one a line.  It is run once, by hand, to make the test data; the test itself reads the
formulas from ``r_formulas_random_expected.json.gz``, never from here.  After the random
formulas come :data:`MINIMAL_EXAMPLES`, hand-written.

Regenerate the test data (R needed; about a minute)::

    cd tests/data
    python r_formula_grammar.py > /tmp/r_formulas_random.txt
    Rscript r_formulas_random.R /tmp/r_formulas_random.txt

What is drawn (R syntax throughout):

* terms: numeric columns (``a.b`` bare as a whole term or in backticks), factors (``f``, ``g``,
  ``flag``, ``factor(n)``, ``factor(f)``, ``factor(flag)``), ``I()`` of arithmetic (``+ - * /
  ^``, unary minus, numbers, comparisons), R's numeric functions that fstools supports
  (``log`` with a base, ``log2``, ``exp``, ``sqrt``, ``abs``, ``round``, ..., ``poly``,
  ``scale``), some calls outside their domain (``log(x1)``: R drops the rows with NaN), and
  constructs that fstools refuses (``offset()``, ``%in%``, R functions such as
  ``as.numeric``, ``pmax``, ``cut``, a dotted name bare inside a call), terms R refuses
  (``log(f)``, unknown columns, ``poly(x1, 0)``, ...) and ``I(pos > 0)`` (always TRUE);
* operators between terms: ``+``, ``-``, ``*``, ``/``, ``:``, ``%in%``, ``(...)^k``, nested
  parentheses, ``.`` (with ``- x``, ``^2``, ``:x``), ``-1``, ``+0``, ``0 +``, ``+1``.

Parentheses inside ``I()`` and calls are written only where precedence needs them (R and
Python then print the same expression).
"""
import random

SEED = 20261128
N_FORMULAS = 2000

#: Hand-written formulas after the random ones: the smallest forms of the differences between
#: fstools and R that the random formulas showed (see KNOWN_DIFFERENCES in the test).
MINIMAL_EXAMPLES = [
    "y ~ x1:x2 + f:x2",
    "y ~ x1:g + f:g",
    "y ~ I(log(x1) > 0)",
    "y ~ log(-pos)",
    "y ~ (x1 - x1) * x2",
    "y ~ x2 - log(x1)",
]

#: Numeric columns, as written in a term (the dotted name in backticks).
NUMERIC = ["x1", "x2", "pos", "n", "`a.b`"]
#: Numeric columns that are positive (log, sqrt, ... defined everywhere).
POSITIVE = ["pos", "n", "`a.b`"]
#: Factor terms.
FACTORS = ["f", "g", "flag", "factor(n)"]
#: Rarer factor terms.
RARE_FACTORS = ["factor(f)", "factor(flag)", "factor(g)"]
#: Elementwise functions fstools supports (R's names), with whether they need a positive argument.
ELEMENTWISE = {
    "log": True, "log2": True, "log10": True, "log1p": True, "sqrt": True,
    "exp": False, "abs": False, "sign": False, "floor": False, "ceiling": False,
    "trunc": False, "sin": False, "cos": False, "tan": False, "sinh": False, "cosh": False,
    "tanh": False, "expm1": False,
}
#: Calls R knows (base and stats) that fstools does not support.
R_ONLY_CALLS = [
    "as.numeric(x1)", "as.numeric(f)", "as.factor(n)", "as.integer(pos)", "pmax(x1, 0)",
    "pmin(x2, 1)", "cut(x1, 3)", "interaction(f, g)", "relevel(f, \"v\")", "ordered(g)",
    "sqrt(pmax(x1, 0))", "ifelse(x1 > 0, x1, 0)", "outer(x1, 2)", "exp(as.numeric(n))",
    "I(as.numeric(flag))", "log(abs(x1) + 1, base = exp(1))", "xtfrm(x1)", "rank(x1)",
]
#: Calls R does not know at all (R refuses the formula).
UNKNOWN_CALLS = ["ns(x1, 3)", "bs(x2, 3)", "s(x1)", "lag(x1)"]
#: Terms R refuses (numeric functions of a factor, an unknown column, a degree out of range), and
#: a logical with one value (R still codes it by the levels FALSE and TRUE).
MISUSES = [
    "log(f)", "sqrt(g)", "exp(f)", "abs(g)", "scale(f)", "poly(g, 2)", "I(pos > 0)",
    "I(n >= 1)", "x3", "log(x3)", "factor(x9)", "poly(x1, 0)", "scale(x1, center = f)",
]


class Grammar:
    """Draws formulas; one instance, one stream of random numbers.

    Parameters
    ----------
    seed : int
        The seed of the stream.
    """

    def __init__(self, seed):
        self.random = random.Random(seed)

    def pick(self, options):
        """One of ``options``, uniformly."""
        return self.random.choice(options)

    def chance(self, probability):
        """True with the given probability."""
        return self.random.random() < probability

    # ------------------------------------------------------------------ arithmetic
    def number(self):
        """A number that R and Python print alike."""
        return self.pick(["1", "2", "3", "10", "0.5", "2"])

    def arithmetic(self, depth, positive=False):
        """An arithmetic expression and its precedence (higher binds tighter).

        Parameters
        ----------
        depth : int
            How many more levels of operators may be nested.
        positive : bool
            Draw only expressions that are positive on the frame (arguments of ``log``).

        Returns
        -------
        tuple of (str, int)
            The text, and its precedence: 1 sum, 2 product, 3 unary minus, 4 power,
            5 atom.
        """
        if positive:
            return self._positive(depth)
        roll = self.random.random()
        if depth <= 0 or roll < 0.35:
            return self.pick(NUMERIC), 5
        if roll < 0.45:
            return self.call(depth - 1), 5
        if roll < 0.52:
            operand, precedence = self.arithmetic(depth - 1)
            return "-" + self._wrap(operand, precedence, 4), 3
        if roll < 0.65:
            base, precedence = self.arithmetic(depth - 1)
            return self._wrap(base, precedence, 5) + "^" + self.pick(["2", "3", "0.5"]), 4
        operator = self.pick(["+", "-", "*", "/", "+", "*"])
        left, left_precedence = self.arithmetic(depth - 1)
        if self.chance(0.3):
            right, right_precedence = self.number(), 5
        else:
            right, right_precedence = self.arithmetic(depth - 1)
        level = 1 if operator in "+-" else 2
        # left-associative: the right operand needs parentheses at the same level
        text = (self._wrap(left, left_precedence, level) + f" {operator} "
                + self._wrap(right, right_precedence, level + 1))
        return text, level

    def _positive(self, depth):
        roll = self.random.random()
        if depth <= 0 or roll < 0.6:
            return self.pick(POSITIVE), 5
        if roll < 0.75:
            operand, precedence = self.arithmetic(depth - 1)
            return "abs(" + operand + ")", 5
        if roll < 0.85:
            return "exp(" + self.arithmetic(depth - 1)[0] + ")", 5
        left, left_precedence = self._positive(depth - 1)
        operator = self.pick(["+", "*"])
        right, right_precedence = self._positive(depth - 1)
        level = 1 if operator == "+" else 2
        text = (self._wrap(left, left_precedence, level) + f" {operator} "
                + self._wrap(right, right_precedence, level + 1))
        return text, level

    @staticmethod
    def _wrap(text, precedence, needed):
        """``text`` in parentheses when its precedence is below ``needed``."""
        return f"({text})" if precedence < needed else text

    def call(self, depth):
        """A call of a supported elementwise function (sometimes outside its domain)."""
        name = self.pick(sorted(ELEMENTWISE))
        needs_positive = ELEMENTWISE[name]
        outside_domain = needs_positive and self.chance(0.08)
        argument = self.arithmetic(depth, positive=needs_positive and not outside_domain)[0]
        if name == "exp" and self.chance(0.5):
            argument = self.pick(["x1", "x2", "x1 / 2", "-x2", "n"])
        if name in ("sinh", "cosh", "expm1", "tan"):
            argument = self.pick(["x1", "x2", "x1 / 2", "n / 4"])
        if name == "log" and self.chance(0.3):
            base = self.pick(["2", "10", "base = 2", "base = 10", "0.5"])
            return f"log({argument}, {base})"
        if name == "round" and self.chance(0.5):
            return f"round({argument}, {self.pick(['1', '2', 'digits = 1'])})"
        return f"{name}({argument})"

    # ------------------------------------------------------------------ terms
    def numeric_term(self):
        """A term that makes numeric columns."""
        roll = self.random.random()
        if roll < 0.40:
            return self.pick(NUMERIC + ["a.b"])
        if roll < 0.55:
            return "I(" + self.i_argument() + ")"
        if roll < 0.75:
            return self.call(self.pick([0, 0, 1, 2]))
        if roll < 0.85:
            return self.poly()
        return self.scale()

    def i_argument(self):
        """The argument of ``I()``: arithmetic, sometimes a comparison."""
        if self.chance(0.12):
            left = self.arithmetic(1)[0]
            operator = self.pick([">", "<", ">=", "==", "!="])
            return f"{left} {operator} {self.pick(['0', '1', 'x2', '2'])}"
        return self.arithmetic(self.pick([1, 1, 2, 3]))[0]

    def poly(self):
        """R's ``poly()`` (orthogonal or raw) of a column or a simple call."""
        variable = self.pick(NUMERIC + ["log(pos)"])
        degree = self.pick(["1", "2", "2", "3"] + (["4"] if variable == "n" else []))
        form = self.pick(["{v}, {d}", "{v}, {d}", "{v}, degree = {d}", "{v}, {d}, raw = TRUE"])
        return "poly(" + form.format(v=variable, d=degree) + ")"

    def scale(self):
        """R's ``scale()`` with its options."""
        variable = self.pick(NUMERIC + ["log(pos)", "x1 + x2"])
        option = self.pick(["", "", ", scale = FALSE", ", center = FALSE",
                            ", center = TRUE, scale = TRUE"])
        return f"scale({variable}{option})"

    def factor_term(self):
        """A term that makes a factor."""
        if self.chance(0.12):
            return self.pick(RARE_FACTORS)
        return self.pick(FACTORS)

    def refused_term(self):
        """A construct fstools refuses, or one R refuses."""
        roll = self.random.random()
        if roll < 0.2:
            return f"offset({self.pick(NUMERIC + ['log(pos)'])})"
        if roll < 0.36:
            return f"{self.atom_plain()} %in% {self.pick(['f', 'g', 'flag'])}"
        if roll < 0.6:
            return self.pick(R_ONLY_CALLS)
        if roll < 0.68:
            return self.pick(UNKNOWN_CALLS)
        if roll < 0.8:
            return self.pick(["log(a.b)", "sqrt(a.b)", "I(a.b^2)", "exp(a.b / 2)", "scale(a.b)",
                              "poly(a.b, 2)"])
        return self.pick(MISUSES)

    def atom_plain(self):
        """A plain column."""
        return self.pick(NUMERIC + ["f", "g", "flag"])

    def term(self):
        """Any term (mostly supported ones)."""
        roll = self.random.random()
        if roll < 0.45:
            return self.numeric_term()
        if roll < 0.93:
            return self.factor_term()
        return self.refused_term()

    # ------------------------------------------------------------------ formulas
    def expression(self, depth):
        """A right-hand side expression of formula operators."""
        roll = self.random.random()
        if depth <= 0 or roll < 0.25:
            return self.term()
        if roll < 0.30:
            inner = self.expression(depth - 1)
            return f"({inner})"
        if roll < 0.42:
            pieces = [self.term() for _ in range(self.pick([2, 2, 3, 3, 4]))]
            power = self.pick(["2", "2", "3"])
            return "(" + " + ".join(pieces) + ")^" + power
        operator = self.pick([" + ", " + ", " + ", " * ", " * ", ":", ":", " / ", " - ", " %in% "])
        left = self.expression(depth - 1)
        right = self.expression(depth - 1) if self.chance(0.5) else self.term()
        if operator != " + " and not self._simple(right):
            right = f"({right})"
        if operator != " + " and not self._simple(left):
            left = f"({left})"
        return left + operator + right

    @staticmethod
    def _simple(text):
        """True when ``text`` has no formula operator outside parentheses (a single term)."""
        depth = 0
        for position, character in enumerate(text):
            depth += character == "("
            depth -= character == ")"
            if depth == 0 and (character in "+*/:^-" or text.startswith("%in%", position)):
                if character == "-" and position > 0 and text[position - 1] in "(,":
                    continue
                return False
        return True

    def dot_formula(self):
        """A right-hand side with R's ``.``."""
        return self.pick([
            ".", ". - x1", ". - f", ". - f - g - flag", ". - x1 - x2 - pos",
            ".^2", "(. - f - g)^2", "(. - f - g - flag - n - `a.b`)^3", ".:x1", ".:f",
            ". + I(x1^2)", ". - a.b", ". + log(pos)", ". - 1", ". + 0", ". * x1",
            ". - `a.b` - n + poly(x1, 2)", "x1 + .", ". - f + f:g", "(. - f - g)^2 - x1:x2",
            ". - pos - n - `a.b` - flag - f - g", ". %in% f", ". + offset(x1)",
        ])

    def intercept(self, rhs):
        """Sometimes remove or restate the intercept."""
        roll = self.random.random()
        if roll < 0.08:
            return rhs + " - 1"
        if roll < 0.13:
            return rhs + " + 0"
        if roll < 0.17:
            return "0 + " + rhs
        if roll < 0.19:
            return "-1 + " + rhs
        if roll < 0.22:
            return "1 + " + rhs
        return rhs

    def formula(self):
        """One formula ``y ~ ...``."""
        roll = self.random.random()
        if roll < 0.04:
            rhs = self.dot_formula()
        elif roll < 0.07:
            term = self.numeric_term()
            rhs = self.pick([f"{term} - {term}", f"x1 + {term} - x1", f"-x1 + {term}",
                             f"({term})", f"(({term}))", "1", "0", "-1", f"{term} - 1 + 1"])
        else:
            rhs = self.expression(self.pick([1, 1, 2, 2, 3]))
        return "y ~ " + self.intercept(rhs)


def formulas(count=N_FORMULAS, seed=SEED):
    """The first ``count`` distinct formulas of the stream.

    Parameters
    ----------
    count : int
        How many formulas.
    seed : int
        The seed.

    Returns
    -------
    list of str
    """
    grammar = Grammar(seed)
    seen = []
    known = set()
    while len(seen) < count:
        text = grammar.formula()
        if text not in known and len(text) <= 160:
            known.add(text)
            seen.append(text)
    return seen


if __name__ == "__main__":
    for formula in formulas() + MINIMAL_EXAMPLES:
        print(formula)
