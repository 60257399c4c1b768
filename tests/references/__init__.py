"""Slow, obviously-correct reference implementations used by the tests, one module per method family.

They share no code with fstools (nothing here imports it) and are written from the papers'
definitions; each module's docstring says which.

* :mod:`references.information` -- plug-in entropies, MI, CMI, the nine mu/sigma levels, the
  greedy information-theoretic selection (MIM, MIFS, MIFS-U, mRMR, JMI, CMIM);
* :mod:`references.cmqfs` -- the feature vector graph, its modularity and CMQFS;
* :mod:`references.similarity` -- Fisher score, Laplacian score, ReliefF;
* :mod:`references.statistical` -- chi-square;
* :mod:`references.passive_aggressive` -- the online PA family and SplitMix64;
* :mod:`references.discriminant` -- DFS, trace ratio, BAHSIC / HSIC, the redundancy rate;
* :mod:`references.multilabel` -- ELC, LLSF, the per-label baselines, multi-label metrics, ML-kNN.

The tests import them as ``from references.<family> import ...``: pytest puts ``tests/`` on
``sys.path`` (rootdir-relative "prepend" import mode, no ``__init__.py`` in ``tests/``), both in
the source tree and in a copy of ``tests/`` elsewhere.
"""
