"""Check the built documentation as a person would see it (``make docs-check``).

Serves ``docs/_build/html`` on localhost and:

- follows every link of every page inside the site (``href`` and ``src``,
  fragments stripped) and fails on any that does not answer 200;
- opens the index, the gallery and each gallery page in headless Chromium
  (Debian's ``chromium`` and ``chromedriver``, through Selenium) and fails
  on any image that did not load (``naturalWidth`` 0) or a page whose
  gallery shows no figure;
- opens the benchmarks' result pages (``results/``) the same way, and fails
  on a figure of theirs that did not load;
- saves a screenshot of the index, of one gallery page and of one result
  page beside the site (``docs/_build/screenshots``).

Prints what it checked; exits 1 on the first kind of failure it finds.
"""

import functools
import http.server
import sys
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag, urljoin, urlparse

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# Chromium's own connections are refused by a closed network; these keep it
# from trying (and from waiting on them).
CHROMIUM_FLAGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,1600",
]


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def _serve(root):
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def site_pages(root):
    """The site's HTML pages (not the theme's templates under _static)."""
    return sorted(
        p for p in root.rglob("*.html") if p.relative_to(root).parts[0] != "_static"
    )


def broken_links(root, base):
    """Every internal link of every HTML page under ``root`` that does not
    answer 200, as (page, link) pairs; and the number of links checked."""
    seen, broken = {}, []
    for page in site_pages(root):
        url = urljoin(base, page.relative_to(root).as_posix())
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            target = urldefrag(urljoin(url, link))[0]
            if urlparse(target).netloc != urlparse(base).netloc:
                continue  # outside the site
            if target not in seen:
                try:
                    with urllib.request.urlopen(target) as response:
                        response.read()
                        seen[target] = response.status
                except urllib.error.HTTPError as error:
                    seen[target] = error.code
            if seen[target] != 200:
                broken.append((page.relative_to(root).as_posix(), link))
    return broken, len(seen)


def _browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


_SETTLED = """
return document.readyState === 'complete'
    && Array.from(document.images).every(img => img.complete);
"""
_IMAGES = """
return Array.from(document.images).map(
    img => [img.getAttribute('src'), img.complete && img.naturalWidth > 0]);
"""


def check_pages(base, pages, screenshots):
    """Open ``pages`` in headless Chromium: {page: (images, broken images)};
    screenshots of the pages named in ``screenshots`` (page -> file)."""
    from selenium.webdriver.support.ui import WebDriverWait

    results = {}
    driver = _browser()
    try:
        for page in pages:
            driver.get(urljoin(base, page))
            # Until the page has loaded and every image has finished (or
            # failed): the browser's verdict, not the HTML's.
            WebDriverWait(driver, 20).until(lambda d: d.execute_script(_SETTLED))
            images = driver.execute_script(_IMAGES)
            results[page] = (len(images), [src for src, ok in images if not ok])
            if page in screenshots:
                driver.save_screenshot(str(screenshots[page]))
    finally:
        driver.quit()
    return results


def main(site="docs/_build/html"):
    root = Path(site).resolve()
    if not (root / "index.html").exists():
        print(f"no built site at {root}: run `make docs` first", file=sys.stderr)
        return 1
    server, base = _serve(root)
    try:
        broken, checked = broken_links(root, base)
        print(f"{checked} internal links of {len(site_pages(root))} pages")
        gallery = sorted(
            p.relative_to(root).as_posix()
            for p in (root / "auto_examples").glob("plot_*.html")
        )
        shots = root.parent / "screenshots"
        shots.mkdir(exist_ok=True)
        # The benchmarks' result pages (docs/results/), whose figures are
        # files of benchmarks/results/ copied in by their includes.
        result_pages = sorted(
            p.relative_to(root).as_posix() for p in (root / "results").glob("*.html")
        )
        pages = [
            "index.html",
            "auto_examples/index.html",
            "api.html",
            "user_guide/report.html",
            *result_pages,
            *gallery,
        ]
        results = check_pages(
            base,
            pages,
            {
                "index.html": shots / "index.png",
                gallery[0]: shots / "gallery.png",
                "results/keel.html": shots / "results.png",
            },
        )
    finally:
        server.shutdown()
    failures = [f"broken link on {page}: {link}" for page, link in broken]
    for page, (count, missing) in results.items():
        print(f"{page}: {count} images, {len(missing)} not loaded")
        failures += [f"image not loaded on {page}: {src}" for src in missing]
        if page in gallery and count == 0:
            failures.append(f"gallery page {page} shows no figure")
    print(f"screenshots: {shots}")
    for failure in failures:
        print(failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
