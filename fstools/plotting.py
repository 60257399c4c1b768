"""Plots (matplotlib, imported only when a plot is asked for)."""
import numpy as np

__all__ = ["plot_scores", "plot_path", "plot_feature_vector_graph"]


def _axes(ax, figsize):
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
    ax = _axes(ax, (max(5.0, 0.28 * len(scores) + 2.0), 4.0))
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
    ax = _axes(ax, (max(5.0, 0.3 * len(steps) + 2.0), 4.0))
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

    ax = _axes(ax, (6.0, 3.5))
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
