"""Plots (matplotlib, imported only when a plot is asked for)."""
import numpy as np

__all__ = ["plot_scores", "plot_feature_vector_graph"]


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
    ax.bar(positions, np.nan_to_num(values), color=colors)
    ax.set_xticks(positions)
    ax.set_xticklabels(scores.index, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(result._spec.score_name)
    ax.set_title(f"{result.method}: {len(result.selected)} selected (red) of {len(result.scores)}")
    ax.axhline(0.0, color="0.3", linewidth=0.6)
    ax.figure.tight_layout()
    return ax


def plot_feature_vector_graph(x, y, edges, ax=None, class_names=None, title=None):
    """Draw a feature vector graph as in the CMQFS paper's Fig. 4.

    Samples are placed along the horizontal axis by feature value, one line per
    class, and joined by their edges (within-class grey, between-class orange).

    Parameters
    ----------
    x : ndarray, shape (m,)
    y : ndarray of int, shape (m,)
    edges : ndarray of int, shape (n_edges, 2)
    """
    import matplotlib.pyplot as plt

    ax = _axes(ax, (6.0, 3.5))
    x = np.asarray(x, dtype=float)
    y = np.asarray(y)
    classes = np.unique(y)
    # One horizontal line per class; edges between classes cross the gap.
    height = np.searchsorted(classes, y).astype(float)
    for i, j in np.asarray(edges, dtype=int).reshape(-1, 2):
        same = y[i] == y[j]
        ax.plot([x[i], x[j]], [height[i], height[j]], color="0.6" if same else "tab:orange",
                linewidth=0.3, alpha=0.5, zorder=1)
    colors = plt.get_cmap("tab10")
    for c in classes:
        members = y == c
        label = class_names[int(c)] if class_names is not None else f"class {c}"
        ax.scatter(x[members], height[members], s=14, color=colors(int(c) % 10), label=label, zorder=2)
    ax.set_yticks([])
    ax.set_xlabel("feature value")
    ax.legend(fontsize=8, loc="best")
    if title:
        ax.set_title(title)
    return ax
