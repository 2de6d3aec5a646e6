"""How long a model may take and how much it can read: per role, from settings or its family.

A team running a model itself knows what it gave the server (Ollama's
``num_ctx`` or ``OLLAMA_CONTEXT_LENGTH``, vLLM's ``--max-model-len``), so
``LLM_CONTEXT_TOKENS`` (every role) and ``LLM_CONTEXT_TOKENS_<ROLE>`` say it.
Unset, a model whose family is known gets that family's window; an unknown
name (an Azure deployment is named by its owner) gets none, and prompts keep
their character budget (``MAX_CONTEXT_CHARS``) alone. A local generation of a
long report can take minutes, so timeouts are per role too
(``LLM_TIMEOUT_SECONDS_<ROLE>``, else ``LLM_TIMEOUT_SECONDS``).

Roles are looked up by model name, because that is what a call carries; when
two roles share a model, the larger timeout and the smaller window win.
"""

from __future__ import annotations

from shared.core.config import Settings

# Conservative: English runs ~4 characters a token, code and other scripts fewer.
CHARS_PER_TOKEN = 3
# Known families, matched as a prefix of the model name without its ":tag"; the
# first match wins, so longer prefixes come first.
FAMILY_WINDOWS: tuple[tuple[str, int], ...] = (
    ("gpt-4.1", 1_047_576),
    ("gpt-5", 400_000),
    ("gpt-4o", 128_000),
    ("gpt-4-turbo", 128_000),
    ("o1", 200_000),
    ("o3", 200_000),
    ("o4", 200_000),
    ("gpt-3.5-turbo", 16_385),
    ("llama3.1", 131_072),
    ("llama3.2", 131_072),
    ("llama3.3", 131_072),
    ("llama3", 8_192),
    ("qwen3", 40_960),
    ("qwen2.5", 32_768),
    ("mistral", 32_768),
    ("mixtral", 32_768),
    ("gemma3", 131_072),
    ("gemma2", 8_192),
    ("phi3", 4_096),
    ("deepseek-r1", 131_072),
)


def role_models(settings: Settings) -> dict[str, str]:
    return {
        "fast": settings.fast_model,
        "strategic": settings.strategic_model,
        "long_context": settings.long_context_model,
        "chat": settings.chat_model,
    }


def family_window(model: str) -> int | None:
    name = model.lower().rsplit("/", 1)[-1].split(":", 1)[0]
    return next((size for prefix, size in FAMILY_WINDOWS if name.startswith(prefix)), None)


def context_tokens(settings: Settings, model: str) -> int | None:
    """The window of ``model`` in tokens, or None when nothing says it."""
    found = []
    for role, name in role_models(settings).items():
        if name == model:
            own = getattr(settings, f"llm_context_tokens_{role}")
            found.append(own or settings.llm_context_tokens or family_window(model))
    if not found:
        found.append(settings.llm_context_tokens or family_window(model))
    known = [size for size in found if size]
    return min(known) if known else None


def timeout_seconds(settings: Settings, model: str) -> float:
    """How long one call to ``model`` may take before it counts as failed (and is retried)."""
    timeouts = [
        getattr(settings, f"llm_timeout_seconds_{role}") or settings.llm_timeout_seconds
        for role, name in role_models(settings).items()
        if name == model
    ]
    return max(timeouts, default=settings.llm_timeout_seconds)


# A prompt's evidence shares (brief, sources, findings, draft) and its fixed text
# (instructions, a schema in the prompt), for prompts fitted to a window.
PROMPT_SHARES = 4
PROMPT_OVERHEAD_TOKENS = 1500
MIN_EVIDENCE_CHARS = 1500


def evidence_chars(settings: Settings, model: str, reply_tokens: int) -> int:
    """Characters of evidence one share of a prompt to ``model`` may hold.

    ``MAX_CONTEXT_CHARS`` unless the window is smaller: then the window less the
    reply's room and the instructions, split over the shares a prompt holds, so
    the prompt builders drop evidence in their own order (best first) and the
    last-resort cut of ``fit_to_window`` never has to act.
    """
    share = _share_of_window(settings, model, reply_tokens)
    return settings.max_context_chars if share is None else min(settings.max_context_chars, share)


def draft_chars(settings: Settings, model: str, reply_tokens: int) -> int | None:
    """How long a draft a prompt to ``model`` may carry; None: no window is known.

    A draft is cut only where the window is smaller than the draft cuts'
    own lengths (``context_budget.trim_draft``), so a large model reads as much
    as it always did.
    """
    return _share_of_window(settings, model, reply_tokens)


def _share_of_window(settings: Settings, model: str, reply_tokens: int) -> int | None:
    window = context_tokens(settings, model)
    if not window:
        return None
    reply = min(reply_tokens, window // 4)
    room = (window - reply - PROMPT_OVERHEAD_TOKENS) * CHARS_PER_TOKEN
    return max(MIN_EVIDENCE_CHARS, room // PROMPT_SHARES)


# The least a reply may be given room for; a prompt that leaves less is cut.
MIN_OUTPUT_TOKENS = 512
PER_MESSAGE_TOKENS = 8  # role markers and separators
CUT_MARK = "\n…[cut to fit the model's context window]…\n"


def estimated_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def fit_to_window(
    messages: list[dict[str, str]], max_tokens: int, window: int, extra_text: str = ""
) -> tuple[list[dict[str, str]], int]:
    """Messages and an output cap whose sum stays inside ``window`` tokens.

    The prompt budgets (``LLMReasoner``) are sized from the window, so this is
    the last guard, not the usual path: the output cap shrinks to what the
    prompt leaves; when that is under ``MIN_OUTPUT_TOKENS``, the middle of the
    longest message is cut (its head and tail, where instructions and the
    question sit, stay). ``extra_text`` is what else the request carries that
    the server counts (a JSON schema).
    """

    def prompt_tokens(msgs: list[dict[str, str]]) -> int:
        return estimated_tokens(extra_text) + sum(
            estimated_tokens(str(m.get("content") or "")) + PER_MESSAGE_TOKENS for m in msgs
        )

    output = min(max_tokens, MIN_OUTPUT_TOKENS)
    over = prompt_tokens(messages) + output - window
    if over > 0:
        longest = max(range(len(messages)), key=lambda i: len(messages[i].get("content") or ""))
        text = str(messages[longest].get("content") or "")
        keep = max(0, len(text) - (over + estimated_tokens(CUT_MARK)) * CHARS_PER_TOKEN)
        head = keep * 2 // 3
        cut = text[:head] + CUT_MARK + text[len(text) - (keep - head) :] if keep else CUT_MARK
        messages = [
            *messages[:longest],
            {**messages[longest], "content": cut},
            *messages[longest + 1 :],
        ]
    return messages, max(1, min(max_tokens, window - prompt_tokens(messages)))
