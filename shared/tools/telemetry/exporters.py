"""Where spans go: Azure Monitor, OTLP/HTTP, or nowhere (no provider, no cost).

``APPLICATIONINSIGHTS_CONNECTION_STRING`` configures the ``azure-monitor-opentelemetry``
distro; else ``OTEL_EXPORTER_OTLP_ENDPOINT`` installs an SDK provider with the
OTLP/HTTP exporter; else nothing is installed and every span helper returns at
once. Called by the composition root when it first builds the services, once
per process: a provider cannot be replaced once set.
"""

from __future__ import annotations

import logging
import threading

from shared.core.config import Settings
from shared.tools.telemetry import log_ids, tracing

log = logging.getLogger(__name__)

SERVICE_NAME = "deep-research"
# Client instrumentations whose spans would carry every fetched URL.
HTTP_CLIENTS = ("httpx", "httpx2", "requests", "urllib", "urllib3")

_done = False
_lock = threading.Lock()


def configure(settings: Settings) -> None:
    """Install the exporter ``settings`` name (first call per process only)."""
    global _done
    with _lock:
        if _done:
            return
        _done = True
    tracing.capture_content(settings.otel_capture_content)
    log_ids.install()
    if settings.applicationinsights_connection_string:
        _azure_monitor(settings)
    elif settings.otel_exporter_otlp_endpoint:
        _otlp(settings.otel_exporter_otlp_endpoint)


def _azure_monitor(settings: Settings) -> None:
    from azure.monitor.opentelemetry import configure_azure_monitor

    secret = settings.applicationinsights_connection_string
    off = {} if settings.otel_capture_content else {n: {"enabled": False} for n in HTTP_CLIENTS}
    configure_azure_monitor(
        connection_string=secret.get_secret_value() if secret else None,
        instrumentation_options=off,
        resource=_resource(),
        # The distro's default, a rate limit per span, would drop activity spans whose
        # parent is remote (all of ours) and break sessions apart; this sampler decides
        # by trace id, so a session is kept or dropped whole (1.0: every session).
        sampling_ratio=1.0,
    )
    log.info("traces go to Azure Monitor (Application Insights)")


def _otlp(endpoint: str) -> None:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    from shared.tools.telemetry.ids import SessionIds

    provider = TracerProvider(resource=_resource(), id_generator=SessionIds())
    exporter = OTLPSpanExporter(endpoint=f"{endpoint.rstrip('/')}/v1/traces")
    provider.add_span_processor(BatchSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    log.info("traces go to OTLP/HTTP at %s", endpoint)


def _resource():
    from opentelemetry.sdk.resources import SERVICE_NAME as KEY
    from opentelemetry.sdk.resources import Resource

    return Resource.create({KEY: SERVICE_NAME})
