"""Source titles written to become a link somewhere else, and URLs that are awkward in Markdown.

A source's title is whatever the page says it is. Each title below tries one
way out of a Markdown link text (an escaped backslash before ``]``, an
autolink, a code span, an image, a nested link) towards ``PHISHING_HOST``;
each URL is a real-world shape (parentheses, a space, quotes) that a naive
link destination gets wrong. Wherever a report is shown, each source must be
one link, to its own URL, showing its title as written.
"""

from __future__ import annotations

from shared.core.source_models import Source

PHISHING_HOST = "phish.example"

TITLES = (
    "GIL notes\\](https://phish.example/login) x",
    "GIL notes\\\\](https://phish.example/login2) x",
    "Threads <https://phish.example/autolink> explained",
    "Code `](https://phish.example/code)` spans",
    "![pixel](https://phish.example/pixel.png) images",
    "[inner](https://phish.example/nested) links",
    "*GIL* & _threads_ ~~old~~ <b>bold</b> [1]",
)
URLS = (
    "https://docs.example/gil",
    "https://en.wikipedia.org/wiki/Global_interpreter_lock_(CPython)",
    "https://docs.example/a page",
    "https://docs.example/a)b",
    'https://docs.example/q?x=<1>&y="2"',
    "https://docs.example/back\\slash",
    "https://docs.example/plain",
)


def hostile_sources() -> list[Source]:
    """One source per hostile title, numbered 1…n, each on a legitimate URL."""
    return [
        Source(n=n, url=url, title=title, tier=2)
        for n, (title, url) in enumerate(zip(TITLES, URLS, strict=True), start=1)
    ]
