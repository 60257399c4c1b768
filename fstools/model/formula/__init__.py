"""R-style model formulas on pandas DataFrames, in stages: R syntax -> terms -> rows -> design -> map.

:func:`parse_formula` (in :mod:`~fstools.model.formula.parse`) calls the stages in that order;
each is one module of this package.  The names that other modules import are handed on here.
"""
from fstools.model.formula.matrix_frame import matrix_model_frame, with_matrix_response
from fstools.model.formula.names import format_formula, label_name
from fstools.model.formula.new_data import term_frame
from fstools.model.formula.parse import ModelFrame, parse_formula
from fstools.model.formula.rows import MISSING_LEVEL, missing_predictor_notes, response_columns

__all__ = ["ModelFrame", "parse_formula", "matrix_model_frame", "with_matrix_response", "format_formula", "term_frame",
           "label_name", "missing_predictor_notes", "response_columns", "MISSING_LEVEL"]
