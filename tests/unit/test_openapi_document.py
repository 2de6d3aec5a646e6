"""api/openapi.json is a valid OpenAPI 3.1 contract that cannot drift from the code.

Model-derived components are regenerated here from the pydantic models and
compared with the committed file; hand-written shapes (the session view, the
error body) are checked against what the code actually builds; every HTTP
route registered in function_app must be documented, and nothing else.
To update the file after a model change, run ``.venv/bin/python -m tests.generated``
(the failing test prints it).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import jsonschema
import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

import function_app
from api.errors import error_response
from api.views import session_view
from devhost.registry import index
from shared.bootstrap import AppServices
from shared.core.config import Settings
from shared.core.report_models import SynthesizedAnswer
from shared.core.research_models import PlanApproval, ResearchPlan, ResearchTopic
from shared.core.session_models import AgentProgress, Mode, Progress, SessionRecord, SessionStatus
from tests.generated import COMMAND, model_components

DOCUMENT = Path(__file__).resolve().parents[2] / "api" / "openapi.json"


@pytest.fixture(scope="module")
def document() -> dict:
    return json.loads(DOCUMENT.read_text(encoding="utf-8"))


def validator_for(document: dict, component: str) -> jsonschema.Draft202012Validator:
    """A JSON Schema validator for one component, its ``$ref`` s resolved within the document."""
    schema = {"$ref": f"#/components/schemas/{component}", "components": document["components"]}
    return jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def test_the_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1")
    errors = [e.message for e in OpenAPIV31SpecValidator(document).iter_errors()]
    assert errors == []


def test_every_registered_http_route_is_documented_and_nothing_else(document):
    routes = {
        (f"/api/{r.route}", method.lower())
        for r in index(function_app.app).routes
        for method in r.methods
    }
    documented = {
        (path, method)
        for path, item in document["paths"].items()
        for method in item
        if method in {"get", "post", "put", "patch", "delete"}
    }
    assert len(routes) >= 10
    assert documented == routes


def test_operation_ids_are_the_function_names(document):
    names = {r.name for r in index(function_app.app).routes}
    operation_ids = {
        op["operationId"]
        for item in document["paths"].values()
        for key, op in item.items()
        if key != "parameters"
    }
    assert operation_ids == names


def test_every_route_is_function_level_as_the_security_scheme_says(document):
    """Except the web page's static files: no function key (a page cannot carry one), only
    the platform's sign-in where it is on (``security: [{entraBearer: []}]``)."""
    levels = {r.route: r.auth_level for r in index(function_app.app).routes}
    anonymous = {route for route, level in levels.items() if level != "function"}
    assert anonymous == {"ui", "ui/{asset}"}
    assert {levels[route] for route in anonymous} == {"anonymous"}
    unsecured = {
        path
        for path, item in document["paths"].items()
        for key, operation in item.items()
        if key != "parameters"
        and not any(
            "functionKeyHeader" in a or "functionKeyQuery" in a
            for a in operation.get("security", document["security"])
        )
    }
    assert unsecured == {f"/api/{route}" for route in anonymous}
    schemes = document["components"]["securitySchemes"]
    keys = {(s["in"], s["name"]) for s in schemes.values() if s["type"] == "apiKey"}
    assert keys == {("query", "code"), ("header", "x-functions-key")}
    assert "devhost" in document["info"]["description"]


def test_every_route_but_health_asks_for_an_entra_bearer_token(document):
    """The sign-in the Bicep turns on (Easy Auth: anonymous only for /api/health; the web
    page too needs it, through the browser's sign-in cookie)."""
    bearer = [
        n for n, s in document["components"]["securitySchemes"].items() if s["type"] == "http"
    ]
    assert bearer == ["entraBearer"]
    assert document["components"]["securitySchemes"]["entraBearer"]["scheme"] == "bearer"
    assert all("entraBearer" in alternative for alternative in document["security"])
    for path, item in document["paths"].items():
        for method, op in item.items():
            if method == "parameters":
                continue
            needs_sign_in = all(
                "entraBearer" in a for a in op.get("security", document["security"])
            )
            assert needs_sign_in == (path != "/api/health"), (method, path)
            assert "401" in op["responses"], (method, path)


@pytest.mark.parametrize("name", sorted(model_components()))
def test_model_components_match_the_pydantic_models(document, name):
    expected = model_components()[name]
    actual = document["components"]["schemas"].get(name)
    assert actual == expected, (
        f"components.schemas.{name} drifted from the model; run: {COMMAND}\nexpected:\n"
        + json.dumps(expected, indent=2)
    )


def test_request_bodies_reference_the_request_models(document):
    def body_ref(path: str) -> str:
        content = document["paths"][path]["post"]["requestBody"]["content"]
        return content["application/json"]["schema"]["$ref"]

    assert body_ref("/api/research") == "#/components/schemas/ResearchRequest"
    assert body_ref("/api/research/{session_id}/clarification") == (
        "#/components/schemas/ClarificationReply"
    )
    assert body_ref("/api/research/{session_id}/plan") == "#/components/schemas/PlanDecision"


def _record(**changes) -> SessionRecord:
    now = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    base = SessionRecord(
        id="s1",
        chat_id="c1",
        original_query="q",
        mode=Mode.deep_research,
        instance_id="s1",
        created_at=now,
        updated_at=now,
    )
    return base.model_copy(update=changes)


ANSWER = SynthesizedAnswer(answer="a", key_points=["k"])
VIEWS = {
    "new": _record(),
    "waiting": _record(
        status=SessionStatus.waiting_clarification,
        clarification_questions=["which?"],
        progress=Progress(phase="waiting_clarification", agents=[AgentProgress(id=1)]),
    ),
    "answered": _record(
        mode=Mode.search,
        status=SessionStatus.completed,
        result={"answer": ANSWER.model_dump(mode="json")},
    ),
    "reported": _record(
        status=SessionStatus.completed,
        result={
            "report": {
                "title": "t",
                "sections": 3,
                "source_count": 2,
                "sources": 2,
                "confidence_level": "high",
                "warnings": [],
            }
        },
    ),
    "reported before source_count": _record(
        status=SessionStatus.completed,
        result={
            "report": {
                "title": "t",
                "sections": 3,
                "sources": 2,
                "confidence_level": "high",
                "warnings": [],
            }
        },
    ),
    "failed": _record(status=SessionStatus.failed, error="boom"),
    "webhook failed": _record(
        status=SessionStatus.completed,
        callback_url="https://receiver.example/hook",
        webhook_events=[{"id": "s1:completed", "event": "completed", "sequence": 1}],
        webhook_deliveries=[
            {
                "event_id": "s1:completed",
                "event": "completed",
                "attempts": 4,
                "status_code": 500,
                "ok": False,
                "error": "HTTP 500",
                "delivered_at": "2025-01-02T03:04:05+00:00",
                "sequence": 1,
            }
        ],
    ),
    "webhook not yet sent": _record(callback_url="https://receiver.example/hook"),
    "plan waiting": _record(
        status=SessionStatus.waiting_plan_approval,
        plan_approval=PlanApproval(
            plan=ResearchPlan(topics=[ResearchTopic(id=1, title="Basics", queries=["q"])]),
            num_agents=1,
            max_agents=4,
            deadline=datetime(2025, 1, 3, tzinfo=UTC),
        ),
    ),
}


@pytest.mark.parametrize("case", sorted(VIEWS))
def test_the_session_view_schema_matches_what_the_code_returns(document, tmp_path, case):
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    view = json.loads(json.dumps(session_view(svc, VIEWS[case]), default=str))
    errors = [e.message for e in validator_for(document, "SessionView").iter_errors(view)]
    assert errors == []


def test_the_session_view_schema_refuses_an_undocumented_field(document, tmp_path):
    svc = AppServices(Settings(data_dir=tmp_path, reasoner="offline", search_provider="local"))
    view = session_view(svc, _record()) | {"surprise": 1}
    assert not validator_for(document, "SessionView").is_valid(view)


def test_the_error_schema_matches_the_error_responses(document):
    response = error_response(422, "validation_error", "bad", [{"loc": ["query"], "msg": "x"}])
    body = json.loads(response.get_body())
    assert validator_for(document, "Error").is_valid(body)
    assert not validator_for(document, "Error").is_valid({"detail": "bad"})
