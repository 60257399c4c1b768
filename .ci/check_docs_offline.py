"""Check that a built documentation site works offline.

    python .ci/check_docs_offline.py HTML_DIR

Scans every ``.html`` file under HTML_DIR and fails (exit status 1, one line per problem:
page, then what is wrong) when a page

* loads a script (``<script src=...>``), a style sheet (``<link rel="stylesheet" href=...>``) or
  a preloaded script, style or font (``<link rel="preload"|"modulepreload" href=...>``) from a
  remote ``http(s)://`` or protocol-relative ``//`` URL: without a network the page would show
  unstyled, without its scripts, or with raw LaTeX;
* has math (an element of class ``math``) but no local MathJax script (a ``<script src=...>``
  with a relative URL whose file name starts with ``tex-`` or ``mathjax``, as
  sphinx-mathjax-offline's ``_static/mathjax/tex-chtml.js``), or that script's file is not in
  HTML_DIR.

Links a reader follows (``<a href="https://...">``) are fine: they are not loaded with the page.
Exit status 0 with a one-line count otherwise; 2 for a bad argument.
"""
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

PRELOADED = {"script", "style", "font"}


def is_remote(url):
    """Whether ``url`` is fetched from another host (http, https or protocol-relative)."""
    url = url.strip()
    return url.startswith("//") or urlsplit(url).scheme.lower() in ("http", "https")


def is_mathjax(url):
    name = urlsplit(url.strip()).path.rsplit("/", 1)[-1].lower()
    return name.startswith(("tex-", "mathjax")) and name.endswith(".js")


class _Page(HTMLParser):
    """The remote resources, MathJax scripts and math elements of one page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.remote = []        # (what, url)
        self.mathjax = []       # local MathJax script URLs
        self.has_math = False

    def handle_starttag(self, tag, attrs):
        attrs = {name.lower(): (value or "") for name, value in attrs}
        if "math" in attrs.get("class", "").split():
            self.has_math = True
        if tag == "script" and attrs.get("src"):
            src = attrs["src"]
            if is_remote(src):
                self.remote.append(("script", src))
            elif is_mathjax(src):
                self.mathjax.append(src)
        elif tag == "link" and attrs.get("href"):
            rel = set(attrs.get("rel", "").lower().split())
            href = attrs["href"]
            if not is_remote(href):
                return
            if "stylesheet" in rel:
                self.remote.append(("stylesheet", href))
            elif rel & {"preload", "modulepreload"} and (
                    "modulepreload" in rel or attrs.get("as", "").lower() in PRELOADED):
                self.remote.append((f"preload ({attrs.get('as') or 'module'})", href))

    handle_startendtag = handle_starttag


def check_page(path, root):
    """The problems of the page at ``path`` (a file under the site's folder ``root``)."""
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    page.close()
    problems = [f"remote {what}: {url}" for what, url in page.remote]
    if page.has_math:
        if not page.mathjax:
            problems.append("has math but no local MathJax script")
        for src in page.mathjax:
            target = (path.parent / unquote(urlsplit(src).path)).resolve()
            if not target.is_file() or root.resolve() not in target.parents:
                problems.append(f"MathJax script {src} is not a file of the site")
    return problems


def main(argv):
    if len(argv) != 2 or not Path(argv[1]).is_dir():
        print(__doc__, file=sys.stderr)
        return 2
    root = Path(argv[1])
    pages = sorted(root.rglob("*.html"))
    failures = 0
    for path in pages:
        for problem in check_page(path, root):
            print(f"{path.relative_to(root)}: {problem}")
            failures += 1
    if failures:
        print(f"{failures} problem(s) in {len(pages)} pages: the site does not work offline",
              file=sys.stderr)
        return 1
    if not pages:
        print(f"{root}: no .html pages", file=sys.stderr)
        return 1
    print(f"{root}: {len(pages)} pages, no remote script, style sheet or font; math served locally")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
