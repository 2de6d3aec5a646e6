"""Who is calling: the principal, taken from the platform or a verified token, never made up.

``AUTH_MODE`` picks where the caller comes from:

- ``none`` (local default): everyone is one anonymous principal, as before
  sign-in existed. For a laptop, ``make demo`` and tests; never for a shared deployment.
- ``easyauth``: App Service Authentication has signed the caller in and passes
  them as ``X-MS-CLIENT-PRINCIPAL`` (base64 JSON claims). Trusting that header
  is only safe behind Easy Auth, which strips any copy a client sends; the
  Bicep deployment turns it on (``infra/app/auth.bicep``). So this mode
  refuses to work (``ConfigurationError`` naming the settings) unless the
  platform says Easy Auth is on (``WEBSITE_AUTH_ENABLED=True``, set by App
  Service) or the operator vouches for another proxy that strips and sets the
  header (``AUTH_TRUST_PRINCIPAL_HEADER=true``).
- ``jwt``: the caller sends ``Authorization: Bearer <token>`` and no platform
  checked it (another gateway, a container host without Easy Auth). PyJWT
  verifies signature (the tenant's published keys, ``PyJWKClient``), issuer,
  audience and expiry.

System owners (the anonymous owner, the MCP key holders: ``system_principal``)
have no tenant. Every signed-in principal has one (``tid``, a verified
issuer, or Easy Auth's provider), so no token can name a system owner, even
one whose ``sub`` spells its id.

Entry points (HTTP routes, SSE, MCP tools) call ``Authenticator.principal``
with the request headers and pass the result to ``shared.usecases.access``. A missing,
malformed, expired or unverifiable caller is ``UnauthorizedError`` (401).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import jwt

from shared.core.config import Settings
from shared.core.errors import ConfigurationError, TransientError, UnauthorizedError
from shared.core.session_models import ANONYMOUS_OWNER, Owner

PRINCIPAL_HEADER = "x-ms-client-principal"
PRINCIPAL_NAME_HEADER = "x-ms-client-principal-name"
PRINCIPAL_ID_HEADER = "x-ms-client-principal-id"
OBJECT_ID_CLAIMS = ("http://schemas.microsoft.com/identity/claims/objectidentifier", "oid")
TENANT_CLAIMS = ("http://schemas.microsoft.com/identity/claims/tenantid", "tid")
ROLE_CLAIMS = ("roles", "http://schemas.microsoft.com/ws/2008/06/identity/claims/role")
MAX_HEADER_CHARS = 16_384
JWT_ALGORITHMS = ["RS256"]  # Entra signs access tokens with RS256
JWT_LEEWAY_SECONDS = 60  # clock skew between the token service and this host
JWKS_CACHE_SECONDS = 3600
JWKS_TIMEOUT_SECONDS = 10
ENTRA_AUTHORITY = "https://login.microsoftonline.com"


@dataclass(frozen=True)
class Principal:
    """The caller. ``name`` is for display only: never stored, never logged."""

    id: str
    tenant: str
    name: str = ""
    roles: frozenset[str] = field(default_factory=frozenset)

    @property
    def owner(self) -> Owner:
        return Owner(id=self.id, tenant=self.tenant)

    @property
    def anonymous(self) -> bool:
        return self.owner == ANONYMOUS_OWNER


SYSTEM_TENANT = ANONYMOUS_OWNER.tenant  # empty: the namespace no caller can sign in to
ANONYMOUS = Principal(id=ANONYMOUS_OWNER.id, tenant=SYSTEM_TENANT)


def system_principal(name: str) -> Principal:
    """An owner the host itself speaks for (e.g. the MCP key holders), never a signed-in one."""
    return Principal(id=name, tenant=SYSTEM_TENANT)


def signed_in(principal_id: str, tenant: str, name: str, roles: frozenset[str]) -> Principal:
    """A caller vouched for by a token or the platform: always in a tenant of their own.

    The tenant check is what keeps system owners out of reach; a caller
    without one is refused rather than placed among them.
    """
    if not principal_id.strip():
        raise UnauthorizedError("the caller's identity names no principal id")
    if tenant.strip() == SYSTEM_TENANT:
        raise UnauthorizedError("the caller's identity names no tenant or issuer")
    return Principal(id=principal_id, tenant=tenant, name=name, roles=roles)


class Authenticator:
    """The caller of a request, per ``AUTH_MODE``; build once per worker (it caches keys)."""

    def __init__(self, settings: Settings) -> None:
        self.mode = settings.auth_mode
        if self.mode == "easyauth":
            require_principal_header_vouched_for(settings)
        self._jwt = JwtVerifier(settings) if self.mode == "jwt" else None

    @property
    def may_block(self) -> bool:
        """Whether ``principal`` may fetch signing keys over the network (call it in a thread)."""
        return self._jwt is not None

    def principal(self, headers: Mapping[str, str]) -> Principal:
        """The verified caller of a request with ``headers``; ``UnauthorizedError`` if none.

        ``TransientError`` when the signing keys cannot be fetched (not the caller's fault).
        """
        if self.mode == "none":
            return ANONYMOUS
        lowered = {k.lower(): v for k, v in headers.items()}
        if self._jwt is not None:
            return self._jwt.principal(lowered)
        return easy_auth_principal(lowered)


def require_principal_header_vouched_for(settings: Settings) -> None:
    """``ConfigurationError`` unless something in front strips a client's own
    ``X-MS-CLIENT-PRINCIPAL``: without that, anyone could send one and be anyone."""
    if settings.website_auth_enabled or settings.auth_trust_principal_header:
        return
    raise ConfigurationError(
        "AUTH_MODE=easyauth trusts the X-MS-CLIENT-PRINCIPAL header, but App Service "
        "Authentication is not on here (WEBSITE_AUTH_ENABLED is not True). Turn it on, use "
        "AUTH_MODE=jwt, or, behind another proxy that strips and sets that header, set "
        "AUTH_TRUST_PRINCIPAL_HEADER=true"
    )


def easy_auth_principal(headers: Mapping[str, str]) -> Principal:
    """The caller Easy Auth signed in, from ``X-MS-CLIENT-PRINCIPAL`` (lower-cased ``headers``).

    The id is the Entra object id (``oid``) when the claims carry it, else
    ``X-MS-CLIENT-PRINCIPAL-ID``; the tenant is ``tid``, else the identity
    provider, so ids of two providers can never meet.
    """
    raw = headers.get(PRINCIPAL_HEADER, "").strip()
    if not raw:
        raise UnauthorizedError("sign-in required: the request carries no X-MS-CLIENT-PRINCIPAL")
    claims_doc = _decode_principal(raw)
    claims: dict[str, list[str]] = {}
    for claim in claims_doc.get("claims") or []:
        if isinstance(claim, dict) and isinstance(claim.get("val"), str):
            claims.setdefault(str(claim.get("typ", "")), []).append(claim["val"])
    role_types = (str(claims_doc.get("role_typ") or ""), *ROLE_CLAIMS)
    principal_id = _first(claims, OBJECT_ID_CLAIMS) or headers.get(PRINCIPAL_ID_HEADER, "").strip()
    tenant = _first(claims, TENANT_CLAIMS) or str(claims_doc.get("auth_typ") or "").strip()
    return signed_in(
        principal_id,
        tenant,
        name=headers.get(PRINCIPAL_NAME_HEADER, ""),
        roles=frozenset(v for t in role_types if t for v in claims.get(t, [])),
    )


def _decode_principal(raw: str) -> dict:
    if len(raw) > MAX_HEADER_CHARS:
        raise UnauthorizedError("X-MS-CLIENT-PRINCIPAL is too long")
    try:
        padded = raw + "=" * (-len(raw) % 4)
        document = json.loads(base64.b64decode(padded, validate=True))
    except (binascii.Error, ValueError) as exc:
        raise UnauthorizedError("X-MS-CLIENT-PRINCIPAL is not base64-encoded JSON") from exc
    if not isinstance(document, dict):
        raise UnauthorizedError("X-MS-CLIENT-PRINCIPAL is not a JSON object")
    return document


def _first(claims: Mapping[str, list[str]], names: tuple[str, ...]) -> str:
    return next((claims[n][0].strip() for n in names if claims.get(n)), "")


class JwtVerifier:
    """Bearer tokens checked against the tenant's keys (cached; fetched again after rotation)."""

    def __init__(self, settings: Settings) -> None:
        tenant, client = settings.auth_tenant_id.strip(), settings.auth_client_id.strip()
        if not client:
            raise ConfigurationError("AUTH_MODE=jwt needs AUTH_CLIENT_ID (the API's client id)")
        if not tenant and not (settings.auth_jwt_issuer and settings.auth_jwks_url):
            raise ConfigurationError(
                "AUTH_MODE=jwt needs AUTH_TENANT_ID (or AUTH_JWT_ISSUER and AUTH_JWKS_URL)"
            )
        # Entra issues v2.0 tokens (issuer .../v2.0) or v1.0 ones (sts.windows.net).
        self.issuers = (
            [settings.auth_jwt_issuer]
            if settings.auth_jwt_issuer
            else [f"{ENTRA_AUTHORITY}/{tenant}/v2.0", f"https://sts.windows.net/{tenant}/"]
        )
        self.audiences = [client, f"api://{client}"]
        jwks_url = settings.auth_jwks_url or f"{ENTRA_AUTHORITY}/{tenant}/discovery/v2.0/keys"
        self._keys = jwt.PyJWKClient(
            jwks_url, lifespan=JWKS_CACHE_SECONDS, timeout=JWKS_TIMEOUT_SECONDS
        )

    def principal(self, headers: Mapping[str, str]) -> Principal:
        scheme, _, token = headers.get("authorization", "").strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise UnauthorizedError("sign-in required: send Authorization: Bearer <token>")
        claims = self._verified_claims(token.strip())
        principal_id = str(claims.get("oid") or claims.get("sub") or "")
        tenant = str(claims.get("tid") or claims["iss"])
        roles = claims.get("roles") if isinstance(claims.get("roles"), list) else []
        return signed_in(
            principal_id,
            tenant,
            name=str(claims.get("preferred_username") or claims.get("name") or ""),
            roles=frozenset(str(r) for r in roles),
        )

    def _verified_claims(self, token: str) -> dict:
        try:
            key = self._keys.get_signing_key_from_jwt(token)
        except (jwt.PyJWKClientConnectionError, jwt.PyJWKSetError) as exc:
            raise TransientError("the token signing keys could not be fetched") from exc
        except jwt.DecodeError as exc:
            raise UnauthorizedError("the token is not a well-formed JWT") from exc
        except jwt.PyJWKClientError as exc:
            raise UnauthorizedError("the token is not signed by a known key") from exc
        try:
            return jwt.decode(
                token,
                key.key,
                algorithms=JWT_ALGORITHMS,
                audience=self.audiences,
                issuer=self.issuers,
                leeway=JWT_LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.InvalidSignatureError as exc:
            raise UnauthorizedError("the token's signature does not verify") from exc
        except jwt.ExpiredSignatureError as exc:
            raise UnauthorizedError("the token has expired") from exc
        except jwt.InvalidAudienceError as exc:
            raise UnauthorizedError("the token is meant for another audience") from exc
        except jwt.InvalidIssuerError as exc:
            raise UnauthorizedError("the token comes from another issuer") from exc
        except jwt.InvalidTokenError as exc:
            raise UnauthorizedError(f"the token is invalid ({type(exc).__name__})") from exc
