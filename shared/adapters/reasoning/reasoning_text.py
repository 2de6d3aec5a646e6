"""A reasoning model's thoughts are not its answer: remove them before anything reads the reply.

Local reasoning models (DeepSeek-R1 and Qwen3 under Ollama, LM Studio or the
llama.cpp server) write their chain of thought into ``content`` between
``<think>`` and ``</think>``. Some chat templates put the opening tag in the
prompt, so the reply starts with the thoughts and only the closing tag shows;
a reply cut at the output cap may open a block and never close it. vLLM with a
reasoning parser sends the thoughts in a separate ``reasoning_content`` field,
which nothing here reads. Left in, the thoughts fail JSON validation (a repair
call each time) or reach reports and stored files.

The thoughts' tokens stay in the usage the server reports: they were paid for.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<think(?:ing)?>.*?</think(?:ing)?>", re.DOTALL | re.IGNORECASE)
_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)


def without_reasoning(content: str) -> str:
    """``content`` with every thought block removed, whichever way the server wrote it.

    White space is kept where no thought was removed: a reply continued after
    the output cap is joined part by part, and its words must not run together.
    """
    text = _BLOCK.sub("", content)
    closings = list(_CLOSE.finditer(text))
    if closings:  # the opening tag was in the template: drop everything before
        text = text[closings[-1].end() :]
    opening = _OPEN.search(text)
    if opening is not None:  # opened and never closed: the reply was cut while thinking
        text = text[: opening.start()]
    return text.lstrip() if len(text) != len(content) else text
