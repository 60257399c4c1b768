"""Layer 5, results and their presentation: the result classes (one base class), summary tables
(text / HTML / LaTeX), univariate tests, diagnostics and plotting (matplotlib, imported lazily).
"""
