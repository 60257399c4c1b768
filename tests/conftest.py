import os

import matplotlib

matplotlib.use("Agg")
os.environ.setdefault("FSTOOLS_QUICK", "1")
