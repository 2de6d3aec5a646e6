"""One way to call a chat model: client construction, retries, structured replies.

Why a sync client: activities run in the Functions worker's thread pool (and
in devhost's), so a blocking ``OpenAI`` / ``AzureOpenAI`` client per worker is
the simple, thread-safe choice; an async client would need an event loop per
thread for no gain.

Layers, each with one job:
- **transport retries** (tenacity, the only retry layer: the SDK's own
  ``max_retries`` is 0): 408/409/429/5xx, timeouts and connection errors are
  retried ``llm_max_retries`` times with exponential backoff, honouring
  ``Retry-After`` / ``retry-after-ms`` (capped at ``MAX_BACKOFF_SECONDS``);
  then ``TransientError``. Other 4xx are ``PermanentError`` (401/403:
  ``ConfigurationError``, the key or deployment is wrong).
- **reasoning**: a reasoning model's ``<think>`` blocks are removed from
  every reply before it is parsed or returned (``reasoning_text``);
  ``reasoning_content`` is never read.
- **structured replies**: ``LLM_STRUCTURED_OUTPUT`` picks how the schema is
  requested (``json_schema`` strict schema / ``json_object`` + schema in the
  prompt / ``prompt`` only); ``auto`` finds what the endpoint supports
  (``structured_mode``). A reply that does not validate is stripped of
  code fences and tried again with the validation error fed back, up to
  ``max_structured_output_retries`` repairs; then ``StructuredOutputError``.
- **truncation**: a reply that stopped at the output cap (``finish_reason`` =
  ``length``) is continued, up to ``MAX_CONTINUATIONS`` times, and the parts
  joined before validation: a long report is completed, never cut (a
  continuation is plain text, since a schema would make the model restart).
- **usage**: every response (repairs included) is recorded in the current
  usage meter with its estimated cost (``shared/tools/llm_endpoint/``).

With Azure OpenAI a "model" is a deployment name; the SDK then calls
``/openai/deployments/{model}/chat/completions?api-version=...``.
"""

from __future__ import annotations

import json
import logging
import random
import re
import time
from collections.abc import Callable
from typing import Any, TypeVar

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from shared.adapters.reasoning import llm_stream, structured_mode
from shared.adapters.reasoning.reasoning_text import without_reasoning
from shared.adapters.reasoning.wire_schema import schema_name, wire_schema
from shared.core.config import Settings
from shared.core.errors import (
    ConfigurationError,
    PermanentError,
    StructuredOutputError,
    TransientError,
)
from shared.tools.llm_endpoint import model_limits, slow_calls
from shared.tools.llm_endpoint.client import build_openai_client
from shared.tools.llm_endpoint.usage import record_call
from shared.tools.telemetry import genai

log = logging.getLogger(__name__)

T = TypeVar("T", bound=BaseModel)
Messages = list[dict[str, str]]

MAX_BACKOFF_SECONDS = 20.0
_RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?\s*```\s*$", re.DOTALL)

SCHEMA_INSTRUCTION = (
    "Reply with one JSON object only (no prose, no code fences) that validates against "
    "this JSON schema:\n<json_schema>\n{schema}\n</json_schema>"
)
CONTINUE_INSTRUCTION = (
    "Your reply stopped at the output limit. Continue it from exactly the character where "
    "it stopped: no repetition, no preamble, no code fences; what you write is appended "
    "to what you wrote."
)
MAX_CONTINUATIONS = 3
REPAIR_INSTRUCTION = (
    "Your previous reply was not valid for the required JSON schema.\n"
    "Validation error:\n{error}\n"
    "Reply again with the corrected JSON object only."
)


def strip_fences(text: str) -> str:
    """The JSON inside a reply: code fences and prose around the object removed."""
    text = text.strip()
    match = _FENCE.match(text)
    if match:
        text = match.group(1).strip()
    if not text.startswith(("{", "[")):
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            text = text[start : end + 1]
    return text


class LLMClient:
    """Chat completions with bounded retries over one SDK client, shared across threads."""

    def __init__(
        self,
        settings: Settings,
        *,
        initial_backoff: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._settings = settings
        self._initial_backoff = initial_backoff
        self._sleep = sleep
        # built now, not in the first call: the client loads the CA bundle (tens
        # of ms), and a missing endpoint should fail where the reasoner is composed
        self._client = build_openai_client(settings)
        self._system = genai.system_of(settings)

    # -- public ---------------------------------------------------------------

    def complete_text(
        self, messages: Messages, *, model: str, temperature: float, max_tokens: int
    ) -> str:
        """The text of one reply (``""`` if the model sent none)."""
        reply = self._send(messages, model=model, temperature=temperature, max_tokens=max_tokens)
        return _content(reply).strip()

    def complete_structured(
        self,
        schema: type[T],
        messages: Messages,
        *,
        model: str,
        temperature: float,
        max_tokens: int,
    ) -> T:
        """A validated ``schema`` instance, repairing invalid replies a bounded number of times."""
        endpoint = self.endpoint
        mode = structured_mode.first_mode(self._settings.llm_structured_output, endpoint, model)
        with llm_stream.relayed(schema.__name__, self._settings.llm_stream_answers):
            while True:
                try:
                    return self._structured_in(
                        mode,
                        schema,
                        messages,
                        model=model,
                        temperature=temperature,
                        max_tokens=max_tokens,
                    )
                except structured_mode.FormatRefused as exc:
                    if self._settings.llm_structured_output != "auto":
                        raise PermanentError(
                            f"LLM endpoint refused LLM_STRUCTURED_OUTPUT={mode} ({model}); "
                            "set it to auto, json_object or prompt"
                        ) from exc
                    mode = structured_mode.after_refusal(endpoint, model, mode)

    def _structured_in(self, mode: str, schema: type[T], messages: Messages, **params: Any) -> T:
        conversation = list(messages)
        extra: dict[str, Any] = {}
        if mode == "json_schema":
            extra["response_format"] = {
                "type": "json_schema",
                "json_schema": {
                    "name": schema_name(schema),
                    "schema": wire_schema(schema),
                    "strict": True,
                },
            }
        else:
            text = SCHEMA_INSTRUCTION.format(schema=json.dumps(wire_schema(schema)))
            conversation = _with_system_suffix(conversation, text)
            if mode == "json_object":
                extra["response_format"] = {"type": "json_object"}
        attempts = 1 + max(0, self._settings.max_structured_output_retries)
        error = "no reply"
        for _ in range(attempts):
            llm_stream.restart()
            reply = self._send(conversation, **params, **extra)
            message = reply.choices[0].message if reply.choices else None
            content = _content(reply)
            if _truncated(reply):
                content = self._continued(conversation, content, **params)
            try:
                return schema.model_validate_json(strip_fences(content))
            except ValidationError as exc:
                error = _short_error(exc, message)
            conversation = [
                *conversation,
                {"role": "assistant", "content": content[:4000]},
                {"role": "user", "content": REPAIR_INSTRUCTION.format(error=error)},
            ]
        raise StructuredOutputError(
            f"{params['model']} gave no valid {schema.__name__} after {attempts} attempts: "
            f"{error[:500]}"
        )

    def _continued(self, conversation: Messages, content: str, **params: Any) -> str:
        """``content`` joined with the continuations of a reply cut at the output cap."""
        for _ in range(MAX_CONTINUATIONS):
            asked = [
                *conversation,
                {"role": "assistant", "content": content},
                {"role": "user", "content": CONTINUE_INSTRUCTION},
            ]
            reply = self._send(asked, **params)
            content += _content(reply)
            if not _truncated(reply):
                break
        return content

    @property
    def endpoint(self) -> str:
        """Where the calls go: the key under which a structured mode is remembered."""
        return str(self._client.base_url)

    # -- transport ------------------------------------------------------------

    def _send(self, messages: Messages, *, model: str, **params: Any) -> Any:
        retrying = Retrying(
            stop=stop_after_attempt(max(0, self._settings.llm_max_retries) + 1),
            wait=self._wait,
            retry=retry_if_exception(_is_retryable),
            sleep=self._sleep,
            reraise=True,
        )
        window = model_limits.context_tokens(self._settings, model)
        if window and "max_tokens" in params:
            schema = json.dumps(params.get("response_format") or "")
            messages, params["max_tokens"] = model_limits.fit_to_window(
                messages, params["max_tokens"], window, schema
            )
        timeout = model_limits.timeout_seconds(self._settings, model)
        try:
            with genai.model_call(self._system, model) as span, slow_calls.model_call(model):
                reply = retrying(
                    self._create, model=model, messages=messages, timeout=timeout, **params
                )
                span.record(*_record_usage(model, reply))
        except openai.APIStatusError as exc:
            if "response_format" in params and structured_mode.is_refusal(exc):
                raise structured_mode.FormatRefused(str(exc)) from exc
            raise _translate_status(exc, model) from exc
        except openai.APIConnectionError as exc:  # includes APITimeoutError
            raise TransientError(f"LLM endpoint unreachable or too slow ({model})") from exc
        except openai.OpenAIError as exc:
            raise PermanentError(f"LLM call failed ({model}): {type(exc).__name__}") from exc
        return reply

    def _create(self, *, timeout: float, **body: Any) -> ChatCompletion:
        """POST /chat/completions with ``body`` as it is (Azure routes it by ``model``).

        The typed ``chat.completions.create`` runs every message and the JSON
        schema through the SDK's TypedDict transform, ≈ 2.5 ms of CPU per call
        (a third of a researcher's CPU). The body here is plain JSON already, so
        the SDK's client sends it unchanged, with the same timeouts and errors;
        streamed where an answer is being relayed (``llm_stream``).
        """
        return llm_stream.post(self._client, body, timeout)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        hinted = _retry_after(exc)
        if hinted is not None:
            return min(hinted, MAX_BACKOFF_SECONDS)
        backoff = self._initial_backoff * 2 ** (state.attempt_number - 1)
        return min(backoff + random.uniform(0, self._initial_backoff / 2), MAX_BACKOFF_SECONDS)


def _content(reply: Any) -> str:
    """The reply's answer text: the first choice's content without the model's thoughts."""
    message = reply.choices[0].message if reply.choices else None
    return without_reasoning(message.content or "") if message else ""


def _truncated(reply: Any) -> bool:
    return bool(reply.choices) and reply.choices[0].finish_reason == "length"


def _is_retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRYABLE_STATUS
    return isinstance(exc, openai.APIConnectionError)


def _retry_after(exc: BaseException | None) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``retry-after``)."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    for header, divisor in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        raw = response.headers.get(header)
        if raw is None:
            continue
        try:
            return max(0.0, float(raw) / divisor)
        except ValueError:
            continue
    return None


def _translate_status(exc: openai.APIStatusError, model: str) -> Exception:
    status = exc.status_code
    if status in _RETRYABLE_STATUS:
        return TransientError(f"LLM endpoint answered {status} ({model})", _retry_after(exc))
    if status in (401, 403):
        return ConfigurationError(f"LLM endpoint refused the credentials ({status}, {model})")
    return PermanentError(f"LLM endpoint answered {status} ({model})")


def _record_usage(model: str, reply: Any) -> tuple[int, int, float]:
    used = getattr(reply, "usage", None)
    prompt = int(getattr(used, "prompt_tokens", 0) or 0)
    completion = int(getattr(used, "completion_tokens", 0) or 0)
    return prompt, completion, record_call(model, prompt, completion)


def _short_error(exc: ValidationError, message: Any) -> str:
    refusal = getattr(message, "refusal", None)
    if refusal:
        return f"the model refused: {refusal[:300]}"
    problems = [
        f"{'.'.join(str(p) for p in err['loc']) or '(root)'}: {err['msg']}"
        for err in exc.errors()[:8]
    ]
    return "\n".join(problems)


def _with_system_suffix(messages: Messages, text: str) -> Messages:
    if messages and messages[0].get("role") == "system":
        first = {**messages[0], "content": f"{messages[0]['content']}\n\n{text}"}
        return [first, *messages[1:]]
    return [{"role": "system", "content": text}, *messages]
