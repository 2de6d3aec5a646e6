"""``AUTH_MODE=jwt``: bearer tokens checked by the app against the tenant's published keys.

devhost runs the app; the "tenant" is ``tests.fakes.entra.TokenIssuer``, whose
JWKS endpoint is a real HTTP server on 127.0.0.1 that PyJWKClient fetches.
Tokens are signed RS256 with real keys: a good one works, and every way a
token can be wrong is a 401 with a JSON body that says what is wrong.
"""

from __future__ import annotations

import asyncio
import time

import httpx
import jwt
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from api.caller import MCP_OWNER_ID
from devhost.host import DevHost
from shared.core.config import Settings
from tests.fakes.entra import CLIENT_ID, TENANT, TokenIssuer, token_issuer  # noqa: F401

pytestmark = pytest.mark.e2e

ALICE = "a11ce000-0000-4000-8000-000000000001"
BOB = "b0b00000-0000-4000-8000-000000000002"
START = {"query": "What is a Python list?", "mode": "chat", "chat_id": "jwt-chat"}


@pytest.fixture
def host(start_devhost, data_dir, token_issuer: TokenIssuer) -> DevHost:  # noqa: F811
    return start_devhost(
        Settings(
            data_dir=data_dir,
            reasoner="offline",
            search_provider="local",
            auth_mode="jwt",
            auth_tenant_id=TENANT,
            auth_client_id=CLIENT_ID,
            auth_jwt_issuer=token_issuer.issuer,
            auth_jwks_url=token_issuer.jwks_url,
        )
    )


def test_a_valid_token_signs_its_owner_in_and_keeps_others_out(
    host: DevHost,
    token_issuer: TokenIssuer,  # noqa: F811
) -> None:
    with httpx.Client(base_url=host.url, timeout=60) as client:
        alice = token_issuer.headers(ALICE)
        v1_audience = token_issuer.headers(ALICE, audience=f"api://{CLIENT_ID}")
        started = client.post("/api/research", json=START, headers=alice)
        assert started.status_code == 202, started.text
        session_id = started.json()["session_id"]

        assert client.get(f"/api/research/{session_id}", headers=v1_audience).status_code == 200
        listed = client.get("/api/chats/jwt-chat/sessions", headers=alice).json()["sessions"]
        assert [s["session_id"] for s in listed] == [session_id]
        other = client.get(f"/api/research/{session_id}", headers=token_issuer.headers(BOB))
        assert other.status_code == 404
        assert (
            client.get("/api/chats/jwt-chat/sessions", headers=token_issuer.headers(BOB)).json()[
                "sessions"
            ]
            == []
        )
    keys_fetched = token_issuer.server.hits("/discovery/v2.0/keys")
    assert keys_fetched == 1, "the signing keys are cached, not fetched per request"


REASONS = {
    "no token": "Bearer",
    "not a bearer token": "Bearer",
    "garbage": "well-formed JWT",
    "wrong audience": "audience",
    "expired": "expired",
    "unknown key": "known key",
    "known kid, other key": "signature",
    "wrong issuer": "issuer",
    "no principal id": "names no principal id",
}


def bad_tokens(issuer: TokenIssuer) -> dict[str, dict[str, str]]:
    return {
        "no token": {},
        "not a bearer token": {"Authorization": f"Basic {issuer.token(ALICE)}"},
        "garbage": {"Authorization": "Bearer not.a.token"},
        "wrong audience": issuer.headers(ALICE, audience="api://some-other-api"),
        "expired": issuer.headers(ALICE, expires_in=-3600),
        "unknown key": issuer.headers(ALICE, key=issuer.stranger),
        "known kid, other key": issuer.headers(ALICE, key=issuer.stranger, kid=issuer.key.kid),
        "wrong issuer": issuer.headers(ALICE, issuer="https://login.example.org/evil/v2.0"),
        "no principal id": token_without_oid(issuer, sub=""),
    }


@pytest.mark.parametrize("case", sorted(REASONS))
def test_a_token_that_is_wrong_in_any_way_is_401_json(
    host: DevHost,
    token_issuer: TokenIssuer,  # noqa: F811
    case: str,
) -> None:
    headers = bad_tokens(token_issuer)[case]
    with httpx.Client(base_url=host.url, timeout=60) as client:
        for method, url in (
            ("POST", "/api/research"),
            ("GET", "/api/research/0123456789abcdef"),
            ("GET", "/api/research/0123456789abcdef/events"),
            ("GET", "/api/chats/jwt-chat/sessions"),
        ):
            body = START if method == "POST" else None
            response = client.request(method, url, headers=headers, json=body)
            assert response.status_code == 401, (case, url, response.text)
            assert response.headers["content-type"].startswith("application/json")
            error = response.json()["error"]
            assert error["code"] == "unauthorized" and REASONS[case] in error["message"], error
        assert client.get("/api/health").status_code == 200


def token_without_oid(issuer: TokenIssuer, sub: str) -> dict[str, str]:
    """A genuine token of the tenant whose only id is ``sub`` (app-only tokens have no oid)."""
    now = int(time.time())
    claims = {"iss": issuer.issuer, "aud": CLIENT_ID, "sub": sub, "tid": TENANT}
    claims |= {"iat": now - 5, "exp": now + 600}
    token = jwt.encode(claims, issuer.key.private, "RS256", headers={"kid": issuer.key.kid})
    return {"Authorization": f"Bearer {token}"}


async def start_through_mcp(url: str) -> str:
    async with (
        httpx.AsyncClient(timeout=30) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        started = await session.call_tool(
            "start_research", {"query": "What is a tuple?", "mode": "chat", "chat_id": "mcp-chat"}
        )
        assert not started.isError, started.content
        return started.structuredContent["session_id"]


def test_a_token_whose_sub_spells_the_mcp_owner_is_not_the_mcp_owner(
    host: DevHost,
    token_issuer: TokenIssuer,  # noqa: F811
) -> None:
    """Every MCP session belongs to one system owner; a signed-in caller can never be it."""
    session_id = asyncio.run(start_through_mcp(host.mcp_url))
    impostor = token_without_oid(token_issuer, MCP_OWNER_ID)

    with httpx.Client(base_url=host.url, timeout=60) as client:
        read = client.get(f"/api/research/{session_id}", headers=impostor)
        listed = client.get("/api/chats/mcp-chat/sessions", headers=impostor)
        cancel = client.post(f"/api/research/{session_id}/cancel", headers=impostor)

    assert read.status_code == 404, read.text
    assert listed.status_code == 200 and listed.json()["sessions"] == []
    assert cancel.status_code == 404, cancel.text
