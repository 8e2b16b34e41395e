"""Hypothesis against the firmware's parser (under CPython): random bytes, random valid
lines, and valid lines with damage. The panel never raises, answers every bad line with
one well-formed error, acks every good command, and stays usable afterwards."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dwpanel import protocol
from dwpanel.app import PanelApp

text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FFF), max_size=40)
dice = st.lists(st.tuples(st.sampled_from(["BELL", "MILK", "GIFT", "6", "SNOWFLAKE"]),
                          st.sampled_from(["", "k", "f", "kl"])).map(list), max_size=8)
host_messages = st.one_of(
    st.builds(lambda light, bar, sound: ("status", {"light": light, "bar": bar, "sound": sound}),
              st.sampled_from(protocol.LIGHTS), st.integers(-5, 50), st.none() | st.sampled_from(protocol.SOUNDS)),
    st.builds(lambda kind, title, lines, d: ("screen", {"kind": kind, "title": title, "lines": lines, "dice": d}),
              st.sampled_from(protocol.SCREEN_KINDS), text, st.lists(text, max_size=6), dice),
    st.builds(lambda host: ("hello", {"host": host}), text),
    st.just(("ping", {})),
)


def check_replies(replies):
    """Every reply is a valid line from the panel; returns their kinds."""
    kinds = []
    for reply in replies:
        assert reply.endswith(b"\n") and len(reply) <= protocol.MAX_LINE
        seq, kind, body = protocol.decode(reply)
        assert kind in ("error", "ack", "hello")
        kinds.append(kind)
    return kinds


def still_works(app, now):
    replies = app.receive(protocol.encode(1, "status", {"light": "fault", "bar": 1}), now)
    assert check_replies(replies) == ["ack"] and app.light == "fault"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.binary(max_size=700), max_size=6))
def test_random_bytes_never_raise(chunks):
    app = PanelApp(0)
    for now, chunk in enumerate(chunks):
        check_replies(app.receive(chunk, now))
    app.receive(b"\n", 99)
    still_works(app, 100)


@settings(max_examples=150, deadline=None)
@given(st.lists(host_messages, min_size=1, max_size=5), st.integers(0, 65535))
def test_valid_lines_are_acked(messages, first_seq):
    app = PanelApp(0)
    sent = 0
    for offset, (kind, body) in enumerate(messages):
        try:
            line = protocol.encode(first_seq + offset, kind, body)
        except protocol.ProtocolError:
            continue   # too long for one line: the host trims before sending
        sent += 1
        kinds = check_replies(app.receive(line, offset))
        if kind == "status" and not 0 <= body["bar"]:
            assert kinds == ["ack"] and app.bar == 0
        elif kind in ("status", "screen"):
            assert kinds == ["ack"]
        elif kind == "hello":
            assert kinds == ["hello"]
        else:
            assert kinds == []
    assert app.messages == sent   # every line that fits was taken, none counted twice


@settings(max_examples=200, deadline=None)
@given(host_messages, st.data())
def test_damaged_lines_get_one_error_or_are_ignored(message, data):
    kind, body = message
    try:
        line = protocol.encode(7, kind, body)
    except protocol.ProtocolError:
        return
    damage = data.draw(st.sampled_from(["flip", "drop", "insert", "truncate"]))
    raw = bytearray(line[:-1])
    index = data.draw(st.integers(0, len(raw) - 1))
    if damage == "flip":
        raw[index] ^= 1 << data.draw(st.integers(0, 7))
    elif damage == "drop":
        del raw[index]
    elif damage == "insert":
        raw.insert(index, data.draw(st.integers(0, 255)))
    else:
        del raw[index:]
    app = PanelApp(0)
    kinds = check_replies(app.receive(bytes(raw) + b"\n", 5))
    # CRC-16 catches every single-byte change: only a piece identical to the original line
    # (a newline inserted or flipped in at its very edge) is acted on; every other
    # non-blank piece gets exactly one error
    pieces = [piece for piece in bytes(raw).split(b"\n") if piece.strip()]
    intact = [piece for piece in pieces if piece.rstrip(b"\r") == line[:-1]]
    assert kinds == ["error"] * (len(pieces) - len(intact)), (damage, bytes(raw))
    assert app.messages == len(intact)
    still_works(app, 10)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000))
def test_host_side_never_raises(data):
    link = protocol.Endpoint(0, side="host")
    messages, replies = link.receive(data, 0)
    for reply in replies:
        assert protocol.decode(reply)[1] == "error"
