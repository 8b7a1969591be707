"""Launch Debian's Chromium through Playwright (no browser download), for browser tests."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@contextmanager
def chromium_page(viewport=(1280, 900), enforce_csp: bool = False):
    """A fresh page in headless Chromium; fails loudly when chromium is not installed.

    Pages' Content-Security-Policy forbids eval, which Playwright's polling `wait_for_function` uses: tests bypass
    it unless they check the policy itself (tests/test_browser_csp.py, which visits every main page under it)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    assert executable, "chromium is not installed: run `make deps`"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": viewport[0], "height": viewport[1]}, bypass_csp=not enforce_csp)
            yield page
        finally:
            browser.close()


def log_in(page, base_url: str, username: str, password: str, next_path: str = "/") -> None:
    page.goto(f"{base_url}/login/?next={next_path}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")


def scroll_until_drawn(page, count: int, timeout_s: float = 40.0) -> None:
    """Scroll down the page a screen at a time (charts are drawn as they come near the view) until `count`
    charts are drawn, then back to the top."""
    import time

    deadline = time.monotonic() + timeout_s
    while page.evaluate("document.querySelectorAll('canvas[data-points]').length") < count:
        assert time.monotonic() < deadline, f"fewer than {count} charts were drawn after scrolling the page"
        page.evaluate("window.scrollBy(0, window.innerHeight / 2)")
        page.wait_for_timeout(100)
    page.evaluate("window.scrollTo(0, 0)")
