"""The method registry as a table for people: :func:`list_methods`."""
import pandas as pd

from fstools.methods.registry import registered_methods


def list_methods():
    """The registry as a DataFrame: name, description, capabilities, parameters (with defaults)."""
    rows = []
    for spec in registered_methods():
        rows.append({
            "name": spec.name,
            "description": spec.description,
            "capabilities": ", ".join(sorted(spec.capabilities)),
            "parameters": ", ".join(f"{p.name}={p.default!r}" for p in spec.parameters),
            "reference": spec.reference,
        })
    return pd.DataFrame(rows, columns=["name", "description", "capabilities", "parameters", "reference"])
