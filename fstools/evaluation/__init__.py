"""Layer 7, the papers' evaluation protocols: :func:`compare` and its result, selection stability,
online (prequential / hold-out) evaluation, metrics, and the 1-NN and ML-kNN classifiers.
"""
