"""The PFER bound of stability selection and the knockoff threshold, against R and the papers.

* :func:`fstools.guarantees.pfer_bound.stability_selection_parameters` against
  ``stabs::stabsel_parameters`` (stabs 0.6-4) on a grid of p, q, cutoff, PFER, B, sampling and
  assumption, in the three modes (PFER, cutoff or q computed), R's errors included;
* :func:`fstools.guarantees.knockoff_threshold.knockoff_threshold` against
  ``knockoff::knockoff.threshold`` (knockoff 0.3.6);

both from ``tests/references/guarantees/`` (made by ``make_references.R`` there), and against
the formulas of the papers written out here: Meinshausen & Buhlmann (2010) Theorem 1, Shah &
Samworth (2013) Theorem 2 (unimodal), the definitions of T and T+ of Barber & Candes (2015) by
brute force.
"""
import csv
import dataclasses
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstools.guarantees.knockoff_threshold import knockoff_threshold
from fstools.guarantees.pfer_bound import (StabilityParameters, _r_concave_bound, _r_signif,
                                           stability_selection_parameters)

REFERENCES = Path(__file__).parent / "references" / "guarantees"


def _read(name):
    with open(REFERENCES / name, newline="") as handle:
        return list(csv.DictReader(handle))


def _number(text):
    return float(text) if text != "" else None


# --------------------------------------------------------------------------------------------
# stabs::stabsel_parameters
# --------------------------------------------------------------------------------------------

STABS_ROWS = _read("stabsel_parameters.csv")


def _row_id(row):
    given = {"pfer": f"q{row['q']}-c{row['cutoff']}", "cutoff": f"q{row['q']}-pfer{row['PFER']}",
             "q": f"c{row['cutoff']}-pfer{row['PFER']}"}[row["mode"]]
    return f"{row['mode']}-p{row['p']}-{given}-B{row['B']}-{row['sampling']}-{row['assumption']}"


def _call(row):
    """Our function with the arguments of the R call of ``row``."""
    arguments = {"B": int(row["B"]), "sampling": row["sampling"], "assumption": row["assumption"]}
    if row["mode"] != "q":
        arguments["q"] = int(float(row["q"]))
    if row["mode"] != "cutoff":
        arguments["cutoff"] = float(row["cutoff"])
    if row["mode"] != "pfer":
        arguments["pfer"] = float(row["PFER"])
    return stability_selection_parameters(int(row["p"]), **arguments)


def _departure(row):
    """Why we refuse a call that R answers (the module's documented departures), or None."""
    if row["error"]:
        return None
    p = int(row["p"])
    q = int(float(row["out_q"]))
    if not 1 <= q <= p - 1:
        return "a computed q outside 1..p-1"
    bound = float(row["out_exact"])
    if row["out_assumption"] == "unimodal" and (not math.isfinite(bound) or bound <= 0):
        return "a unimodal bound that is not positive"
    return None


def test_the_reference_grid_covers_every_mode_and_setting():
    seen = {(row["mode"], row["sampling"], row["assumption"], row["B"]) for row in STABS_ROWS}
    for mode in ("pfer", "cutoff", "q"):
        for assumption in ("unimodal", "r-concave", "none"):
            for B in ("50", "100"):
                if assumption != "none":
                    assert (mode, "SS", assumption, B) in seen
        assert (mode, "MB", "unimodal", "50") in seen
    assert {row["p"] for row in STABS_ROWS} >= {"10", "50", "200", "1000"}
    errors = [row for row in STABS_ROWS if row["error"]]
    assert len(errors) > 30  # R's errors are part of the reference
    assert len({row["error"] for row in errors}) >= 5


@pytest.mark.parametrize("row", STABS_ROWS, ids=[_row_id(row) for row in STABS_ROWS])
def test_stabsel_parameters_as_stabs(row):
    if row["error"] or _departure(row):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError, match=r"^(q|cutoff|pfer|B|p): "):
                _call(row)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = _call(row)
    assert result.q == int(float(row["out_q"]))
    assert result.cutoff == pytest.approx(float(row["out_cutoff"]), rel=1e-14, abs=0)
    assert result.assumption == row["out_assumption"]
    assert result.sampling == row["sampling"]
    assert result.B == int(row["B"])
    # the bound as stabs returns it (3 significant digits) and unrounded: to 1e-8 relative, or
    # 1e-15 p absolute for the r-concave tails, which are 1 - (a ratio near 1) in R as here
    tolerance = {"rel": 1e-8, "abs": 1e-15 * result.p}
    assert result.pfer == pytest.approx(float(row["out_PFER"]), rel=1e-12)
    assert result.pfer_exact == pytest.approx(float(row["out_exact"]), **tolerance)
    assert result.specified_pfer == pytest.approx(float(row["out_specifiedPFER"]), **tolerance)
    # a warning exactly where stabs returns parameters that do not meet the PFER asked for
    misses = row["mode"] != "pfer" and float(row["out_exact"]) > float(row["PFER"])
    assert bool([w for w in caught if issubclass(w.category, UserWarning)]) == misses


def test_the_departures_from_stabs_are_the_documented_ones():
    departures = {_departure(row) for row in STABS_ROWS} - {None}
    assert departures == {"a computed q outside 1..p-1", "a unimodal bound that is not positive"}


def test_the_unimodal_q_is_the_floor_of_rs_root_not_of_the_exact_one():
    # q^2 / 200 / (2 (2 * 0.75 - 1 - 1/100)) = 1 exactly at q = 14; R's uniroot stops just below
    # 14 and stabs floors it to 13, and so do we
    assert 14 * 14 / 200 / (2 * (2 * 0.75 - 1 - 1 / 100)) == 1.0
    result = stability_selection_parameters(200, cutoff=0.75, pfer=1, B=50)
    assert result.q == 13
    assert result.pfer == 0.862


# --------------------------------------------------------------------------------------------
# The papers' formulas, written out
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p, q, cutoff", [(10, 1, 0.6), (50, 7, 0.75), (200, 10, 0.9), (1000, 40, 1.0),
                                          (1000, 999, 0.55)])
@pytest.mark.parametrize("sampling", ["MB", "SS"])
def test_the_meinshausen_buhlmann_bound(p, q, cutoff, sampling):
    # Meinshausen & Buhlmann (2010), Theorem 1: E(V) <= q^2 / ((2 pi_thr - 1) p)
    by_hand = q ** 2 / ((2 * cutoff - 1) * p)
    result = stability_selection_parameters(p, q=q, cutoff=cutoff, sampling=sampling, assumption="none")
    assert result.pfer_exact == pytest.approx(by_hand, rel=1e-13)
    assert result.pfer == float(f"{by_hand:.3g}")
    assert result.assumption == "none"


@pytest.mark.parametrize("p, q, cutoff, B", [(200, 10, 0.6, 50), (200, 10, 0.75, 50), (200, 10, 0.76, 50),
                                             (1000, 50, 0.9, 100), (50, 5, 1.0, 50), (50, 5, 0.8, 7)])
def test_the_unimodal_bound_of_shah_and_samworth(p, q, cutoff, B):
    # Shah & Samworth (2013), Theorem 2: PFER <= C(tau, B) theta q with theta = q / p and
    # C = 1 / (2 (2 tau - 1 - 1/(2B))) for tau <= 3/4, 4 (1 - tau + 1/(2B)) / (1 + 1/B) above
    theta = q / p
    if cutoff <= 0.75:
        C = 1 / (2 * (2 * cutoff - 1 - 1 / (2 * B)))
    else:
        C = 4 * (1 - cutoff + 1 / (2 * B)) / (1 + 1 / B)
    by_hand = C * theta * q
    result = stability_selection_parameters(p, q=q, cutoff=cutoff, B=B, assumption="unimodal")
    assert result.pfer_exact == pytest.approx(by_hand, rel=1e-13)


def test_the_unimodal_bound_refuses_cutoffs_below_its_range():
    # Theorem 2 needs tau > min(1/2 + theta^2, 1/2 + 1/(2B) + 3 theta^2 / 4): theta = 0.4, B = 50
    # gives 0.5 + 0.01 + 0.12 = 0.63
    with pytest.raises(ValueError, match=r"^cutoff: .*0\.63"):
        stability_selection_parameters(50, q=20, cutoff=0.62, B=50)
    assert stability_selection_parameters(50, q=20, cutoff=0.64, B=50).pfer_exact > 0


@pytest.mark.parametrize("p, B", [(50, 50), (200, 50), (1000, 100)])
def test_the_r_concave_bound_is_below_the_bound_without_assumption(p, B):
    # D(theta^2, 2 tau - 1, B, -1/2) is a tail probability of a distribution with mean theta^2,
    # so Markov's inequality caps it at theta^2 / (2 tau - 1): p D <= q^2 / ((2 tau - 1) p)
    for q in (1, 3, p // 10, p // 5):
        for cutoff in (0.6, 0.75, 0.9, 1.0):
            r_concave = stability_selection_parameters(p, q=q, cutoff=cutoff, B=B, assumption="r-concave")
            markov = q ** 2 / ((2 * cutoff - 1) * p)
            assert r_concave.pfer_exact <= markov * (1 + 1e-12)


@pytest.mark.parametrize("p, q, B", [(50, 5, 50), (200, 20, 50), (1000, 20, 100), (10, 2, 7)])
def test_the_r_concave_bound_decreases_with_the_cutoff_and_grows_with_q(p, q, B):
    # the searches for a cutoff and for q bisect on these monotonicities, where stabs walks
    cutoffs = [k / (2 * B) for k in range(B, 2 * B + 1)]
    bounds = [_r_concave_bound(p, q, cutoff, B) for cutoff in cutoffs]
    assert all(later <= earlier for earlier, later in zip(bounds, bounds[1:]))
    by_q = [_r_concave_bound(p, size, 0.75, B) for size in range(1, q + 1)]
    assert all(later >= earlier for earlier, later in zip(by_q, by_q[1:]))


@pytest.mark.parametrize("p, q, pfer, B", [(200, 20, 1.0, 50), (1000, 20, 0.1, 100), (50, 5, 2.0, 50),
                                           (1000, 5, 5.0, 50), (50, 12, 0.3, 50)])
def test_the_r_concave_cutoff_is_stabs_walk_from_1_down(p, q, pfer, B):
    # stabs: from cutoff 1 down, the first cutoff whose bound exceeds pfer; the one before it
    # (1 when it is the first, 1/2 when none does)
    cutoffs = [k / (2 * B) for k in range(2 * B, B - 1, -1)]
    walked = cutoffs[-1]
    for i, cutoff in enumerate(cutoffs):
        if _r_concave_bound(p, q, cutoff, B) > pfer:
            walked = cutoffs[max(i - 1, 0)]
            break
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stability_selection_parameters(p, q=q, pfer=pfer, B=B, assumption="r-concave")
    assert result.cutoff == walked


@pytest.mark.parametrize("p, cutoff, pfer, B", [(200, 0.75, 1.0, 50), (50, 0.9, 0.5, 50), (1000, 0.6, 0.05, 100)])
def test_the_r_concave_q_is_stabs_walk_up_from_1(p, cutoff, pfer, B):
    walked = None
    for q in range(1, p):
        if _r_concave_bound(p, q, cutoff, B) > pfer:
            walked = max(1, q - 1)
            break
    result = stability_selection_parameters(p, cutoff=cutoff, pfer=pfer, B=B, assumption="r-concave")
    assert result.q == walked


def test_a_cutoff_or_q_that_misses_the_pfer_comes_with_a_warning():
    # stabs returns cutoff 1 (and q 1) silently when even they give a larger bound
    with pytest.warns(UserWarning, match="^pfer: no cutoff meets the bound"):
        result = stability_selection_parameters(10, q=3, pfer=0.1, assumption="none")
    assert result.cutoff == 1.0 and result.pfer_exact == pytest.approx(0.9)
    with pytest.warns(UserWarning, match="^pfer: no q meets the bound"):
        result = stability_selection_parameters(10, cutoff=0.6, pfer=0.01, assumption="r-concave")
    assert result.q == 1 and result.pfer_exact > 0.01


def test_the_signif_of_r():
    assert _r_signif(0.51020408163265307, 3) == 0.51
    assert _r_signif(0.86207, 3) == 0.862
    assert _r_signif(1234.5, 3) == 1230.0
    assert _r_signif(123456.0, 3) == 123000.0
    assert _r_signif(0.000123456, 3) == 0.000123
    assert _r_signif(-2.5, 1) == -2.0  # half to even, as R
    assert _r_signif(39.99999999999, 10) == 40.0


# --------------------------------------------------------------------------------------------
# The result object and bad input
# --------------------------------------------------------------------------------------------

def test_the_result_prints_as_stabs_and_is_frozen():
    result = stability_selection_parameters(200, cutoff=0.75, pfer=1)
    assert isinstance(result, StabilityParameters)
    text = repr(result)
    assert text.splitlines()[0] == "Stability selection with unimodality assumption"
    assert "Cutoff: 0.75; q: 13; PFER (*): 0.862" in text
    assert "PFER (specified upper bound): 1" in text
    assert "PFER corresponds to signif. level 0.00431 (without multiplicity adjustment)" in text
    assert "Theorem 2" in text and "50 complementary pairs" in text
    mb = repr(stability_selection_parameters(200, q=10, cutoff=0.75, sampling="MB"))
    assert "Stability selection without further assumptions" in mb
    assert "Cutoff: 0.75; q: 10; PFER: 1\n" in mb and "Meinshausen & Buhlmann (2010), Theorem 1" in mb
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.q = 3
    fields = [field.name for field in dataclasses.fields(StabilityParameters)]
    assert fields[:9] == ["p", "q", "cutoff", "pfer", "specified_pfer", "sampling", "assumption", "B", "bound"]


@pytest.mark.parametrize("assumption", ["unimodal", "r-concave", "none"])
def test_mb_sampling_ignores_the_assumption(assumption):
    result = stability_selection_parameters(200, q=10, cutoff=0.75, sampling="MB", assumption=assumption)
    assert result.assumption == "none"
    assert result.pfer_exact == pytest.approx(10 ** 2 / (0.5 * 200))


@pytest.mark.parametrize("arguments, name", [
    ({"p": 1, "q": 1, "cutoff": 0.7}, "p"),
    ({"p": 20.0, "q": 1, "cutoff": 0.7}, "p"),
    ({"p": True, "q": 1, "cutoff": 0.7}, "p"),
    ({"p": 20, "q": 0, "cutoff": 0.7}, "q"),
    ({"p": 20, "q": 20, "cutoff": 0.7}, "q"),
    ({"p": 20, "q": 25, "cutoff": 0.7}, "q"),
    ({"p": 20, "q": 2.0, "cutoff": 0.7}, "q"),
    ({"p": 20, "q": 2, "cutoff": 0.5}, "cutoff"),
    ({"p": 20, "q": 2, "cutoff": 1.01}, "cutoff"),
    ({"p": 20, "q": 2, "cutoff": float("nan")}, "cutoff"),
    ({"p": 20, "q": 2, "cutoff": "0.7"}, "cutoff"),
    ({"p": 20, "q": 2, "pfer": 0}, "pfer"),
    ({"p": 20, "q": 2, "pfer": -1}, "pfer"),
    ({"p": 20, "q": 2, "pfer": float("inf")}, "pfer"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "sampling": "ss"}, "sampling"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "assumption": "concave"}, "assumption"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "B": 0}, "B"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "B": 50.0}, "B"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "B": 1, "assumption": "r-concave"}, "B"),
    ({"p": 20, "q": 2}, "q, cutoff, pfer"),
    ({"p": 20}, "q, cutoff, pfer"),
    ({"p": 20, "q": 2, "cutoff": 0.7, "pfer": 1}, "q, cutoff, pfer"),
])
def test_bad_arguments_are_refused_by_name(arguments, name):
    with pytest.raises(ValueError, match="^" + name + ": ") as error:
        stability_selection_parameters(**arguments)
    message = str(error.value)
    if name in ("sampling", "assumption"):
        assert "'SS', 'MB'" in message or "'unimodal', 'r-concave', 'none'" in message
    if name == "q, cutoff, pfer":
        assert "exactly two" in message


# --------------------------------------------------------------------------------------------
# knockoff::knockoff.threshold
# --------------------------------------------------------------------------------------------

KNOCKOFF_W = {int(row["id"]): np.array([float(value) for value in row["W"].split(";")])
              for row in _read("knockoff_W.csv")}
KNOCKOFF_ROWS = _read("knockoff_threshold.csv")


def _brute_force_threshold(W, fdr, offset):
    """Barber & Candes (2015): the smallest t with (offset + #{W_j <= -t}) / max(1, #{W_j >= t})
    <= fdr, t among 0 and the |W_j| as R's knockoff.threshold takes them; inf when none."""
    candidates = sorted({0.0} | {abs(float(value)) for value in W})
    for t in candidates:
        negatives = sum(1 for value in W if value <= -t)
        positives = sum(1 for value in W if value >= t)
        if (offset + negatives) / max(1, positives) <= fdr:
            return t
    return math.inf


def test_the_knockoff_references_cover_the_cases():
    thresholds = [float(row["threshold"]) for row in KNOCKOFF_ROWS]
    assert any(math.isinf(t) for t in thresholds) and any(t == 0 for t in thresholds)
    assert sum(0 < t < math.inf for t in thresholds) > 50
    assert any(np.all(W < 0) for W in KNOCKOFF_W.values())
    assert any(np.any(W == 0) for W in KNOCKOFF_W.values())
    assert any(len(np.unique(np.abs(W))) < len(W) for W in KNOCKOFF_W.values())


@pytest.mark.parametrize("row", KNOCKOFF_ROWS,
                         ids=[f"W{row['id']}-fdr{row['fdr']}-offset{row['offset']}" for row in KNOCKOFF_ROWS])
def test_knockoff_threshold_as_r(row):
    W = KNOCKOFF_W[int(row["id"])]
    fdr = float(row["fdr"])
    offset = int(row["offset"])
    expected = float(row["threshold"])
    assert knockoff_threshold(W, fdr=fdr, offset=offset) == expected
    assert _brute_force_threshold(W, fdr, offset) == expected


def test_knockoff_threshold_by_hand():
    W = [5, 4, 3, 2, 1, -1]
    # knockoff+: t = 1: (1 + 1) / 5 = 0.4; t = 2: (1 + 0) / 4 = 0.25
    assert knockoff_threshold(W, fdr=0.3) == 2.0
    assert knockoff_threshold(W, fdr=0.4) == 0.0  # t = 0: (1 + 1) / 5
    # knockoff: t = 2: 0 / 4
    assert knockoff_threshold(W, fdr=0.1, offset=0) == 2.0
    assert knockoff_threshold([-1.0, -2.0], fdr=0.5, offset=0) == math.inf
    assert knockoff_threshold([3.0], fdr=0.5, offset=0) == 0.0
    assert knockoff_threshold(np.arange(1, 21), fdr=0.05) == 0.0  # 1 / 20
    assert knockoff_threshold(np.arange(1, 20), fdr=0.05) == math.inf  # 1 / 19 at best


@settings(max_examples=200, deadline=None)
@given(W=st.lists(st.one_of(st.integers(-6, 6).map(float),
                            st.floats(-50, 50, allow_nan=False, allow_infinity=False)),
                  min_size=1, max_size=40),
       fdr=st.floats(0.01, 0.99), offset=st.sampled_from([0, 1]))
def test_knockoff_threshold_is_the_brute_force_one(W, fdr, offset):
    threshold = knockoff_threshold(W, fdr=fdr, offset=offset)
    assert threshold == _brute_force_threshold(W, fdr, offset)
    if 0 < threshold < math.inf:
        # then it is the paper's T (or T+): the smallest nonzero |W_j| meeting the target
        nonzero = sorted({abs(value) for value in W if value != 0})
        meets = [t for t in nonzero
                 if (offset + sum(value <= -t for value in W)) / max(1, sum(value >= t for value in W)) <= fdr]
        assert threshold == meets[0]


@pytest.mark.parametrize("arguments, name", [
    ({"W": []}, "W"),
    ({"W": [[1.0, 2.0]]}, "W"),
    ({"W": [1.0, float("nan")]}, "W"),
    ({"W": [1.0, float("inf")]}, "W"),
    ({"W": ["a", "b"]}, "W"),
    ({"W": [True, False]}, "W"),
    ({"W": [1.0, 2.0], "fdr": 0}, "fdr"),
    ({"W": [1.0, 2.0], "fdr": 1}, "fdr"),
    ({"W": [1.0, 2.0], "fdr": -0.1}, "fdr"),
    ({"W": [1.0, 2.0], "fdr": float("nan")}, "fdr"),
    ({"W": [1.0, 2.0], "offset": 2}, "offset"),
    ({"W": [1.0, 2.0], "offset": 0.5}, "offset"),
    ({"W": [1.0, 2.0], "offset": True}, "offset"),
])
def test_knockoff_threshold_refuses_bad_input_by_name(arguments, name):
    with pytest.raises(ValueError, match="^" + name + ": "):
        knockoff_threshold(**arguments)
