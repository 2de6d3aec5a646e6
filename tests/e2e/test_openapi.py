"""Schemathesis fuzzes devhost from the served OpenAPI document.

Every operation gets a bounded number of generated requests (positive data
for all of them, plus negative bodies for the two POSTs that take one). The
checks: no 5xx, and every response matches the document (documented status,
content type, headers, and JSON body schema). Session-scoped routes run twice:
with generated ids (404s) and with the id of a finished deep research, so the
200 shapes of status, report, PDF and events are exercised too (its DELETE
last, since it removes the session). Collection routes run the same way with an
existing collection holding an ingested Markdown document: generated multipart
uploads into it (schemathesis sends real file parts), the JSON ``urls`` form
(every generated URL pointed at loopback, which the SSRF guard refuses: a 422,
and no DNS lookup), reads of the document's original, and the DELETEs last.

It runs twice: with sign-in off (``AUTH_MODE=none``, the local default) and on
(``easyauth``, every request signed in as one person the way App Service
Authentication passes them, plus every operation once more signed out, so
the 401s are checked against the document as well).

Generation is derandomized and does not shrink, so a run is repeatable and
bounded; the figures are printed (run with ``-s`` to see them).
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from devhost.host import DevHost
from shared.core.config import Settings
from tests.e2e.web_host import wait_ingested
from tests.fakes.entra import easy_auth_headers

pytestmark = pytest.mark.e2e

EXAMPLES = 20
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# A loopback URL the SSRF guard refuses (not in WEBHOOK_ALLOWED_HOSTS): a 422 without DNS.
REFUSED_CALLBACK = "http://127.0.0.1:9/hook"
REFUSED_PAGE = "http://127.0.0.1:9/page-{n}"  # the same for a collection's {"urls": [...]}
UPLOADS = "/api/collections/{collection_id}/documents"
FINISHED_TIMEOUT = 120.0
# Deleting what the other plans read goes last: a document, then its collection, the session.
LAST = (
    "DELETE /api/collections/{collection_id}/documents/{document_id} [existing collection]",
    "DELETE /api/collections/{collection_id} [existing collection]",
    "DELETE /api/research/{session_id} [finished session]",
)


def keep_it_cheap(case: schemathesis.Case) -> None:
    """Generated starts must not block, call out, or look anything up on the network."""
    if not isinstance(case.body, dict):
        return
    if case.operation.path == UPLOADS and isinstance(case.body.get("urls"), list):
        case.body["urls"] = [REFUSED_PAGE.format(n=n) for n in range(len(case.body["urls"]))]
    if case.operation.path != "/api/research":
        return
    if "wait_seconds" in case.body:
        case.body["wait_seconds"] = 0
    if isinstance(case.body.get("callback_url"), str):
        case.body["callback_url"] = REFUSED_CALLBACK


def finished_deep_research(client: httpx.Client) -> str:
    body = {
        "query": "How do Python generator functions and the yield expression work?",
        "mode": "deep_research",
        "options": {"run_deep_search_first": False, "enable_clarifying_questions": False},
    }
    session_id = client.post("/api/research", json=body).json()["session_id"]
    deadline = time.monotonic() + FINISHED_TIMEOUT
    while time.monotonic() < deadline:
        status = client.get(f"/api/research/{session_id}").json()["status"]
        if status in {"completed", "failed"}:
            return session_id
        time.sleep(0.3)
    raise AssertionError("the seed deep research did not finish")


def ingested_collection(client: httpx.Client) -> tuple[str, str]:
    """A collection holding one ingested Markdown document: (collection_id, document_id)."""
    collection_id = client.post("/api/collections", json={"name": "fuzzed"}).json()["collection_id"]
    notes = ("notes.md", b"# Notes\n\nThe pump seal was replaced in May.\n", "text/markdown")
    upload = client.post(
        UPLOADS.format(collection_id=collection_id),
        files=[("file", notes)],
        headers={"X-Requested-With": "schemathesis"},
    )
    assert upload.status_code == 202, upload.text
    [document] = upload.json()["documents"]
    wait_ingested(client, f"/api/collections/{collection_id}", FINISHED_TIMEOUT)
    return collection_id, document["document_id"]


def fuzz(
    base_url: str,
    strategy: Any,
    label: str,
    examples: Counter,
    statuses: Counter,
    headers: dict[str, str] | None = None,
) -> str | None:
    """Run one bounded Hypothesis search; the failure text, or None."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        keep_it_cheap(case)
        examples[label] += 1
        response = case.call_and_validate(
            base_url=base_url, headers=headers, checks=CHECKS, timeout=60
        )
        statuses[response.status_code] += 1
        if label == f"POST {UPLOADS} [existing collection]":
            statuses[(case.media_type, response.status_code)] += 1

    try:
        run()
    except Exception as exc:  # schemathesis raises one grouped failure per search
        return f"{label}: {exc}"[:3000]
    return None


@pytest.fixture(params=["none", "easyauth"])
def auth_mode(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def signed_in(start_devhost, data_dir, auth_mode: str) -> Iterator[tuple[DevHost, dict]]:
    """A devhost in ``auth_mode`` and the headers of the person the requests come from."""
    settings = Settings(
        data_dir=data_dir,
        reasoner="offline",
        search_provider="local",
        auth_mode=auth_mode,
        website_auth_enabled=auth_mode == "easyauth",  # as App Service sets it with Easy Auth on
    )
    headers = (
        easy_auth_headers("f0220000-0000-4000-8000-000000000001") if auth_mode != "none" else {}
    )
    yield start_devhost(settings), headers


def test_schemathesis_finds_no_server_error_and_no_response_off_the_schema(signed_in):
    host, headers = signed_in
    with httpx.Client(base_url=host.url, headers=headers, timeout=30) as api:
        # from_dict of the served document: from_url would leave out the schema's own route.
        served = api.get("/api/openapi.json")
        assert served.status_code == 200
        schema = schemathesis.openapi.from_dict(served.json())
        session_id = finished_deep_research(api)
        collection_id, document_id = ingested_collection(api)
    existing = {"collection_id": collection_id, "document_id": document_id}
    base_url = host.url
    examples: Counter = Counter()
    statuses: Counter = Counter()
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]
    plans: list[tuple[str, Callable[[], Any], dict]] = []
    for op in operations:
        plans.append((op.label, lambda op=op: op.as_strategy(), headers))
        if headers:
            plans.append((f"{op.label} [signed out]", lambda op=op: op.as_strategy(), {}))
        takes_session = any(p.name == "session_id" for p in op.path_parameters)
        own = {p.name: existing[p.name] for p in op.path_parameters if p.name in existing}
        if "collection_id" in own:
            plans.append(
                (
                    f"{op.label} [existing collection]",
                    lambda op=op, own=own: op.as_strategy(path_parameters=own),
                    headers,
                )
            )
        if takes_session:
            fixed = {"session_id": session_id}
            plans.append(
                (
                    f"{op.label} [finished session]",
                    lambda op=op, fixed=fixed: op.as_strategy(path_parameters=fixed),
                    headers,
                )
            )
        if op.method.upper() == "POST" and op.body:
            fixed_ids = {"session_id": session_id} if takes_session else own
            extra = {"path_parameters": fixed_ids} if fixed_ids else {}
            plans.append(
                (
                    f"{op.label} [negative body]",
                    lambda op=op, extra=extra: op.as_strategy(GenerationMode.NEGATIVE, **extra),
                    headers,
                )
            )
    plans.sort(key=lambda plan: LAST.index(plan[0]) if plan[0] in LAST else -1)
    for label, strategy, plan_headers in plans:
        failure = fuzz(base_url, strategy(), label, examples, statuses, plan_headers)
        if failure:
            failures.append(failure)

    total = sum(examples.values())
    print(
        f"\nschemathesis: {len(operations)} operations, {len(plans)} searches, "
        f"{total} requests, {len(failures)} failing searches; statuses {dict(statuses)}"
    )
    for label, count in sorted(examples.items()):
        print(f"  {count:3d}  {label}")
    assert len(operations) == 32  # 24 + the 8 collection routes
    assert failures == [], "\n\n".join(failures)
    assert total >= 10 * len(plans) // 2  # the searches really ran
    assert statuses[200] and statuses[204] and statuses[404] and statuses[422]
    # into the existing collection: files stored and ingested; loopback URLs refused
    assert statuses[("multipart/form-data", 202)], statuses
    assert statuses[("application/json", 422)], statuses
    assert bool(statuses[401]) == bool(headers)  # signed-out requests, only with sign-in on


def test_the_served_document_is_the_committed_file(api):
    committed = json.loads((Path(__file__).resolve().parents[2] / "api/openapi.json").read_text())
    served = api.get("/api/openapi.json")
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("application/json")
    assert served.json() == committed
