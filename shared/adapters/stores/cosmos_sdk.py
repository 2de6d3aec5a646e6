"""The Cosmos SDK boundary: opening the container, and translating SDK errors.

Every ``azure.cosmos`` / ``azure.core`` exception the session store can see
becomes a ``shared.core.errors`` type here, once (``translated``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import islice
from typing import Any, TypeVar

from azure.core.exceptions import AzureError, ClientAuthenticationError
from azure.cosmos import ContainerProxy, CosmosClient, PartitionKey
from azure.cosmos import exceptions as cosmos_errors

from shared.core.config import Settings
from shared.core.errors import (
    ConfigurationError,
    ConflictError,
    NotFoundError,
    PermanentError,
    TransientError,
)

_T = TypeVar("_T")


def open_container(
    settings: Settings, client_options: dict[str, Any] | None = None
) -> ContainerProxy:
    """The container (partition ``/chat_id``), created with its database when missing.

    Creation is best effort: in Azure the infrastructure creates both, and an
    identity with only data-plane roles gets 403 for database / container
    creation (and, depending on its role, for reading database metadata). Then
    the names are used as they are; a missing container shows up at the first
    request (and in ``GET /api/health``).

    ``client_options`` go to ``CosmosClient`` as they are, e.g. ``read_timeout``
    (seconds to wait for a response; the SDK's default is 65) or
    ``enable_endpoint_discovery=False`` when the account is reached through a
    proxy (discovery would route around it to the account's own address).
    """
    if settings.cosmos_key is not None:
        credential: Any = settings.cosmos_key.get_secret_value()
    else:
        from azure.identity import DefaultAzureCredential

        credential = DefaultAzureCredential()
    if not settings.cosmos_verify_tls:
        # Explicitly asked for (the local stand-in's self-signed certificate).
        import urllib3

        urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
    with translated():
        client = CosmosClient(
            settings.cosmos_endpoint,
            credential=credential,
            connection_verify=settings.cosmos_verify_tls,
            **(client_options or {}),
        )
        database = _unless_forbidden(
            lambda: client.create_database_if_not_exists(settings.cosmos_database),
            lambda: client.get_database_client(settings.cosmos_database),
        )
        return _unless_forbidden(
            lambda: database.create_container_if_not_exists(
                settings.cosmos_container, partition_key=PartitionKey(path="/chat_id")
            ),
            lambda: database.get_container_client(settings.cosmos_container),
        )


def query_items(
    container: ContainerProxy,
    query: str,
    parameters: dict[str, Any],
    chat_id: str | None = None,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Run a parameterised query, in one partition when the chat is known; ``limit`` stops
    reading result pages once that many documents arrived."""
    params = [{"name": name, "value": value} for name, value in parameters.items()]
    scope: dict[str, Any] = (
        {"partition_key": chat_id}
        if chat_id is not None
        else {"enable_cross_partition_query": True}
    )
    return list(islice(container.query_items(query, parameters=params, **scope), limit))


def _unless_forbidden(create: Callable[[], _T], existing: Callable[[], _T]) -> _T:
    """``create()``, or ``existing()`` when the identity may not create (403)."""
    try:
        return create()
    except cosmos_errors.CosmosHttpResponseError as exc:
        if exc.status_code != 403:
            raise
        return existing()


@contextmanager
def translated() -> Iterator[None]:
    """The one place SDK exceptions become ``shared.core.errors``.

    412 is left as the SDK's ``CosmosAccessConditionFailedError``: only the
    retry loops in this module ever see it, and they handle it.
    """
    try:
        yield
    except cosmos_errors.CosmosAccessConditionFailedError:
        raise
    except cosmos_errors.CosmosHttpResponseError as exc:
        raise _error_for(exc.status_code, exc.headers, str(exc.message or exc)) from exc
    except cosmos_errors.CosmosBatchOperationError as exc:  # the failed operation's status
        raise _error_for(exc.status_code, exc.headers, str(exc.message or exc)) from exc
    except ClientAuthenticationError as exc:
        raise ConfigurationError(f"Cosmos DB refused the credentials: {exc}") from exc
    except AzureError as exc:  # connection failures, timeouts
        raise TransientError(f"Cosmos DB unavailable: {exc}") from exc


def _error_for(status: int | None, headers: Any, message: str) -> Exception:
    message = message[:500]
    if status == 404:
        return NotFoundError(message)
    if status == 409:
        return ConflictError(message)
    if status in (401, 403):
        return ConfigurationError(f"Cosmos DB refused the request ({status}): {message}")
    if status is None or status in (408, 429, 449) or status >= 500:
        retry_ms = (headers or {}).get("x-ms-retry-after-ms")
        retry_after = float(retry_ms) / 1000 if retry_ms else None
        return TransientError(f"Cosmos DB transient failure ({status}): {message}", retry_after)
    return PermanentError(f"Cosmos DB rejected the request ({status}): {message}")
