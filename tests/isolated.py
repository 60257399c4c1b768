"""How the tests start Python in a subprocess: with the fstools the tests imported.

``python -c`` and ``python -m`` put the working directory first on ``sys.path``; run from a
source checkout that has not been built in place, that directory's uncompiled ``fstools``
would shadow the installed package.  The subprocess therefore runs outside the source tree,
with the imported package's parent folder on ``PYTHONPATH`` (an in-place build works too).
"""
import os
import tempfile
from pathlib import Path

import fstools


def subprocess_options(**env):
    """``cwd`` and ``env`` for ``subprocess.run`` / ``Popen``; ``env`` entries are added to os.environ."""
    variables = {**os.environ, **env}
    package_parent = str(Path(fstools.__file__).resolve().parent.parent)
    variables["PYTHONPATH"] = os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))
    return {"cwd": tempfile.gettempdir(), "env": variables}
