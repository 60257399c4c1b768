"""What the command-line tests share: run ``fstools`` in-process and check a one-line error."""
from fstools.cli import main


def run(capsys, *argv):
    """``main(argv)`` with every argument as a string: (status, stdout, stderr)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_error_line(err):
    """The error is one 'fstools: error: ...' line, with no traceback."""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("fstools: error: ") and lines[0] != "fstools: error: ", err
    assert "Traceback" not in err
