"""The web page: one static page and its assets, served by the app itself.

``GET /api/ui`` is the page, ``GET /api/ui/{asset}`` its scripts and styles
(``api/static/``, listed in ``ASSETS``; nothing else there is served). There
is no build step: plain HTML, CSS and ES modules, plus markdown-it vendored
as one file (``api/static/README.md`` says where it comes from). The page's
``{{max_agents.max}}``-style placeholders are filled with the research limits
(``shared.core.limits``) when it is first served, so its form enforces the API's bounds.

These two routes are the app's only anonymous ones, on purpose: they return
the same fixed files to everyone, carry no data and no secret, and the page
is useless without credentials, because every API call it makes goes to the
function-level routes with the user's own function key (typed into the page,
kept in ``sessionStorage``, sent as ``x-functions-key``) or with the
same-origin cookie of App Service authentication. Making the page itself
function-level would put the key in the page's URL (history, logs) to load a
file that holds nothing worth protecting.

A strict Content-Security-Policy (scripts and connections to this origin
only, no inline script) backs up the page's own escaping: report text and
source titles are untrusted, and even a mistake there could not run a script.
"""

from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path
from urllib.parse import urlsplit

import azure.durable_functions as df
import azure.functions as func

from api.errors import error_response
from api.transport import http_function
from shared.core.limits import LIMITS

bp = df.Blueprint()
STATIC = Path(__file__).with_name("static")
PAGE = "index.html"
_PLACEHOLDER = re.compile(r"\{\{(\w+)\.(min|max|range)\}\}")
ASSETS = {
    "app.css": "text/css",
    "app.js": "text/javascript",
    "ask.js": "text/javascript",
    "chain.js": "text/javascript",
    "client.js": "text/javascript",
    "collection_follow.js": "text/javascript",
    "collections.js": "text/javascript",
    "document_links.js": "text/javascript",
    "events.js": "text/javascript",
    "followup.js": "text/javascript",
    "history.js": "text/javascript",
    "notices.js": "text/javascript",
    "phases.js": "text/javascript",
    "progress.js": "text/javascript",
    "report.js": "text/javascript",
    "topics.js": "text/javascript",
    "waits.js": "text/javascript",
    "writing.js": "text/javascript",
    "markdown-it.min.mjs": "text/javascript",
}
CSP = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    # Revalidate every time (a cheap 304): a deployment shows its new page at once.
    "Cache-Control": "no-cache",
}


@bp.route(route="ui", methods=["GET"], auth_level=func.AuthLevel.ANONYMOUS)
@http_function
def web_page(req: func.HttpRequest) -> func.HttpResponse:
    url = urlsplit(req.url)
    if url.path.endswith("/"):  # /api/ui/ would resolve the page's relative URLs a level down
        location = same_site_path(url.path.rstrip("/")) + (f"?{url.query}" if url.query else "")
        headers = {**HEADERS, "Location": location}
        return func.HttpResponse(status_code=308, headers=headers)
    return _static(req, PAGE, "text/html")


@bp.route(route="ui/{asset}", methods=["GET"], auth_level=func.AuthLevel.ANONYMOUS)
@http_function
def web_asset(req: func.HttpRequest) -> func.HttpResponse:
    name = req.route_params.get("asset", "")
    if name not in ASSETS:
        return error_response(404, "not_found", f"no such file of the web page: {name!r}")
    return _static(req, name, ASSETS[name])


def same_site_path(path: str) -> str:
    """``path`` with exactly one leading slash: ``//host/x`` (or ``/\\host``) in a
    Location would send the browser to another site, so ``GET //api/ui/`` must not
    redirect there."""
    return "/" + path.lstrip("/\\")


def _static(req: func.HttpRequest, name: str, mimetype: str) -> func.HttpResponse:
    body, etag = _load(name)
    headers = {**HEADERS, "ETag": etag}
    if etag in (req.headers.get("If-None-Match") or ""):
        return func.HttpResponse(status_code=304, headers=headers)
    return func.HttpResponse(body, status_code=200, mimetype=mimetype, headers=headers)


@functools.cache
def _load(name: str) -> tuple[bytes, str]:
    """The file and its ETag, read once per worker (the files change only with a deployment)."""
    body = (STATIC / name).read_bytes()
    if name == PAGE:
        body = fill_limits(body.decode("utf-8")).encode("utf-8")
    return body, '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def fill_limits(page: str) -> str:
    """The page's ``{{max_agents.max}}``-style placeholders, filled from ``shared.core.limits``:
    the form shows and enforces the bounds the API checks, declared once."""
    limits = {limit.name: limit for limit in LIMITS}

    def value(match: re.Match) -> str:
        limit, part = limits[match[1]], match[2]
        if part == "range":
            return limit.range_text()
        bound = limit.low if part == "min" else limit.le
        return f"{bound:g}"

    return _PLACEHOLDER.sub(value, page)
