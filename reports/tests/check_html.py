#!/usr/bin/env python3
"""check_html.py FILE CELLS

Parses the HTML report with html.parser and checks: exactly one <script>
element (the report's own, with a nonce) and no other active or fetching
element (img, iframe, object, embed, link, base, form...), no event-handler
or src attribute anywhere, and CELLS <td class="cell"> elements inside
<table id="matrix">, each with data-verdict and data-scenario.  A break-out
from an escaped text or attribute would show up here as an extra element or
attribute.  Exit 0 when all hold."""
import sys
from html.parser import HTMLParser

BANNED = {"img", "iframe", "object", "embed", "link", "base", "form", "frame",
          "audio", "video", "source", "meta-refresh"}


class Check(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.errors = []
        self.scripts = 0
        self.cells = 0
        self.in_matrix = 0
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for name, _ in attrs:
            if name.startswith("on") or name in ("src", "srcdoc", "formaction"):
                self.errors.append("attribute %s on <%s>" % (name, tag))
        if tag in BANNED:
            self.errors.append("element <%s>" % tag)
        if tag == "meta" and a.get("http-equiv", "").lower() == "refresh":
            self.errors.append("meta refresh")
        if tag == "script":
            self.scripts += 1
            if not a.get("nonce"):
                self.errors.append("script without nonce")
        if tag == "table" and a.get("id") == "matrix":
            self.in_matrix = 1
        elif tag == "table" and self.in_matrix:
            self.in_matrix += 1
        if tag == "td" and self.in_matrix and "cell" in (a.get("class") or "").split():
            self.cells += 1
            if not a.get("data-verdict") or not a.get("data-scenario"):
                self.errors.append("cell without data-verdict/data-scenario")

    def handle_endtag(self, tag):
        if tag == "table" and self.in_matrix:
            self.in_matrix -= 1


def main():
    path, cells = sys.argv[1], int(sys.argv[2])
    c = Check()
    with open(path, encoding="utf-8") as f:
        c.feed(f.read())
    c.close()
    if c.scripts != 1:
        c.errors.append("%d script elements" % c.scripts)
    if c.cells != cells:
        c.errors.append("%d matrix cells, expected %d" % (c.cells, cells))
    for e in c.errors:
        print("bad: " + e)
    sys.exit(1 if c.errors else 0)


if __name__ == "__main__":
    main()
