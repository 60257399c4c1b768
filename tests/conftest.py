import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("FSTOOLS_QUICK", "1")


import pytest  # noqa: E402


@pytest.fixture
def parallel_everywhere(monkeypatch):
    """Run every kernel call threaded, however small the data (the thread-invariance tests)."""
    from fstools.core import parallel as _parallel

    monkeypatch.setattr(_parallel, "MIN_PARALLEL_WORK", 0)
    monkeypatch.setattr(_parallel, "MIN_PARALLEL_STEP_WORK", 0)
