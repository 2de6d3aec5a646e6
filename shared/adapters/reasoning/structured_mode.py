"""Which structured-output mode an endpoint supports, found by asking and then remembered.

``LLM_STRUCTURED_OUTPUT=auto`` (the default) starts with ``json_schema``, the
strictest. Ollama, LM Studio, the llama.cpp server and older vLLM builds
refuse it with a 400 (or accept only ``json_object``); such a refusal moves the
endpoint down one mode (``json_schema`` → ``json_object`` → ``prompt``, where
the schema travels in the prompt and no ``response_format`` is sent, so
nothing can be refused). What was found is kept for the process, per endpoint
and model, and logged once; another model on an endpoint that has refused a
mode starts where that endpoint settled, so a server that refuses
``json_schema`` costs one refused call, not one per model.

A fixed ``LLM_STRUCTURED_OUTPUT`` (``json_schema``, ``json_object``,
``prompt``) is used as it is and never changed.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, Literal

import openai

log = logging.getLogger(__name__)

Mode = Literal["json_schema", "json_object", "prompt"]
ORDER: tuple[Mode, ...] = ("json_schema", "json_object", "prompt")

_lock = threading.Lock()
_settled: dict[tuple[str, str], Mode] = {}
_endpoint_floor: dict[str, Mode] = {}


class FormatRefused(Exception):
    """The server answered a ``response_format`` it does not support with a 4xx."""


def first_mode(setting: str, endpoint: str, model: str) -> Mode:
    """The mode to try first for ``model`` at ``endpoint``."""
    if setting != "auto":
        return setting  # type: ignore[return-value]
    with _lock:
        return _settled.get((endpoint, model)) or _endpoint_floor.get(endpoint, ORDER[0])


def after_refusal(endpoint: str, model: str, refused: Mode) -> Mode:
    """The next mode once ``refused`` was refused; remembered for the process and logged once."""
    following = ORDER[min(ORDER.index(refused) + 1, len(ORDER) - 1)]
    with _lock:
        _settled[(endpoint, model)] = following
        floor = _endpoint_floor.get(endpoint, ORDER[0])
        if ORDER.index(following) > ORDER.index(floor):
            _endpoint_floor[endpoint] = following
    log.info(
        "structured output: %s at %s refused %s; using %s from now on",
        model,
        endpoint,
        refused,
        following,
    )
    return following


def is_refusal(exc: openai.APIStatusError) -> bool:
    """Does this 4xx say the ``response_format`` was not supported?

    The one place that reads an error's words: vLLM and the llama.cpp server
    name the parameter only in the message, while OpenAI-style servers set
    ``param``. It is asked only of a request that sent a ``response_format``,
    and a 400 about anything else (a temperature a model refuses, say) still
    fails the call.
    """
    if exc.status_code not in (400, 422, 501):
        return False
    body: Any = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error") if isinstance(body.get("error"), dict) else body
    if str(error.get("param") or "").startswith("response_format"):
        return True
    words = f"{error.get('message', '')} {exc.message}".lower()
    return any(name in words for name in ("response_format", "json_schema", "json_object"))
