"""Spans of a session: activities, search calls, page fetches, and the session's own tree.

Spans go to whatever SDK ``TracerProvider`` the process has (``exporters.py``
installs one when an exporter is configured; a test may install its own); with
none, every helper here returns at once without building a span or an
attribute, so tracing off costs nothing. What a user typed or read (query
text, URLs) goes into an attribute only with ``OTEL_CAPTURE_CONTENT=true``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, Span, SpanContext, Status, StatusCode, TraceFlags
from opentelemetry.util.types import AttributeValue

from shared.tools.telemetry import ids

SCOPE = "deep_research"
Attributes = Mapping[str, AttributeValue]

_capture = False
_cached: tuple[object, trace.Tracer] | None = None


def capture_content(on: bool) -> None:
    """``OTEL_CAPTURE_CONTENT``: whether query text and URLs may go into attributes."""
    global _capture
    _capture = on


def enabled() -> bool:
    return isinstance(trace.get_tracer_provider(), TracerProvider)


def tracer() -> trace.Tracer:
    """Our tracer on the current SDK provider, whose id generator knows the session ids."""
    global _cached
    provider = trace.get_tracer_provider()
    if _cached is None or _cached[0] is not provider:
        if isinstance(provider, TracerProvider) and not isinstance(
            provider.id_generator, ids.SessionIds
        ):
            provider.id_generator = ids.SessionIds(provider.id_generator)
        _cached = (provider, provider.get_tracer(SCOPE))
    return _cached[1]


def parent(session_id: str, phase: str | None = None, seq: int = 1) -> Context:
    """The context of the session's span, or of one of its phases (a remote parent)."""
    span_id = (
        ids.phase_span_id(session_id, phase, seq) if phase else ids.session_span_id(session_id)
    )
    remote = SpanContext(
        ids.trace_id(session_id),
        span_id,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )
    return trace.set_span_in_context(NonRecordingSpan(remote))


@contextmanager
def span(
    name: str,
    attributes: Attributes | None = None,
    content: Attributes | None = None,
    context: Context | None = None,
) -> Iterator[Span | None]:
    """A span around the block (``None`` when tracing is off); ``content`` only if captured."""
    if not enabled():
        yield None
        return
    attrs = dict(attributes or {})
    if _capture and content:
        attrs.update(content)
    with tracer().start_as_current_span(name, context=context, attributes=attrs) as current:
        yield current


@contextmanager
def activity_span(
    name: str, session_id: str | None, phase: str | None, seq: int
) -> Iterator[Span | None]:
    """One activity run, a child of its phase's span (or of the session's, or a root)."""
    if not enabled():
        yield None
        return
    attrs: dict[str, AttributeValue] = {"durable.activity": name}
    context = None
    if session_id:
        attrs["session.id"] = session_id
        context = parent(session_id, phase, seq)
    if phase:
        attrs["research.phase"] = phase
    with span(f"activity {name}", attrs, context=context) as current:
        yield current


def set_attributes(current: Span | None, attributes: Attributes) -> None:
    if current is not None and current.is_recording():
        current.set_attributes(attributes)


def failed(current: Span | None, error_type: str) -> None:
    """An activity that returned a failure envelope failed, though nothing was raised."""
    if current is not None and current.is_recording():
        current.set_attribute("error.type", error_type)
        current.set_status(Status(StatusCode.ERROR, error_type))


def emit(
    name: str,
    trace_id: int,
    span_id: int,
    started: datetime,
    ended: datetime,
    attributes: Attributes,
    context: Context | None = None,
) -> None:
    """A finished span with the given ids and times (the session's and its phases')."""
    with ids.fixed(trace_id, span_id):
        done = tracer().start_span(
            name, context=context or Context(), attributes=attributes, start_time=_ns(started)
        )
    done.end(end_time=_ns(max(started, ended)))


def current_ids() -> tuple[str, str]:
    """The current trace and span ids in hex (empty strings outside a span)."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return "", ""
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


def _ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)
