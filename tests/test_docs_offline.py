"""The offline check of the documentation site (.ci/check_docs_offline.py) on tiny pages.

A page fails when it loads a script, a style sheet or a preloaded script/style/font from a
remote URL, or has math without a local MathJax script; a link a reader follows
(``<a href="https://...">``) is fine.  The real site is checked by stage 5 of .ci/run.
"""
import importlib.util
from pathlib import Path

import pytest

CHECKER = Path(__file__).resolve().parent.parent / ".ci" / "check_docs_offline.py"


@pytest.fixture(scope="module")
def checker():
    spec = importlib.util.spec_from_file_location("check_docs_offline", CHECKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def site(tmp_path, pages, mathjax=False):
    """A site folder under ``tmp_path`` with ``pages`` ({relative path: <head> and <body> HTML})."""
    root = tmp_path / "html"
    for name, html in pages.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"<!DOCTYPE html><html><head><title>t</title>{html}</body></html>",
                        encoding="utf-8")
    if mathjax:
        (root / "_static" / "mathjax").mkdir(parents=True)
        (root / "_static" / "mathjax" / "tex-chtml.js").write_text("// MathJax", encoding="utf-8")
    return root


def run(checker, root, capsys):
    status = checker.main(["check_docs_offline.py", str(root)])
    return status, capsys.readouterr()


def test_remote_script_fails(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '<script src="https://cdn.example.org/lib.js"></script>'
                                         "</head><body><p>text</p>"})
    status, out = run(checker, root, capsys)
    assert status == 1
    assert "index.html: remote script: https://cdn.example.org/lib.js" in out.out


def test_local_script_and_style_pass(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '<script src="_static/doctools.js"></script>'
                                         '<link rel="stylesheet" href="_static/theme.css" />'
                                         "</head><body><p>text</p>"})
    status, out = run(checker, root, capsys)
    assert status == 0, out
    assert "1 pages" in out.out


def test_remote_link_a_reader_follows_is_fine(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '<link rel="next" href="https://example.org/next.html" />'
                                         '</head><body><a href="https://numpy.org/doc/stable/">'
                                         "NumPy</a>"})
    status, out = run(checker, root, capsys)
    assert status == 0, out


@pytest.mark.parametrize("tag, what", [
    ('<link rel="stylesheet" href="https://cdn.example.org/a.css" />', "stylesheet"),
    ('<link href="//cdn.example.org/a.css" rel="stylesheet" />', "stylesheet"),
    ('<link rel="preload" as="font" href="https://fonts.example.org/f.woff2" />', "preload (font)"),
    ('<link rel="preload" as="script" href="http://cdn.example.org/a.js" />', "preload (script)"),
    ('<SCRIPT SRC="HTTPS://cdn.example.org/a.js"></SCRIPT>', "script"),
])
def test_remote_style_sheets_preloads_and_fonts_fail(checker, tmp_path, capsys, tag, what):
    root = site(tmp_path, {"sub/page.html": f"{tag}</head><body><p>text</p>"})
    status, out = run(checker, root, capsys)
    assert status == 1
    assert f"page.html: remote {what}:" in out.out
    assert str(Path("sub") / "page.html") in out.out


def test_preloaded_image_is_fine(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '<link rel="preload" as="image" href="https://example.org/a.png" />'
                                         "</head><body><p>text</p>"})
    assert run(checker, root, capsys)[0] == 0


def test_math_needs_a_local_mathjax(checker, tmp_path, capsys):
    body = '</head><body><div class="math notranslate nohighlight">\\[x^2\\]</div>'
    root = site(tmp_path, {"index.html": body})
    status, out = run(checker, root, capsys)
    assert status == 1
    assert "index.html: has math but no local MathJax script" in out.out

    local = site(tmp_path / "local", {"methods/page.html": '<script defer="defer" src="../_static/mathjax/'
                                                           f'tex-chtml.js?v=1"></script>{body}'},
                 mathjax=True)
    assert run(checker, local, capsys)[0] == 0

    missing = site(tmp_path / "missing", {"page.html": '<script src="_static/mathjax/tex-chtml.js">'
                                                       f"</script>{body}"})
    status, out = run(checker, missing, capsys)
    assert status == 1 and "is not a file of the site" in out.out


def test_math_from_a_cdn_fails(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '<script src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/'
                                         'tex-chtml.js"></script></head><body>'
                                         '<span class="math notranslate nohighlight">\\(x\\)</span>'})
    status, out = run(checker, root, capsys)
    assert status == 1
    assert "remote script" in out.out and "no local MathJax script" in out.out


def test_page_without_math_needs_no_mathjax(checker, tmp_path, capsys):
    root = site(tmp_path, {"index.html": '</head><body><p class="mathematics">no math</p>'})
    assert run(checker, root, capsys)[0] == 0


def test_bad_argument(checker, tmp_path, capsys):
    assert checker.main(["check_docs_offline.py", str(tmp_path / "absent")]) == 2
    assert checker.main(["check_docs_offline.py"]) == 2
