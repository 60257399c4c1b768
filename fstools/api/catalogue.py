"""The method registry as a table for people: :func:`list_methods`."""
import pandas as pd

from fstools.methods.registry import RESPONSE_TYPES, registered_methods


def list_methods():
    """The registry as a DataFrame: name, description, capabilities, responses, parameters (with defaults).

    ``responses`` lists the response types the method takes ("class", "continuous"); an
    unsupervised method (e.g. ``laplacian``) reads "any (or none)", a multi-label method
    "labels" (a 0/1 label matrix).
    """
    rows = []
    for spec in registered_methods():
        rows.append({
            "name": spec.name,
            "description": spec.description,
            "capabilities": ", ".join(sorted(spec.capabilities)),
            "responses": _responses(spec),
            "parameters": ", ".join(f"{p.name}={p.default!r}" for p in spec.parameters),
            "reference": spec.reference,
        })
    return pd.DataFrame(rows, columns=["name", "description", "capabilities", "responses", "parameters",
                                       "reference"])


def _responses(spec):
    """The response types of a method in words, for the table."""
    if "multilabel" in spec.capabilities:
        return "labels"
    if not spec.supervised:
        return "any (or none)"
    return ", ".join(kind for kind in RESPONSE_TYPES if kind in spec.responses)
