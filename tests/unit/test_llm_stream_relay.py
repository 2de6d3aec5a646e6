"""The relay of a streamed reply: what it offers after a repair, a dropped try and a
continuation (its pieces are kept as a list, joined when parsed, not copied per token)."""

from __future__ import annotations

from shared.adapters.reasoning.llm_stream import Relay, _answer
from shared.tools import text_stream


class Sink:
    def __init__(self) -> None:
        self.offered: list[tuple[str, bool]] = []

    def offer(self, text: str, *, flush: bool = False) -> None:
        self.offered.append((text, flush))


def _fed(relay: Relay, *pieces: str) -> None:
    for piece in pieces:
        relay.feed(piece)


def test_a_dropped_try_and_a_repair_start_the_text_again_and_a_continuation_appends():
    sink = Sink()
    relay = Relay(_answer, clock=lambda: 0.0)  # parsed once: at the end
    with text_stream.streaming_to(sink):
        relay.begin_call()
        _fed(relay, '{"answer": "The with ', "statement calls")
        relay.drop_call()  # a transport retry: that try's text is gone
        relay.begin_call()
        _fed(relay, '{"answer": "A context', " manager")
        relay.begin_call()  # a continuation after the output cap appends
        _fed(relay, ' enters."}')
        relay.finish()
        assert sink.offered[-1] == ("A context manager enters.", True)

        relay.restart()  # a repair attempt starts from nothing
        relay.begin_call()
        _fed(relay, '{"answer": "Fixed."}')
        relay.finish()
    assert sink.offered[-1] == ("Fixed.", True)
