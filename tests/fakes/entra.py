"""Microsoft Entra ID as the app sees it, on 127.0.0.1.

- ``easy_auth_headers``: the headers App Service Authentication puts on a
  signed-in request (``X-MS-CLIENT-PRINCIPAL`` is base64 JSON claims, in the
  shape Easy Auth sends for Entra). In ``AUTH_MODE=easyauth`` tests forge them,
  which is exactly what the platform prevents in Azure.
- ``TokenIssuer``: an RSA key pair, its JWKS served by a local HTTP server and
  tokens signed with it (PyJWT), so ``AUTH_MODE=jwt`` is tested against real
  signatures and a real key fetch. ``stranger`` keys sign tokens the JWKS does
  not know.
"""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from tests.fakes.web import FixtureServer, Reply

OID_CLAIM = "http://schemas.microsoft.com/identity/claims/objectidentifier"
TID_CLAIM = "http://schemas.microsoft.com/identity/claims/tenantid"
ROLE_TYPE = "http://schemas.microsoft.com/ws/2008/06/identity/claims/role"
TENANT = "72f988bf-0000-4000-8000-000000000001"
CLIENT_ID = "5e3ce6c0-0000-4000-8000-00000000a11d"


def principal_document(oid: str, tenant: str = TENANT, roles: tuple[str, ...] = ()) -> dict:
    claims = [
        {"typ": "iss", "val": f"https://login.microsoftonline.com/{tenant}/v2.0"},
        {"typ": OID_CLAIM, "val": oid},
        {"typ": TID_CLAIM, "val": tenant},
        {"typ": "name", "val": f"Person {oid[:8]}"},
        *({"typ": "roles", "val": role} for role in roles),
    ]
    return {
        "auth_typ": "aad",
        "claims": claims,
        "name_typ": "name",
        "role_typ": ROLE_TYPE,
    }


def encode_principal(document: object) -> str:
    return base64.b64encode(json.dumps(document).encode()).decode()


def easy_auth_headers(
    oid: str, tenant: str = TENANT, roles: tuple[str, ...] = ()
) -> dict[str, str]:
    """What Easy Auth adds to a request of the signed-in ``oid``."""
    return {
        "X-MS-CLIENT-PRINCIPAL": encode_principal(principal_document(oid, tenant, roles)),
        "X-MS-CLIENT-PRINCIPAL-ID": oid,
        "X-MS-CLIENT-PRINCIPAL-NAME": f"person-{oid[:8]}@example.org",
        "X-MS-CLIENT-PRINCIPAL-IDP": "aad",
    }


@dataclass
class SigningKey:
    kid: str
    private: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )

    def jwk(self) -> dict:
        public = json.loads(RSAAlgorithm.to_jwk(self.private.public_key()))
        return {**public, "kid": self.kid, "use": "sig", "alg": "RS256"}


class TokenIssuer:
    """A tenant's token service: one published key, tokens for ``CLIENT_ID`` by default."""

    def __init__(self, server: FixtureServer) -> None:
        self.server = server
        self.key = SigningKey(kid=f"key-{uuid.uuid4().hex[:8]}")
        self.stranger = SigningKey(kid=f"key-{uuid.uuid4().hex[:8]}")  # never published
        self.issuer = f"https://login.microsoftonline.com/{TENANT}/v2.0"
        body = json.dumps({"keys": [self.key.jwk()]}).encode()
        server.routes["/discovery/v2.0/keys"] = lambda request: Reply(
            200, body, {"Content-Type": "application/json"}
        )

    @property
    def jwks_url(self) -> str:
        return self.server.url("/discovery/v2.0/keys")

    def token(
        self,
        oid: str,
        *,
        audience: str = CLIENT_ID,
        expires_in: float = 600,
        key: SigningKey | None = None,
        kid: str | None = None,
        issuer: str | None = None,
        roles: tuple[str, ...] = (),
    ) -> str:
        now = int(time.time())
        claims = {
            "iss": issuer or self.issuer,
            "aud": audience,
            "oid": oid,
            "sub": f"sub-{oid}",
            "tid": TENANT,
            "iat": now - 5,
            "nbf": now - 5,
            "exp": int(now + expires_in),
            "roles": list(roles),
        }
        signer = key or self.key
        headers = {"kid": kid or signer.kid}
        return jwt.encode(claims, signer.private, algorithm="RS256", headers=headers)

    def headers(self, oid: str, **options: object) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token(oid, **options)}"}


@pytest.fixture
def token_issuer() -> Iterator[TokenIssuer]:
    server = FixtureServer().start()
    try:
        yield TokenIssuer(server)
    finally:
        server.stop()
