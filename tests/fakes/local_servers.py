"""Imitations of local OpenAI-compatible servers, as their documentation describes them.

Each wraps a responder of ``tests.fakes.openai_server`` (by default the
schema-aware one) and changes what a hosted OpenAI endpoint would answer the
way that server does:

- ``think_tags``: a reasoning model under Ollama or LM Studio writes its
  thoughts into ``content`` between ``<think>`` tags; with ``opened=False``
  the chat template carries the opening tag, so only ``</think>`` shows;
- ``reasoning_field``: vLLM with a reasoning parser returns the thoughts in
  ``message.reasoning_content``;
- ``NoJsonSchema``: a server without ``json_schema`` support answers 400 to
  ``response_format: json_schema`` (llama.cpp-server-style message, no
  ``param``); ``json_object`` is accepted unless ``json_object=False``;
- ``fenced``: the JSON comes in a code fence after a sentence of preamble.

Usage counts the whole content, thoughts included (chars // 4), as servers
count the tokens they generated. ``THOUGHT`` is what the thoughts say, so a
test can look for it in everything the service stored.
"""

from __future__ import annotations

from tests.fakes.openai_server import (
    RecordedRequest,
    Reply,
    Responder,
    completion,
    schema_aware_responder,
)

THOUGHT = "Hmm, the user wants this; let me weigh the pages privately first."


def _rewritten(reply: Reply, rewrite) -> Reply:
    body = reply.body if isinstance(reply.body, dict) else None
    if reply.status != 200 or not body or not body.get("choices"):
        return reply
    message = body["choices"][0]["message"]
    new = completion(rewrite(message.get("content") or ""), model=body.get("model", "fake"))
    new.body["choices"][0]["finish_reason"] = body["choices"][0]["finish_reason"]
    return new


def think_tags(inner: Responder = schema_aware_responder, *, opened: bool = True) -> Responder:
    opening = "<think>\n" if opened else ""

    def respond(request: RecordedRequest) -> Reply:
        reply = _as_reply(inner(request))
        return _rewritten(reply, lambda text: f"{opening}{THOUGHT}\n</think>\n\n{text}")

    return respond


def reasoning_field(inner: Responder = schema_aware_responder) -> Responder:
    def respond(request: RecordedRequest) -> Reply:
        reply = _as_reply(inner(request))
        if reply.status == 200 and isinstance(reply.body, dict) and reply.body.get("choices"):
            reply.body["choices"][0]["message"]["reasoning_content"] = THOUGHT
            usage = reply.body["usage"]
            usage["completion_tokens"] += len(THOUGHT) // 4
        return reply

    return respond


class NoJsonSchema:
    """A server without ``json_schema``; ``refused`` counts the 400s it answered."""

    def __init__(self, inner: Responder = schema_aware_responder, *, json_object: bool = True):
        self.inner = inner
        self.json_object = json_object
        self.refused = 0

    def __call__(self, request: RecordedRequest) -> Reply:
        kind = (request.json.get("response_format") or {}).get("type")
        if kind == "json_schema" or (kind == "json_object" and not self.json_object):
            self.refused += 1
            message = f"response_format type '{kind}' is not supported by this server"
            body = {"error": {"code": 400, "message": message, "type": "invalid_request_error"}}
            return Reply(status=400, body=body)
        return _as_reply(self.inner(request))


def fenced(inner: Responder = schema_aware_responder) -> Responder:
    def respond(request: RecordedRequest) -> Reply:
        reply = _as_reply(inner(request))
        if not request.json.get("response_format") and "<json_schema>" not in request.prompt_text:
            return reply
        return _rewritten(
            reply, lambda text: f"Here is the JSON you asked for:\n```json\n{text}\n```"
        )

    return respond


def _as_reply(reply: Reply | dict | str) -> Reply:
    if isinstance(reply, Reply):
        return reply
    if isinstance(reply, str):
        return completion(reply)
    raise TypeError("the imitations wrap responders that return a Reply or text")
