"""A reply streamed from the model, its answer text relayed while the model writes.

Where a use case listens (``shared.tools.text_stream``) and the reply is one of
the streamed schemas, the chat completion is requested with ``stream: true`` and
``stream_options: {"include_usage": true}`` (the last event carries the usage,
so accounting is the same as without streaming) and reassembled into the
``ChatCompletion`` the rest of ``llm_client`` reads: repairs, continuations,
``<think>`` removal and validation do not change.

Structured output keeps working because the JSON itself streams: the growing
reply is parsed leniently (``jiter``'s partial mode, at most every
``PARSE_EVERY_SECONDS``) and only the free text is offered, the ``answer`` of a
``ChatReply`` token by token, a ``ReportDraft`` section by section
(``report_stream``). Every other call (queries, summaries, reviews, ...) is
sent as before, unstreamed.

An endpoint that refuses a streamed request (400/422) gets the same request
unstreamed, and is not streamed to again (``LLM_STREAM_ANSWERS=false`` turns
streaming off from the start); a refusal of the request itself (a schema it
cannot take) then surfaces as before.

Restarts: a repair attempt (``restart``) and a transport retry (the partial
reply of the failed try is dropped) start the raw text again, so the offered
text shrinks and the sink sends a reset; a continuation after the output cap
appends, as the client's join does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import jiter
import openai
from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from shared.adapters.reasoning.report_stream import draft_parts
from shared.tools import text_stream

log = logging.getLogger(__name__)
PARSE_EVERY_SECONDS = 0.1
# Endpoints that answered a streamed request with 400/422 (a local server without
# ``stream_options``, say): asked unstreamed from then on, for this process.
_UNSTREAMED: set[str] = set()
Extract = Callable[[dict[str, Any], bool], str | None]


def _answer(reply: dict[str, Any], complete: bool) -> str | None:
    answer = reply.get("answer")
    return answer if isinstance(answer, str) else None


def _report(reply: dict[str, Any], complete: bool) -> str | None:
    return "".join(draft_parts(reply, complete)) or None


STREAMED: dict[str, Extract] = {"ChatReply": _answer, "ReportDraft": _report}


class Relay:
    """The raw reply of one structured call and what of it was offered."""

    def __init__(self, extract: Extract, clock: Callable[[], float] = time.monotonic) -> None:
        self._extract = extract
        self._clock = clock
        self._raw: list[str] = []  # the pieces, joined when parsed: not copied per token
        self._before_call = 0
        self._parsed_at = float("-inf")

    def restart(self) -> None:
        self._raw.clear()

    def begin_call(self) -> None:
        self._before_call = len(self._raw)

    def drop_call(self) -> None:
        del self._raw[self._before_call :]

    def feed(self, delta: str) -> None:
        self._raw.append(delta)
        if self._clock() - self._parsed_at >= PARSE_EVERY_SECONDS:
            self._offer(complete=False)

    def finish(self) -> None:
        self._offer(complete=True)

    def _offer(self, complete: bool) -> None:
        self._parsed_at = self._clock()
        reply = _lenient("".join(self._raw))
        text = self._extract(reply, complete) if reply is not None else None
        if text is not None:
            text_stream.offer(text, flush=complete)


_relay: ContextVar[Relay | None] = ContextVar("llm_stream_relay", default=None)


@contextmanager
def relayed(schema_name: str, enabled: bool = True) -> Iterator[None]:
    """Within: a call for ``schema_name`` streams, if a use case listens and it is streamed
    (and ``enabled``: ``LLM_STREAM_ANSWERS``)."""
    extract = STREAMED.get(schema_name) if enabled and text_stream.active() else None
    token = _relay.set(Relay(extract) if extract else None)
    try:
        yield
    finally:
        _relay.reset(token)


def restart() -> None:
    """A new attempt of the structured call (a repair): its text starts again."""
    relay = _relay.get()
    if relay is not None:
        relay.restart()


def post(client: openai.OpenAI, body: dict[str, Any], timeout: float) -> ChatCompletion:
    """POST /chat/completions, streamed when a relay is active (see the module docstring)."""
    relay = _relay.get()
    endpoint = str(client.base_url)
    if relay is not None and endpoint not in _UNSTREAMED:
        relay.begin_call()
        try:
            return _streamed(client, body, timeout, relay)
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            relay.drop_call()
            _UNSTREAMED.add(endpoint)  # then asked unstreamed: a refusal of the request
            log.warning("%s refused a streamed request (%s); not streaming", endpoint, exc)
        except BaseException:
            relay.drop_call()
            raise
    data = client.post("/chat/completions", body=body, cast_to=object, options={"timeout": timeout})
    return completion_of(data)


def completion_of(data: Any) -> ChatCompletion:
    """The reply's JSON as a ``ChatCompletion``, validated (~5 µs) rather than built by the
    SDK's lenient ``construct`` (~0.1 ms of CPU with the GIL held, per model call); a
    reply the model does not validate (a local server's own ``finish_reason``, say) is
    still read leniently, as the SDK reads it."""
    try:
        return ChatCompletion.model_validate(data)
    except ValidationError:
        return ChatCompletion.construct(**data) if isinstance(data, dict) else data


def _streamed(
    client: openai.OpenAI, body: dict[str, Any], timeout: float, relay: Relay
) -> ChatCompletion:
    """The events are read as the JSON they are (``Stream[object]``): building a
    ``ChatCompletionChunk`` model per token cost ~0.2 ms of CPU, 0.6 s for a 3,000-word
    report, all of it holding the GIL the session's other activities wait for."""
    streamed_body = {**body, "stream": True, "stream_options": {"include_usage": True}}
    events = client.post(
        "/chat/completions",
        body=streamed_body,
        cast_to=ChatCompletion,
        options={"timeout": timeout},
        stream=True,
        stream_cls=openai.Stream[object],
    )
    parts: list[str] = []
    finish, usage, model, refusal = None, None, body.get("model", ""), None
    with events:
        for event in events:
            if not isinstance(event, dict):
                continue
            model = event.get("model") or model
            usage = event.get("usage") or usage
            for choice in (event.get("choices") or [])[:1]:
                if not isinstance(choice, dict):
                    continue
                finish = choice.get("finish_reason") or finish
                delta = choice.get("delta") if isinstance(choice.get("delta"), dict) else {}
                refusal = delta.get("refusal") or refusal
                content = delta.get("content")
                if content:
                    parts.append(content)
                    relay.feed(content)
    relay.finish()
    message = {"role": "assistant", "content": "".join(parts), "refusal": refusal}
    return ChatCompletion.model_validate(
        {
            "id": "streamed",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "finish_reason": finish or "stop", "message": message}],
            "usage": usage,
        }
    )


def _lenient(raw: str) -> dict[str, Any] | None:
    """The JSON object of a partial reply, as far as it goes; None before it begins.

    A reasoning model's ``<think>`` block comes first and is skipped; code fences
    or prose around the object are skipped too.
    """
    if "<think>" in raw:
        _, closed, raw = raw.rpartition("</think>")
        if not closed:
            return None
    start = raw.find("{")
    if start < 0:
        return None
    try:
        parsed = jiter.from_json(raw[start:].encode(), partial_mode="trailing-strings")
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None
