"""The method registry as a table for people: :func:`list_methods`."""
import pandas as pd

from fstools.methods.registry import NA_ACTIONS, RESPONSE_TYPES, registered_methods


def list_methods():
    """The registry as a DataFrame: name, description, capabilities, responses, na_action, parameters
    (with defaults), reference.

    ``responses`` lists the response types the method takes ("class", "continuous"); an
    unsupervised method (e.g. ``laplacian``) reads "any (or none)", a multi-label method
    "labels" (a 0/1 label matrix).  ``na_action`` lists the values of ``fs.select``'s
    ``na_action`` the method takes: every method takes "drop" (incomplete rows dropped, counted)
    and "raise"; a method that can use incomplete rows also lists "level" (a missing value is a
    level of its own) or "pass" (the rows are kept and the method treats missing values itself,
    e.g. ReliefF's missing-value diff).
    """
    rows = []
    for spec in registered_methods():
        rows.append({
            "name": spec.name,
            "description": spec.description,
            "capabilities": ", ".join(sorted(spec.capabilities)),
            "responses": _responses(spec),
            "na_action": ", ".join(value for value in NA_ACTIONS
                                   if value in ("drop", "raise") or value in spec.missing),
            "parameters": ", ".join(f"{p.name}={p.default!r}" for p in spec.parameters),
            "reference": spec.reference,
        })
    return pd.DataFrame(rows, columns=["name", "description", "capabilities", "responses", "na_action",
                                       "parameters", "reference"])


def _responses(spec):
    """The response types of a method in words, for the table."""
    if "multilabel" in spec.capabilities:
        return "labels"
    if not spec.supervised:
        return "any (or none)"
    return ", ".join(kind for kind in RESPONSE_TYPES if kind in spec.responses)
