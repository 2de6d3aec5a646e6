"""Who the caller is (shared/adapters/identity.py) and what they may see
(shared/usecases/access.py)."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from shared.adapters.identity import ANONYMOUS, Authenticator, Principal, system_principal
from shared.core.config import Settings
from shared.core.errors import ConfigurationError, UnauthorizedError
from shared.core.session_models import Mode, Owner, SessionRecord
from shared.usecases.access import chat_key, may, public_chat_id
from tests.fakes.entra import TENANT, easy_auth_headers, encode_principal, principal_document

ALICE = "0a1ce000-0000-4000-8000-000000000001"
EASY = Authenticator(Settings(auth_mode="easyauth", website_auth_enabled=True))


def record_of(owner: Owner) -> SessionRecord:
    now = datetime(2025, 1, 1, tzinfo=UTC)
    return SessionRecord(
        id="s1",
        chat_id=chat_key(owner, "team-42"),
        owner=owner,
        original_query="q",
        mode=Mode.chat,
        instance_id="s1",
        created_at=now,
        updated_at=now,
    )


def test_easy_auth_principal_is_the_object_id_in_its_tenant_with_its_roles() -> None:
    principal = EASY.principal(easy_auth_headers(ALICE, roles=("Research.Admin", "Reader")))

    assert (principal.id, principal.tenant) == (ALICE, TENANT)
    assert principal.roles == {"Research.Admin", "Reader"}
    assert principal.name.startswith("person-")


def test_header_names_are_matched_whatever_their_case() -> None:
    headers = {k.lower(): v for k, v in easy_auth_headers(ALICE).items()}
    assert EASY.principal(headers).id == ALICE


MALFORMED = {
    "missing": {},
    "empty": {"X-MS-CLIENT-PRINCIPAL": "  "},
    "not base64": {"X-MS-CLIENT-PRINCIPAL": "not base64 at all!"},
    "not json": {"X-MS-CLIENT-PRINCIPAL": base64.b64encode(b"\xff\xfe{").decode()},
    "a list": {"X-MS-CLIENT-PRINCIPAL": encode_principal([1, 2])},
    "no ids": {"X-MS-CLIENT-PRINCIPAL": encode_principal({"claims": []})},
    "no tenant": {
        "X-MS-CLIENT-PRINCIPAL": encode_principal(
            {"claims": [{"typ": "oid", "val": ALICE}]}  # no tid, no auth_typ
        )
    },
    "huge": {"X-MS-CLIENT-PRINCIPAL": "A" * 20_000},
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_missing_or_malformed_principal_is_unauthorized(case: str) -> None:
    with pytest.raises(UnauthorizedError):
        EASY.principal(MALFORMED[case])


def test_only_the_id_header_is_not_a_sign_in() -> None:
    with pytest.raises(UnauthorizedError):
        EASY.principal({"X-MS-CLIENT-PRINCIPAL-ID": ALICE})


def test_without_a_tenant_claim_the_identity_provider_keeps_ids_apart() -> None:
    document = principal_document(ALICE)
    document["claims"] = [c for c in document["claims"] if "tenantid" not in c["typ"]]
    principal = EASY.principal({"X-MS-CLIENT-PRINCIPAL": encode_principal(document)})
    assert (principal.id, principal.tenant) == (ALICE, "aad")


def test_auth_mode_none_is_one_anonymous_owner_whatever_the_headers_say() -> None:
    local = Authenticator(Settings())
    assert local.principal(easy_auth_headers(ALICE)) == ANONYMOUS
    assert local.principal({}) == ANONYMOUS and ANONYMOUS.anonymous


def test_easyauth_needs_the_platform_or_the_operator_to_vouch_for_the_header() -> None:
    with pytest.raises(ConfigurationError, match="WEBSITE_AUTH_ENABLED"):
        Authenticator(Settings(auth_mode="easyauth"))
    behind_proxy = Authenticator(Settings(auth_mode="easyauth", auth_trust_principal_header=True))
    assert behind_proxy.principal(easy_auth_headers(ALICE)).id == ALICE


def test_no_signed_in_principal_can_be_a_system_owner() -> None:
    """System owners have no tenant; a principal that names none is refused, not placed there."""
    mcp = system_principal("mcp-system-key")
    spoofed = principal_document("mcp-system-key")
    spoofed["claims"] = [c for c in spoofed["claims"] if "tenantid" not in c["typ"]]
    spoofed["auth_typ"] = " "

    with pytest.raises(UnauthorizedError, match="tenant"):
        EASY.principal({"X-MS-CLIENT-PRINCIPAL": encode_principal(spoofed)})
    impostor = EASY.principal(easy_auth_headers("mcp-system-key"))
    assert impostor.owner != mcp.owner
    assert chat_key(impostor.owner, "c") != chat_key(mcp.owner, "c")


def test_jwt_mode_needs_the_api_client_id_and_a_tenant() -> None:
    with pytest.raises(ConfigurationError, match="AUTH_CLIENT_ID"):
        Authenticator(Settings(auth_mode="jwt", auth_tenant_id=TENANT))
    with pytest.raises(ConfigurationError, match="AUTH_TENANT_ID"):
        Authenticator(Settings(auth_mode="jwt", auth_client_id="api"))


def test_chat_ids_are_per_owner_and_read_back_as_chosen() -> None:
    alice, bob = Owner(id=ALICE, tenant=TENANT), Owner(id="b0b", tenant=TENANT)
    other_tenant = Owner(id=ALICE, tenant="another-tenant")

    keys = {chat_key(o, "team-42") for o in (alice, bob, other_tenant)}

    assert len(keys) == 3
    assert {public_chat_id(k) for k in keys} == {"team-42"}
    assert chat_key(ANONYMOUS.owner, "team-42") == "team-42"  # local data stays where it was


def test_owner_acts_admin_only_reads_others_nothing() -> None:
    alice = Principal(id=ALICE, tenant=TENANT)
    admin = Principal(id="ad", tenant=TENANT, roles=frozenset({"Research.Admin"}))
    bob = Principal(id="b0b", tenant=TENANT, roles=frozenset({"Reader"}))
    record = record_of(alice.owner)

    assert may(alice, record, "act", "Research.Admin")
    assert may(admin, record, "read", "Research.Admin")
    assert not may(admin, record, "act", "Research.Admin")
    assert not may(admin, record, "read", "")  # no admin role configured: nobody is admin
    assert not may(bob, record, "read", "Research.Admin")
    assert not may(ANONYMOUS, record, "read", "Research.Admin")
