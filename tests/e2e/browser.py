"""A real browser for the web page's tests: Playwright driving Debian's Chromium.

Fixtures (a pytest plugin, loaded by ``tests/conftest.py``): ``browser``, one
Chromium per test module, and ``open_page``, a fresh context (own storage,
downloads accepted) per page opened. Not one browser per session: while
Playwright's sync API is open it leaves its event loop marked running in the
main thread, and every later test that calls ``asyncio.run`` would fail.

No browser is downloaded: Playwright launches the system ``chromium``
(``make system-deps`` installs it). Without it the tests skip, which fails
a CI run (``tests/ci_skip_policy.py``), so CI cannot pass without a browser.

``watch`` records what would betray an attack or a broken page: dialogs
(``alert`` and friends, dismissed), uncaught script errors, console errors
(a Content-Security-Policy violation is one), and every request's URL and
headers, so a test can tell where a key travelled.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
RUN_S = 120_000  # ms, Playwright's unit: an offline deep research on a small corpus takes seconds


@dataclass
class Watched:
    dialogs: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    requests: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def assert_clean(self, expected_http: tuple[int, ...] = ()) -> None:
        """No dialog, no script error, no console error but the HTTP answers expected."""
        assert self.dialogs == [], f"a dialog opened: {self.dialogs}"
        assert self.page_errors == [], f"a script on the page failed: {self.page_errors}"
        errors = [
            e
            for e in self.console_errors
            if not any(f"status of {status} " in e for status in expected_http)
        ]
        assert errors == [], f"the console reported errors: {errors}"


def watch(page) -> Watched:
    seen = Watched()

    def on_dialog(dialog) -> None:
        seen.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: seen.page_errors.append(str(error)))
    page.on(
        "console",
        lambda msg: seen.console_errors.append(msg.text) if msg.type == "error" else None,
    )
    page.on("request", lambda req: seen.requests.append((req.url, req.headers)))
    return seen


@pytest.fixture(scope="module")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        pytest.skip("no chromium: `make system-deps` installs Debian's chromium package")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM)
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser) -> Iterator[Callable[..., tuple]]:
    contexts = []

    def open_(url: str, **context_options) -> tuple:
        """A new browser context (own storage) on ``url``: (page, what was watched)."""
        context = browser.new_context(accept_downloads=True, **context_options)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(RUN_S)
        seen = watch(page)
        page.goto(url)
        return page, seen

    yield open_
    for context in contexts:
        context.close()


# Contrast ratio (WCAG 2) of an element's text against the first opaque background
# behind it; run in the page for each selector given.
CONTRAST_JS = """
(selectors) => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  return selectors.map((selector) => {
    const el = document.querySelector(selector);
    const a = lum(rgb(getComputedStyle(el).color)), b = lum(background(el));
    return [selector, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
  });
}
"""
