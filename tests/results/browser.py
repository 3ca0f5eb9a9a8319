"""browser.py — headless Chromium for the results-page tests: the page's DOM
after it has drawn (its #nb-page data- attributes) and screenshots, each
from a fresh profile, with no network, sync or component updates."""
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib
from html.parser import HTMLParser

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
         "--enable-logging=stderr", "--v=0"]


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    raise RuntimeError("chromium not found (Debian package chromium; tools/install-deps.sh installs it)")


def run(url, extra, timeout=120):
    profile = tempfile.mkdtemp(prefix="nb-chromium.")
    try:
        p = subprocess.run([chromium()] + FLAGS + ["--user-data-dir=" + profile] + extra + [url],
                           capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    # Chromium's log of the page's console: errors and uncaught exceptions.
    console = [l for l in p.stderr.splitlines() if "CONSOLE" in l and ("Uncaught" in l or ":ERROR:" in l)]
    return p.stdout, console


class _Attrs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.page = None
        self.charts = []
        self.missing = []
        self._in_missing = False
        self.first_col = []
        self._row = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id") == "nb-page":
            self.page = a
        if tag == "div" and "nb-chart" in (a.get("class") or "").split():
            self.charts.append(a)
        if tag == "td" and "nb-missing" in (a.get("class") or "").split():
            self._in_missing = True
        if tag == "table":
            self._results = "nb-results" in (a.get("class") or "").split()
        if tag == "tr":
            self._row = 0 if getattr(self, "_results", False) else None
        if tag == "td" and self._row is not None:
            self._row += 1
            self._col1 = self._row == 1

    def handle_endtag(self, tag):
        if tag == "table":
            self._results = False

    def handle_data(self, data):
        if self._in_missing:
            self.missing.append(data)
            self._in_missing = False
        if getattr(self, "_col1", False):
            self.first_col.append(data)
            self._col1 = False


def dom(path, fragment=""):
    """Loads the page; returns (the #nb-page attributes, chart divs, missing cells, table's first column, console errors)."""
    html, console = run("file://" + os.path.abspath(path) + fragment, ["--dump-dom"])
    p = _Attrs()
    p.feed(html)
    if p.page is None:
        raise AssertionError(f"{path}: no #nb-page in the DOM (the page did not load)")
    return p.page, p.charts, p.missing, p.first_col, console


def screenshot(path, png, fragment="", size=(1280, 900)):
    _, console = run("file://" + os.path.abspath(path) + fragment,
                     [f"--window-size={size[0]},{size[1]}", "--screenshot=" + os.path.abspath(png)])
    if not os.path.exists(png):
        raise AssertionError(f"{path}: chromium wrote no screenshot")
    return console


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB/RGBA PNG, unfiltered."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise AssertionError(f"{path}: not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise AssertionError(f"{path}: PNG colour type {ctype}, depth {depth} not handled")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


def ink(path):
    """(fraction of pixels that are not the background colour, number of distinct colours), on a sample."""
    width, height, bpp, rows = png_pixels(path)
    bg = rows[0][:bpp]
    colours, total, inked = set(), 0, 0
    for y in range(0, height, 3):
        row = rows[y]
        for x in range(0, width, 3):
            px = row[x * bpp:(x + 1) * bpp]
            total += 1
            if px != bg:
                inked += 1
            colours.add(px)
    return inked / total, len(colours)
