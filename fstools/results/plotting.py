"""Plots (matplotlib, imported only when a plot is asked for)."""
import numpy as np

__all__ = ["plot_scores", "plot_path", "plot_convergence", "plot_feature_vector_graph"]


def axes_for(ax, figsize):
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    return ax


def plot_scores(result, ax=None, max_features=40, selected_color="tab:red", other_color="0.7"):
    """Bar chart of the score of each feature in rank order; selected features highlighted.

    Parameters
    ----------
    result : SelectionResult
    ax : matplotlib Axes, optional
    max_features : int
        Show at most this many features (the best ranked).

    Returns
    -------
    matplotlib Axes
    """
    scores = result.scores.iloc[:max_features]
    ax = axes_for(ax, (max(5.0, 0.28 * len(scores) + 2.0), 4.0))
    selected = set(result.selected)
    colors = [selected_color if name in selected else other_color for name in scores.index]
    values = scores["score"].to_numpy(dtype=float)
    positions = np.arange(len(scores))
    finite = np.isfinite(values)
    ax.bar(positions[finite], values[finite], color=[c for c, f in zip(colors, finite) if f])
    # Undefined (NaN) and infinite scores have no bar height: mark them on the axis instead.
    for position, value in zip(positions[~finite], values[~finite]):
        label = "NA" if np.isnan(value) else ("+inf" if value > 0 else "-inf")
        ax.annotate(label, (position, 0.0), ha="center", va="bottom", fontsize=7, color="0.3")
    ax.set_xticks(positions)
    ax.set_xticklabels(scores.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(result._spec.score_name)
    ax.set_title(f"{result.method}: {len(result.selected)} selected (red) of {len(result.scores)}")
    ax.axhline(0.0, color="0.3", linewidth=0.6)
    ax.figure.tight_layout()
    return ax


def plot_path(steps, column, title=None, ax=None):
    """The criterion of the feature chosen at each greedy step, labelled by feature.

    Parameters
    ----------
    steps : pandas.DataFrame
        One row per step with ``step``, ``feature`` and ``column``.
    column : str
        The criterion column.

    Returns
    -------
    matplotlib Axes
    """
    ax = axes_for(ax, (max(5.0, 0.3 * len(steps) + 2.0), 4.0))
    values = steps[column].to_numpy(dtype=float)
    ax.plot(steps["step"], values, marker="o", color="tab:blue")
    ax.set_xticks(steps["step"])
    ax.set_xticklabels([f"{s}: {f}" for s, f in zip(steps["step"], steps["feature"])], rotation=60,
                       ha="right", fontsize=8)
    ax.set_xlabel("step: feature chosen")
    ax.set_ylabel(column)
    if title:
        ax.set_title(title)
    ax.figure.tight_layout()
    return ax


#: Labels of the per-iteration records that plot_convergence knows (others are shown by name).
_CONVERGENCE_LABELS = {
    "objective": "objective",
    "divergence": "Div(k) (Eq. 33)",
    "trace_ratio": "trace ratio",
}


def plot_convergence(iterations, columns=None, title=None, ax=None):
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
        One per column.

    Returns
    -------
    ndarray of matplotlib Axes
    """
    import matplotlib.pyplot as plt
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
    if ax is None:
        _, axes = plt.subplots(1, len(columns), figsize=(4.2 * len(columns), 3.4), squeeze=False)
        axes = axes.ravel()
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object))
        if axes.size != len(columns):
            raise ValueError(f"ax: needs {len(columns)} Axes (one per column: {', '.join(columns)}); "
                             f"got {axes.size}")
    steps = iterations["iteration"].to_numpy()
    for axis, column in zip(axes, columns):
        values = iterations[column].to_numpy(dtype=float)
        shown = np.isfinite(values)
        axis.plot(steps[shown], values[shown], marker="o", markersize=3, color="tab:blue")
        axis.set_xlabel("iteration")
        axis.xaxis.set_major_locator(MaxNLocator(integer=True))
        axis.set_ylabel(_CONVERGENCE_LABELS.get(column, column))
        if len(steps):
            axis.set_xlim(steps.min() - 0.5, steps.max() + 0.5)
    if title:
        axes[0].figure.suptitle(title)
    axes[0].figure.tight_layout()
    return axes


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


def plot_comparison(frames, methods, ylabel="metric", band="sd", n_repeats=2, scale=1.0, title_suffix=None,
                    ax=None, offset=True):
    """A metric against the number of features, one line per method, with error bands.

    Parameters
    ----------
    frames : dict of str -> pandas.DataFrame
        Per data set, rows = feature counts, columns (method, 'mean' | 'sd') as
        :meth:`ComparisonResult.summary_frame` gives them.
    methods : list of str
        Line order.
    band : {'sd', 'ci', None}
        +- sd, a 95 % t-interval of the mean of ``n_repeats`` values (sd / sqrt(n) x t), or none.
    scale : float
        Multiplies the values (100 for percent).
    ax : Axes or sequence of Axes, optional
        One per data set.
    offset : bool
        Shift methods slightly along x so that equal points stay visible.

    Returns
    -------
    matplotlib Axes (one data set) or ndarray of Axes
    """
    import matplotlib.pyplot as plt
    from scipy import stats

    names = list(frames)
    if ax is None:
        columns = min(len(names), 2)
        rows = (len(names) + columns - 1) // columns
        _, axes = plt.subplots(rows, columns, figsize=(6.5 * columns, 4.2 * rows), squeeze=False)
        axes = axes.ravel()
        for extra in axes[len(names):]:
            extra.set_visible(False)
        axes = axes[:len(names)]
    else:
        axes = np.atleast_1d(np.asarray(ax, dtype=object))
        if axes.size != len(names):
            raise ValueError(f"ax: needs {len(names)} Axes (one per data set: {', '.join(names)}); got {axes.size}")
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
                              linewidth=1.3, label=method)
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
        title = name if not title_suffix else f"{name}: {title_suffix}"
        if band is not None:
            title += " (band: " + ("+- sd over repeats" if band == "sd" else "95% CI of the mean") + ")"
        axis.set_title(title, fontsize=10)
        axis.grid(alpha=0.3)
        axis.legend(fontsize=8, ncol=2 if len(methods) > 4 else 1)
    axes[0].figure.tight_layout()
    return axes[0] if len(axes) == 1 else axes


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

    Returns
    -------
    matplotlib Axes
    """
    import pandas as pd

    ranks = pd.Series(mean_ranks, dtype=float).sort_values(kind="stable")
    k = len(ranks)
    ax = axes_for(ax, (7.0, 1.2 + 0.32 * k))
    low, high = 1.0, float(max(k, 2))
    ax.hlines(0.0, low, high, color="black", linewidth=1.0)
    for tick in range(1, int(high) + 1):
        ax.vlines(tick, 0.0, 0.12, color="black", linewidth=0.8)
        ax.text(tick, 0.2, str(tick), ha="center", va="bottom", fontsize=8)
    # Critical difference, above the axis.
    ax.hlines(0.75, low, low + critical_difference, color="tab:red", linewidth=2.0)
    ax.text(low + critical_difference / 2, 0.85, f"CD = {critical_difference:.3g} (alpha = {alpha:g})",
            ha="center", va="bottom", fontsize=8, color="tab:red")
    # Methods: the better half labelled on the left, the rest on the right.
    half = (k + 1) // 2
    for i, (method, rank) in enumerate(ranks.items()):
        left = i < half
        depth = -0.5 - 0.35 * (i if left else k - 1 - i)
        x_text = low - 0.3 if left else high + 0.3
        ax.plot([rank, rank, x_text], [0.0, depth, depth], color="0.3", linewidth=0.8)
        ax.text(x_text + (-0.05 if left else 0.05), depth, f"{method} ({rank:.2f})", ha="right" if left else "left",
                va="center", fontsize=8)
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
    ax.set_xlim(low - 1.6, high + 1.6)
    ax.set_ylim(-0.6 - 0.35 * half, 1.2)
    ax.axis("off")
    ax.set_title(title or "Mean ranks (1 = best); bars join methods not significantly different (Nemenyi)",
                 fontsize=9)
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
        ax.text(1.0, -0.12, f"{len(frequency) - len(shown)} less often selected features not shown",
                transform=ax.transAxes, ha="right", va="top", fontsize=7, color="0.4")
    if title:
        ax.set_title(title, fontsize=9)
    if created:
        ax.figure.tight_layout()
    return ax
