"""The SDK client for the configured OpenAI-compatible endpoint, built in one place.

The LLM reasoner (chat completions) and the embedding reranker call the same
endpoint: OpenAI, Azure OpenAI (an API key, or the managed identity through
``DefaultAzureCredential`` when no key is set), or a local server such as
Ollama or vLLM (``OPENAI_BASE_URL``, no key needed). The SDK's own retries are
off: each caller retries at the depth it knows best.
"""

from __future__ import annotations

from typing import Any

import openai

from shared.core.config import Settings
from shared.core.errors import ConfigurationError

_AZURE_SCOPE = "https://cognitiveservices.azure.com/.default"


def build_openai_client(settings: Settings) -> openai.OpenAI:
    """The SDK client for the configured endpoint; the SDK's own retries are off."""
    common: dict[str, Any] = {"timeout": settings.llm_timeout_seconds, "max_retries": 0}
    if settings.azure_openai_endpoint:
        if settings.azure_openai_api_key:
            auth: dict[str, Any] = {"api_key": settings.azure_openai_api_key.get_secret_value()}
        else:
            from azure.identity import DefaultAzureCredential, get_bearer_token_provider

            provider = get_bearer_token_provider(DefaultAzureCredential(), _AZURE_SCOPE)
            auth = {"azure_ad_token_provider": provider}
        return openai.AzureOpenAI(
            azure_endpoint=settings.azure_openai_endpoint,
            api_version=settings.azure_openai_api_version,
            **auth,
            **common,
        )
    if settings.openai_api_key:
        api_key = settings.openai_api_key.get_secret_value()
    elif settings.openai_base_url:
        api_key = "not-needed"  # local servers (Ollama, vLLM) ignore the key
    else:
        raise ConfigurationError(
            "no LLM endpoint: set OPENAI_API_KEY, OPENAI_BASE_URL or AZURE_OPENAI_ENDPOINT"
        )
    return openai.OpenAI(api_key=api_key, base_url=settings.openai_base_url or None, **common)
