"""Plots (matplotlib, imported only when a plot is asked for).

The convention of every plot in fstools: a one-panel plot takes ``ax=`` and returns the Axes it
drew on; a multi-panel plot takes ``fig=`` (or ``ax=``, a sequence of Axes, one per panel) and
returns the Figure.  Axis labels come from :mod:`fstools.results.labels` (plain name, the symbol
in brackets, the direction); numbers on the axes are never shown as an offset from a constant;
titles name the data, the method, the classifier and the metric where they apply.
"""
import numpy as np

from fstools.core.constraints import one_of, validate
from fstools.results.labels import PATH_NOTES, SCORE_NOTES, method_label, record_label, score_label
from fstools.results.tables import format_count, format_number, noun_for

__all__ = ["plot_scores", "plot_path", "plot_convergence", "plot_feature_vector_graph", "plot_null",
           "plain_numbers", "panels_for"]

#: What the bars of ``plot(kind='scores')`` show (``value=``): the criterion the method ranked by, or
#: (greedy methods) the relevance, the score of the path's first step.
SCORE_VALUES = ("criterion", "relevance")

#: Colours of selected and other features in the score plots.
SELECTED_COLOR = "tab:red"
OTHER_COLOR = "0.7"


def axes_for(ax, figsize):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def panels_for(n_panels, fig=None, ax=None, figsize=None, what="panel", names=(), columns=None):
    """``n_panels`` Axes for a multi-panel plot: new (one row), added to ``fig``, or the sequence ``ax``."""
    import matplotlib.pyplot as plt

    if ax is not None:
        axes = np.atleast_1d(np.asarray(ax, dtype=object)).ravel()
        if axes.size != n_panels:
            raise ValueError(f"ax: needs {n_panels} Axes (one per {what}{': ' + ', '.join(names) if names else ''}); "
                             f"got {axes.size}")
        return list(axes)
    if fig is None:
        fig = plt.figure(figsize=figsize)
    else:
        fig.clear()
    if columns is None:
        columns = min(n_panels, 3) if figsize is None else n_panels
    columns = max(1, columns)
    rows = (n_panels + columns - 1) // columns
    return [fig.add_subplot(rows, columns, i + 1) for i in range(n_panels)]


def wrap_label(text, width=36):
    """A long axis label on several lines (at spaces, so '[symbol]' and '(direction)' stay whole if they can)."""
    import textwrap

    return "\n".join(textwrap.wrap(text, width, break_long_words=False)) if len(text) > width else text


def plain_numbers(ax, axis="y"):
    """Tick labels as plain numbers: no offset ('+2.398e5') and no 'x 1e-4' multiplier for ordinary ranges."""
    from matplotlib.ticker import ScalarFormatter

    for name in ("x", "y") if axis == "both" else (axis,):
        target = ax.yaxis if name == "y" else ax.xaxis
        if target.get_scale() != "linear":
            continue
        formatter = ScalarFormatter(useOffset=False)
        formatter.set_powerlimits((-6, 7))
        target.set_major_formatter(formatter)


def _finite_limits(ax, values, pad=0.08):
    """y limits that show every finite value with room; a (near-)constant series gets a readable band."""
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    if not values.size:
        return None
    low, high = float(values.min()), float(values.max())
    scale = max(abs(low), abs(high), 1e-300)
    if high - low <= 1e-9 * scale:
        half = 0.05 * scale if scale > 1e-300 else 1.0
        ax.set_ylim(low - half, high + half)
        return "constant"
    span = high - low
    ax.set_ylim(low - pad * span, high + pad * span)
    return None


def _mark(ax, x, text, color, y=0.04):
    """A marker near the bottom of the axes at data-x ``x`` with ``text`` above it (for values without a bar/point)."""
    transform = ax.get_xaxis_transform()
    ax.plot([x], [y], transform=transform, marker="x", markersize=6, color=color, clip_on=False, linestyle="")
    ax.annotate(text, (x, y), xycoords=transform, xytext=(0, 5), textcoords="offset points", ha="center",
                va="bottom", fontsize=7, color=color)


def _greedy(result):
    """Whether ``result`` is of a greedy method: a path of steps, each choosing by a criterion that depends on
    the features chosen before (mim has a path too, but its criterion is its score)."""
    spec = result._spec
    return "greedy" in spec.capabilities and spec.path_column is not None and getattr(result, "steps", None) is not None


def _bar_values(result, value):
    """What the score plot draws: (values by feature in the order drawn, y label, x label, what the bars
    are in words or None, x-label note or None).

    ``'criterion'``: what the method ranked by -- for a greedy method the criterion of each feature on the
    path at the step that chose it (its first step), the path's features in step order; for the others the
    score of every candidate in rank order.  ``'relevance'`` (greedy methods): the score of the path's
    first step of every candidate (I(X;C), CMQFS's Q), in rank order.
    """
    value = validate(one_of(SCORE_VALUES), value, "value")
    spec = result._spec
    greedy = _greedy(result)
    if value == "relevance" and not greedy:
        raise ValueError(f"value: 'relevance' is the first-step score of a greedy method (mifs, mifs_u, mrmr, jmi, "
                         f"cmim, cmqfs); {result.method!r} ranks by its score alone (allowed for it: 'criterion')")
    score_ylabel = score_label(spec.score_name, spec.higher_is_better, result.response_type)
    if not greedy:
        return result.scores["score"], score_ylabel, "feature, in rank order (best first)", None, None
    column = spec.path_column
    if value == "relevance":
        xlabel = f"feature, in rank order (the greedy selection order, by {column})"
        return (result.scores["score"], score_ylabel, xlabel,
                f"bars: the relevance (first-step score), not the criterion {column} that ranked them", None)
    first_steps = result.steps.drop_duplicates("feature").set_index("feature")
    path = first_steps[column].astype(float)
    missing = ~np.isfinite(path.to_numpy())
    notes = []
    if missing.any():
        where = ", ".join(str(int(step)) for step in first_steps["step"][missing])
        notes.append(f"NA: {column} not defined at {noun_for(int(missing.sum()), 'step')} {where}"
                     + (f": {PATH_NOTES[result.method]}" if result.method in PATH_NOTES else ""))
    off_path = len(result.scores) - len(path)
    if off_path:
        notes.append(f"{format_count(off_path, 'candidate')} not chosen at any step (no {column}): value='relevance' "
                     f"draws every candidate's relevance")
    return (path, record_label(column), "feature, in selection order (step 1 first)",
            f"bars: {column} at the step that chose each feature", "\n".join(notes) or None)


def plot_scores(result, ax=None, max_features=40, selected_color=SELECTED_COLOR, other_color=OTHER_COLOR,
                value="criterion"):
    """Bar chart of what the method ranked the features by, in rank order; selected features highlighted.

    Selected features whose bar would not show (a score of zero, tiny next to the others, NaN or
    infinite) are marked by a point at their value (or a cross on the axis) with the value written
    next to it, so that every selected feature is visible.

    Parameters
    ----------
    result : SelectionResult or MultiLabelResult
    ax : matplotlib Axes, optional
    max_features : int
        Show at most this many features (the best ranked).
    value : {'criterion', 'relevance'}, default 'criterion'
        ``'criterion'``: what the method ranked by.  For a greedy method (mifs, mifs_u, mrmr, jmi, cmim,
        cmqfs) the criterion (``J``, CMQFS's ``w``) of each feature at the step that chose it, the
        features of the path in step order (the candidates never chosen have no criterion and are named
        under the axis); for the other methods the score of every candidate.  ``'relevance'`` (greedy
        methods only): the score of the path's first step of every candidate (I(X;C), CMQFS's Q), in
        rank order -- a feature chosen late for its redundancy can stand lower than one not chosen.

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ValueError
        For ``value`` not one of 'criterion', 'relevance', or 'relevance' for a method that is not greedy.
    """
    from matplotlib.patches import Patch

    drawn, ylabel, xlabel, what, note = _bar_values(result, value)
    shown_values = drawn.iloc[:max_features]
    width = ax.figure.get_figwidth() if ax is not None else max(6.5 if what else 5.5, 0.28 * len(shown_values) + 2.5)
    # the notes under the axis, wrapped to the figure's width (about 12 characters an inch at 9 points)
    note_lines = [] if not note else [part for line in note.split("\n")
                                      for part in wrap_label(line, int(12 * width)).split("\n")]
    ax = axes_for(ax, (width, 4.4 + (0.5 if what else 0.0) + 0.18 * len(note_lines)))
    selected = set(result.selected)
    is_selected = np.array([name in selected for name in shown_values.index], dtype=bool)
    colors = np.where(is_selected, selected_color, other_color)
    values = shown_values.to_numpy(dtype=float)
    positions = np.arange(len(shown_values))
    finite = np.isfinite(values)
    ax.bar(positions[finite], values[finite], color=list(colors[finite]))
    ax.axhline(0.0, color="0.3", linewidth=0.6)
    _finite_limits(ax, np.append(values, 0.0), pad=0.06)
    low, high = ax.get_ylim()
    tiny = 0.015 * (high - low)
    # Undefined (NaN) and infinite scores have no bar height: a cross on the axis, labelled.
    for position, value, chosen in zip(positions[~finite], values[~finite], is_selected[~finite]):
        label = "NA" if np.isnan(value) else ("+inf" if value > 0 else "-inf")
        _mark(ax, position, label, selected_color if chosen else "0.3")
    # Selected features with a bar too small to see: a point at the value, and the value.
    for position, value in zip(positions[finite & is_selected], values[finite & is_selected]):
        if abs(value) < tiny:
            ax.plot([position], [value], marker="o", markersize=5, color=selected_color, linestyle="",
                    markeredgecolor="white", markeredgewidth=0.6, zorder=3)
            ax.annotate(format_number(value, 2), (position, value), xytext=(0, 6), textcoords="offset points",
                        ha="center", va="bottom", fontsize=7, color=selected_color, rotation=90)
    ax.set_xticks(positions)
    ax.set_xticklabels(shown_values.index, rotation=60, ha="right", fontsize=8)
    for tick, chosen in zip(ax.get_xticklabels(), is_selected):
        if chosen:
            tick.set_color(selected_color)
    ax.set_xlim(-0.7, len(shown_values) - 0.3)
    ax.set_ylabel(wrap_label(ylabel, 44), fontsize=9)
    if note_lines:
        ax.set_xlabel("\n".join([xlabel] + note_lines), fontsize=9)
    else:
        ax.set_xlabel(xlabel)
    plain_numbers(ax)
    if result.response is None:
        response = "no response"
    elif isinstance(result.response, str):
        response = f"response {result.response}"
    else:
        response = f"response {format_count(len(result.response), 'label')}"
    shown = "" if len(shown_values) == len(drawn) else f"; the best {len(shown_values)} shown"
    title = [f"{method_label(result.method)}: {len(result.selected)} of {format_count(len(result.scores), 'feature')} "
             f"selected", *([what] if what else []), f"{response}, n = {result.n}{shown}"]
    ax.set_title("\n".join(title), fontsize=10)
    handles = [Patch(color=selected_color, label=f"selected ({int(is_selected.sum())})")]
    if (~is_selected).any():
        handles.append(Patch(color=other_color, label=f"not selected ({int((~is_selected).sum())})"))
    ax.legend(handles=handles, fontsize=8, loc="best", framealpha=0.8)
    note = SCORE_NOTES.get(result.method)
    if note and (~is_selected).any():
        ax.text(0.99, 0.80, note, transform=ax.transAxes, ha="right", va="top", fontsize=7, color="0.3")
    ax.figure.tight_layout()
    return ax


def plot_null(null, observed, p_value, score_name, higher_is_better=True, title=None, ax=None, bins=40,
              response_type="class"):
    """Histogram of a permutation null distribution with the observed value and the p-value.

    Parameters
    ----------
    null : ndarray of float, shape (B,)
        The score under each permutation.
    observed : float
        The score on the data (a vertical line; a cross on the axis when not finite).
    p_value : float
    score_name : str
        The method's score name (the x label, with its direction).
    higher_is_better : bool
    title : str, optional
    ax : matplotlib Axes, optional
    bins : int
    response_type : {'class', 'continuous'}
        The response, for the name of the score (see :func:`fstools.results.labels.score_names`).

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_for(ax, (6.0, 4.0))
    null = np.asarray(null, dtype=np.float64)
    finite = null[np.isfinite(null)]
    if finite.size:
        ax.hist(finite, bins=bins, color=OTHER_COLOR, edgecolor="white", linewidth=0.4,
                label=f"permuted ({null.shape[0]})")
    text = f"observed = {format_number(observed)}, p = {format_number(p_value, 3)}"
    if np.isfinite(observed):
        ax.axvline(observed, color=SELECTED_COLOR, linewidth=1.6, label=text)
    else:
        _mark(ax, finite.max() if finite.size else 0.0, "NA" if np.isnan(observed) else "inf", SELECTED_COLOR)
        ax.plot([], [], color=SELECTED_COLOR, label=text)
    ax.set_xlabel(wrap_label(score_label(score_name, higher_is_better, response_type), 50), fontsize=9)
    ax.set_ylabel("permutations")
    plain_numbers(ax, "x")
    ax.legend(fontsize=8, loc="best", framealpha=0.8)
    if title:
        ax.set_title(title, fontsize=10)
    ax.figure.tight_layout()
    return ax


def plot_path(steps, column, title=None, ax=None, note=None):
    """The criterion of the feature chosen at each greedy step, labelled by feature.

    Every step has a tick; a step whose criterion is not defined (CMQFS's first step, chosen by
    NQ alone) is marked "NA" on the axis instead of being left out silently.

    Parameters
    ----------
    steps : pandas.DataFrame
        One row per step with ``step``, ``feature`` and ``column``.
    column : str
        The criterion column.
    title : str, optional
    ax : matplotlib Axes, optional
    note : str, optional
        Shown under the line when a step has no value (why).

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_for(ax, (max(5.5, 0.3 * len(steps) + 2.5), 4.4))
    values = steps[column].to_numpy(dtype=float)
    step_numbers = steps["step"].to_numpy()
    ax.plot(step_numbers, values, marker="o", color="tab:blue")
    missing = ~np.isfinite(values)
    _finite_limits(ax, values)
    for step in step_numbers[missing]:
        _mark(ax, step, "NA", "0.3")
    xlabel = "step: feature chosen"
    if missing.any():
        text = (f"NA: {column} not defined at {noun_for(int(missing.sum()), 'step')} "
                + ", ".join(str(s) for s in step_numbers[missing]))
        xlabel += "\n" + wrap_label(text + (f": {note}" if note else ""), 70)
    ax.set_xticks(step_numbers)
    ax.set_xticklabels([f"{s}: {f}" for s, f in zip(step_numbers, steps["feature"])], rotation=60,
                       ha="right", fontsize=8)
    if len(step_numbers):
        ax.set_xlim(step_numbers.min() - 0.5, step_numbers.max() + 0.5)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_ylabel(wrap_label(record_label(column)), fontsize=9)
    plain_numbers(ax)
    ax.grid(alpha=0.3)
    if title:
        ax.set_title(title, fontsize=10)
    ax.figure.tight_layout()
    return ax


def plot_convergence(iterations, columns=None, title=None, ax=None, fig=None):
    """Per-iteration records of an iterative method, one panel each (the DFS paper's Fig. 6).

    Parameters
    ----------
    iterations : pandas.DataFrame
        One row per iteration, with ``iteration``.
    columns : sequence of str, optional
        The records to draw; default ``objective`` and ``divergence`` where present
        (DFS), else every other numeric column.
    title : str, optional
    ax : sequence of matplotlib Axes, optional
        One per column (a single Axes for one column).
    fig : matplotlib Figure, optional
        Draw the panels into this figure (cleared first).

    Returns
    -------
    matplotlib Figure
    """
    from matplotlib.ticker import MaxNLocator

    if columns is None:
        columns = [c for c in ("objective", "divergence") if c in iterations.columns]
        if not columns:
            columns = [c for c in iterations.columns
                       if c != "iteration" and np.issubdtype(iterations[c].dtype, np.number)]
    columns = list(columns)
    unknown = [c for c in columns if c not in iterations.columns]
    if unknown:
        raise ValueError(f"columns: {', '.join(map(repr, unknown))} not recorded; allowed: "
                         f"{', '.join(repr(c) for c in iterations.columns if c != 'iteration')}")
    axes = panels_for(len(columns), fig=fig, ax=ax, figsize=None if fig is not None else
                      (max(6.0, 4.4 * len(columns)), 3.8), what="column", names=columns)
    steps = iterations["iteration"].to_numpy()
    for axis, column in zip(axes, columns):
        values = iterations[column].to_numpy(dtype=float)
        shown = np.isfinite(values)
        axis.plot(steps[shown], values[shown], marker="o", markersize=3 if shown.sum() > 1 else 7,
                  color="tab:blue")
        axis.set_xlabel("iteration")
        if len(steps) <= 12:
            axis.set_xticks(steps)
        else:
            axis.xaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
        axis.set_ylabel(wrap_label(record_label(column), 30), fontsize=9)
        if len(steps):
            axis.set_xlim(steps.min() - 0.5, steps.max() + 0.5)
        constant = _finite_limits(axis, values)
        notes = []
        if shown.sum() == 1:
            notes.append(f"one value: {values[shown][0]:.6g} (iteration {steps[shown][0]})")
        elif constant:
            notes.append(f"constant: {values[shown][0]:.6g}")
        if (~shown).any():
            notes.append(f"NA (not defined) at {noun_for(int((~shown).sum()), 'iteration')} "
                         + ", ".join(str(s) for s in steps[~shown][:5])
                         + (", ..." if (~shown).sum() > 5 else ""))
        if notes:
            axis.text(0.98, 0.96, "\n".join(notes), transform=axis.transAxes, ha="right", va="top", fontsize=7,
                      color="0.3")
        plain_numbers(axis, "both")
        axis.grid(alpha=0.3)
    figure = axes[0].figure
    if ax is None:
        # The caller's own grid (ax=) keeps its layout and titles.
        if title:
            figure.suptitle(wrap_label(title, int(16 * figure.get_figwidth())), fontsize=10)
        figure.tight_layout()
    return figure


def plot_feature_vector_graph(x, y, edges, ax=None, class_names=None, title=None):
    """Draw a feature vector graph as in the CMQFS paper's Fig. 4.

    Samples are placed along the horizontal axis by feature value, one row per
    class, and joined by their edges: edges within a class arc above their row
    (grey), edges between classes cross the gap (black).

    Parameters
    ----------
    x : ndarray, shape (m,)
    y : ndarray of int, shape (m,)
        Class codes.
    edges : ndarray of int, shape (n_edges, 2)
    ax : matplotlib Axes, optional
    class_names : sequence of str, optional
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection
    from matplotlib.lines import Line2D

    ax = axes_for(ax, (6.0, 3.5))
    x = np.asarray(x, dtype=float)
    y = np.asarray(y)
    edges = np.asarray(edges, dtype=int).reshape(-1, 2)
    classes = np.unique(y)
    row = np.searchsorted(classes, y).astype(float)
    span = float(np.ptp(x)) or 1.0

    within = edges[y[edges[:, 0]] == y[edges[:, 1]]]
    between = edges[y[edges[:, 0]] != y[edges[:, 1]]]
    # Within-class edges as arcs (three-point polylines) so they do not hide on the row.
    lift = 0.35 * np.abs(x[within[:, 0]] - x[within[:, 1]]) / span
    arcs = np.stack([
        np.column_stack([x[within[:, 0]], row[within[:, 0]]]),
        np.column_stack([(x[within[:, 0]] + x[within[:, 1]]) / 2, row[within[:, 0]] + lift]),
        np.column_stack([x[within[:, 1]], row[within[:, 1]]]),
    ], axis=1)
    crossings = np.stack([np.column_stack([x[between[:, 0]], row[between[:, 0]]]),
                          np.column_stack([x[between[:, 1]], row[between[:, 1]]])], axis=1)
    ax.add_collection(LineCollection(arcs, colors="0.55", linewidths=0.3, alpha=0.5, zorder=1))
    ax.add_collection(LineCollection(crossings, colors="black", linewidths=0.4, alpha=0.6, zorder=1))

    palette = ["tab:red", "tab:blue", "tab:green", "tab:purple", "tab:brown", "tab:pink", "tab:olive",
               "tab:cyan"]
    handles = []
    for index, c in enumerate(classes):
        members = y == c
        label = class_names[int(c)] if class_names is not None else f"class {c}"
        color = palette[index % len(palette)]
        ax.scatter(x[members], row[members], s=14, color=color, zorder=2)
        handles.append(Line2D([], [], marker="o", linestyle="", color=color, label=label))
    handles.append(Line2D([], [], color="0.55", label=f"within class ({len(within)})"))
    handles.append(Line2D([], [], color="black", label=f"between classes ({len(between)})"))
    ax.set_yticks([])
    ax.set_ylim(-0.5, len(classes) - 0.5 + 0.45)
    ax.set_xlabel("feature value")
    ax.legend(handles=handles, fontsize=7, loc="upper left")
    if title:
        ax.set_title(title)
    plt.setp(ax.spines.values(), linewidth=0.5)
    return ax


# ---- comparisons of methods (fs.compare), critical difference diagrams, selection stability ----

__all__ += ["plot_comparison", "plot_critical_difference", "plot_selection_heatmap"]

_METHOD_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*", "<", ">", "h", "p")


def plot_comparison(frames, methods, ylabel="metric", band="sd", n_repeats=2, scale=1.0, titles=None,
                    ax=None, fig=None, offset=True):
    """A metric against the number of features, one line per method, with error bands.

    Parameters
    ----------
    frames : dict of str -> pandas.DataFrame
        Per data set, rows = feature counts, columns (method, 'mean' | 'sd') as
        :meth:`ComparisonResult.summary_frame` gives them.
    methods : list of str
        Line order (legend entries through :func:`fstools.results.labels.method_label`).
    ylabel : str
    band : {'sd', 'ci', None}
        ± sd, a 95 % t-interval of the mean of ``n_repeats`` values (sd / sqrt(n) x t), or none.
    scale : float
        Multiplies the values (100 for percent).
    titles : dict of str -> str, optional
        Per data set, the panel's title (default: the data set's name).
    ax : Axes or sequence of Axes, optional
        One per data set.
    fig : Figure, optional
        Several data sets: draw the panels into this figure.
    offset : bool
        Shift methods slightly along x so that equal points stay visible.

    Returns
    -------
    matplotlib Axes (one data set) or Figure (several, one panel each)
    """
    from scipy import stats

    names = list(frames)
    titles = dict(titles or {})
    if len(names) == 1 and fig is None:
        axes = [axes_for(np.ravel(np.asarray(ax, dtype=object))[0] if isinstance(ax, (list, tuple, np.ndarray))
                         and len(ax) == 1 else ax, (7.0, 4.6))]
    else:
        axes = panels_for(len(names), fig=fig, ax=ax, what="data set", names=names, columns=min(len(names), 2),
                          figsize=None if fig is not None else (6.8 * min(len(names), 2),
                                                                4.6 * ((len(names) + 1) // 2)))
    factor = 1.0
    if band == "ci":
        factor = stats.t.ppf(0.975, n_repeats - 1) / np.sqrt(n_repeats) if n_repeats > 1 else np.nan
    for axis, name in zip(axes, names):
        frame = frames[name]
        ks = np.asarray(frame.index, dtype=float)
        step = np.min(np.diff(ks)) if len(ks) > 1 else 1.0
        shifts = np.linspace(-0.12, 0.12, len(methods)) * step if offset and len(methods) > 1 else \
            np.zeros(len(methods))
        for index, (method, shift) in enumerate(zip(methods, shifts)):
            mean = scale * frame[(method, "mean")].to_numpy(dtype=float)
            line, = axis.plot(ks + shift, mean, marker=_METHOD_MARKERS[index % len(_METHOD_MARKERS)], markersize=4,
                              linewidth=1.3, label=method_label(method))
            if band is not None:
                half = factor * scale * frame[(method, "sd")].to_numpy(dtype=float)
                if np.any(np.isfinite(half)):
                    axis.fill_between(ks + shift, mean - half, mean + half, color=line.get_color(), alpha=0.15,
                                      linewidth=0)
        if len(ks) <= 20:
            axis.set_xticks(ks)
            axis.set_xticklabels([str(int(k)) for k in ks])
        axis.set_xlabel("number of features (top of each ranking)")
        axis.set_ylabel(ylabel)
        plain_numbers(axis)
        title = titles.get(name, name)
        if band is not None:
            title += "\nband: " + ("± sd over the repeats" if band == "sd" else "95% CI of the mean")
        axis.set_title(title, fontsize=9)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8, ncol=2 if len(methods) > 4 else 1)
    axes[0].figure.tight_layout()
    return axes[0] if len(names) == 1 and fig is None else axes[0].figure


def plot_critical_difference(mean_ranks, critical_difference, alpha=0.05, ax=None, title=None):
    """Critical difference diagram (Demsar 2006, Fig. 1).

    The methods on an axis of mean ranks (1 = best, on the left); methods whose mean ranks
    differ by less than the critical difference are joined by a thick bar; the CD is drawn
    above the axis.

    Parameters
    ----------
    mean_ranks : pandas.Series
        Method -> mean rank.
    critical_difference : float
    alpha : float
    ax : matplotlib Axes, optional
    title : str, optional
        Default: what the ranks and bars mean; :meth:`FriedmanResult.plot` adds the data sets,
        classifier and metric.

    Returns
    -------
    matplotlib Axes
    """
    import pandas as pd

    ranks = pd.Series(mean_ranks, dtype=float).sort_values(kind="stable")
    k = len(ranks)
    ax = axes_for(ax, (7.5, 1.6 + 0.32 * k))
    low, high = 1.0, float(max(k, 2))
    ax.hlines(0.0, low, high, color="black", linewidth=1.0)
    for tick in range(1, int(high) + 1):
        ax.vlines(tick, 0.0, 0.12, color="black", linewidth=0.8)
        ax.text(tick, 0.2, str(tick), ha="center", va="bottom", fontsize=8)
    ax.text((low + high) / 2, 0.45, "mean rank (1 = best)", ha="center", va="bottom", fontsize=8, color="0.3")
    # Critical difference, above the axis.
    ax.hlines(0.85, low, low + critical_difference, color="tab:red", linewidth=2.0)
    ax.text(low + critical_difference / 2, 0.95, f"CD = {critical_difference:.3g} (α = {alpha:g})",
            ha="center", va="bottom", fontsize=8, color="tab:red")
    # Methods: the better half labelled on the left, the rest on the right.
    half = (k + 1) // 2
    for i, (method, rank) in enumerate(ranks.items()):
        left = i < half
        depth = -0.5 - 0.35 * (i if left else k - 1 - i)
        x_text = low - 0.3 if left else high + 0.3
        ax.plot([rank, rank, x_text], [0.0, depth, depth], color="0.3", linewidth=0.8)
        ax.text(x_text + (-0.05 if left else 0.05), depth, f"{method_label(method)} ({rank:.2f})",
                ha="right" if left else "left", va="center", fontsize=8)
    # Groups not told apart: maximal runs whose span is below the CD.
    values = ranks.to_numpy()
    groups = []
    for i in range(k):
        j = i
        while j + 1 < k and values[j + 1] - values[i] < critical_difference:
            j += 1
        if j > i and not any(a <= i and j <= b for a, b in groups):
            groups.append((i, j))
    for level, (i, j) in enumerate(groups):
        y = -0.2 - 0.12 * level
        ax.hlines(y, values[i] - 0.03, values[j] + 0.03, color="black", linewidth=3.0)
    ax.set_xlim(low - 1.9, high + 1.9)
    ax.set_ylim(-0.6 - 0.35 * half, 1.35)
    ax.axis("off")
    legend = "bars join methods not significantly different (Nemenyi)"
    ax.set_title(f"{title}\n{legend}" if title else f"Mean ranks (1 = best); {legend}", fontsize=9)
    ax.figure.tight_layout()
    return ax


def plot_selection_heatmap(selections, frequency=None, ax=None, max_features=40, title=None):
    """Which features each bootstrap run selected: features (rows) x runs (columns).

    Parameters
    ----------
    selections : pandas.DataFrame of bool
        Runs x features (as :attr:`StabilityResult.selections`).
    frequency : pandas.Series, optional
        Feature -> selection frequency, used to order the rows (most often selected on top);
        default computed from ``selections``.
    max_features : int
        Show at most this many features (the most often selected).

    Returns
    -------
    matplotlib Axes
    """
    from matplotlib.colors import ListedColormap

    if frequency is None:
        frequency = selections.mean(axis=0).sort_values(ascending=False, kind="stable")
    shown = list(frequency.index[:max_features])
    matrix = selections[shown].to_numpy(dtype=float).T
    created = ax is None
    ax = axes_for(ax, (min(12.0, 3.0 + 0.06 * matrix.shape[1]) + 2.0, 1.2 + 0.24 * len(shown)))
    ax.imshow(matrix, aspect="auto", interpolation="nearest", cmap=ListedColormap(["white", "tab:blue"]),
              vmin=0, vmax=1, extent=(0.5, matrix.shape[1] + 0.5, len(shown) - 0.5, -0.5))
    ax.set_yticks(np.arange(len(shown)))
    ax.set_yticklabels([f"{name} ({frequency[name]:.0%})" for name in shown], fontsize=7)
    ax.set_xlabel(f"bootstrap run (1..{matrix.shape[1]})")
    ax.set_ylabel("feature (selection frequency)")
    if len(frequency) > len(shown):
        ax.text(1.0, -0.12, f"{format_count(len(frequency) - len(shown), 'less often selected feature')} not shown",
                transform=ax.transAxes, ha="right", va="top", fontsize=7, color="0.4")
    if title:
        ax.set_title(title, fontsize=9)
    if created:
        ax.figure.tight_layout()
    return ax
