"""Tools the adapters share (LLM endpoint, lexical, prompts, language, log privacy)."""
