"""A model's reply read from its JSON: validated when it follows the API, read leniently
(as the SDK reads it) when a compatible server says something of its own."""

from __future__ import annotations

from openai.types.chat import ChatCompletion

from shared.adapters.reasoning.llm_stream import completion_of


def _reply(**choice: object) -> dict:
    return {
        "id": "r1",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "{}"}, **choice}],
        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
    }


def test_a_reply_that_follows_the_api_reads_as_the_sdk_would_read_it():
    data = _reply(finish_reason="length")
    reply = completion_of(data)
    assert isinstance(reply, ChatCompletion)
    assert reply.model_dump(exclude_none=True) == data  # nothing dropped or added
    assert reply.choices[0].finish_reason == "length"
    assert reply.choices[0].message.content == "{}"
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (12, 3)


def test_a_local_servers_own_words_are_still_read():
    data = _reply(finish_reason="eos")  # not one of the API's values
    del data["created"]
    reply = completion_of(data)
    assert reply.choices[0].finish_reason == "eos"
    assert reply.choices[0].message.content == "{}"
    assert reply.usage.completion_tokens == 3
