# The dicewatch panel line protocol, version 1 (shared by the Pico firmware and the host).
#
# One message per line, printable ASCII, at most MAX_LINE bytes including the newline:
#
#     DW1 <seq> <kind> <json object>*<crc>\n
#
#   DW1     protocol name and version; a peer speaking another version gets an error reply
#   seq     the sender's message number, 0-65535, +1 per line, wrapping to 0
#   kind    what the message is (KINDS below)
#   body    a JSON object (ASCII only; non-ASCII characters are \\u escapes)
#   crc     CRC-16/CCITT-FALSE of every byte before the '*', four upper-case hex digits
#
# e.g.  DW1 7 status {"light":"moving","bar":2,"sound":null}*7285
#
# Runs unchanged under CPython and MicroPython: no dataclasses, no annotations, no f-strings
# with conversions, only json from the standard library.
import json

VERSION = "DW1"
PROTOCOL = 1
MAX_LINE = 512           # bytes, newline included
SEQ_MODULO = 65536
TICKS_PERIOD = 1 << 30   # MicroPython's time.ticks_ms() wraps here
HEARTBEAT_MS = 1000      # send a ping after this long without sending anything
PEER_TIMEOUT_MS = 3500   # the peer is gone after this long without a valid line

LIGHTS = ("waiting", "moving", "read-ok", "attention", "fault", "off")
SOUNDS = ("seven-bells", "error", "attention", "scored", "game-over")
BUTTONS = ("score", "undo", "next", "push")
SCREEN_KINDS = ("roll", "scoreboard", "prompt", "error", "menu", "fault", "sleep")
DIE_MARKS = "kfl"        # a screen die's marks: any of these letters, e.g. "" or "kl"
DIE_MARKS_HELP = "k (kept), f (flagged), l (locked)"

# field types: "str", "int", "bool", "strs" (list of str), "rows" (list of lists of str),
# "dice" (list of [face, marks]), a leading "?" means the value may also be null.
# kind -> (who sends it, {field: (type, required)})
KINDS = {
    "hello": ("both", {"host": ("str", False), "panel": ("str", False), "firmware": ("str", False),
                       "protocol": ("int", False), "pixels": ("int", False), "screen": ("bool", False)}),
    "ping": ("both", {}),
    "ack": ("panel", {"seq": ("int", True)}),
    "error": ("both", {"seq": ("?int", True), "reason": ("str", True)}),
    "status": ("host", {"light": ("str", True), "bar": ("int", True), "sound": ("?str", False)}),
    "screen": ("host", {"kind": ("str", True), "title": ("str", True), "lines": ("strs", False),
                        "dice": ("dice", False), "total": ("str", False), "rows": ("rows", False),
                        "highlight": ("?int", False)}),
    "button": ("panel", {"name": ("str", True), "long": ("bool", False)}),
    "knob": ("panel", {"step": ("int", True)}),
}
CHOICES = {("status", "light"): LIGHTS, ("status", "sound"): SOUNDS, ("button", "name"): BUTTONS,
           ("screen", "kind"): SCREEN_KINDS, ("knob", "step"): (-1, 1)}


class ProtocolError(Exception):
    """A line that cannot be used; ``reason`` says why, ``seq`` is its number if readable."""

    def __init__(self, reason, seq=None):
        super().__init__(reason)
        self.reason = reason
        self.seq = seq


def crc16(data):
    """CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) of a bytes-like object."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            if crc & 0x8000:
                crc = ((crc << 1) ^ 0x1021) & 0xFFFF
            else:
                crc = (crc << 1) & 0xFFFF
    return crc


def ticks_diff(now, then):
    """``now - then`` in ms for tick counters that wrap at TICKS_PERIOD (like time.ticks_diff)."""
    half = TICKS_PERIOD // 2
    return ((now - then + half) % TICKS_PERIOD) - half


def _ascii_json(body):
    text = json.dumps(body, separators=(",", ":"))
    out = []
    for ch in text:
        code = ord(ch)
        out.append(ch if 32 <= code < 127 else "\\u%04x" % code if code < 0x10000 else "?")
    return "".join(out)


def encode(seq, kind, body=None):
    """One wire line (bytes, newline included); ProtocolError if it would be too long."""
    if kind not in KINDS:
        raise ProtocolError("unknown kind " + repr(kind))
    head = "%s %d %s %s" % (VERSION, seq % SEQ_MODULO, kind, _ascii_json(body or {}))
    line = "%s*%04X\n" % (head, crc16(head.encode()))
    if len(line) > MAX_LINE:
        raise ProtocolError("message is %d bytes; at most %d fit on a line" % (len(line), MAX_LINE))
    return line.encode()


def _check_type(kind, name, value, spec):
    if spec.startswith("?"):
        if value is None:
            return
        spec = spec[1:]
    ok = False
    if spec == "str":
        ok = isinstance(value, str)
    elif spec == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif spec == "bool":
        ok = isinstance(value, bool)
    elif spec == "strs":
        ok = isinstance(value, list) and all(isinstance(v, str) for v in value)
    elif spec == "rows":
        ok = isinstance(value, list) and all(
            isinstance(row, list) and all(isinstance(v, str) for v in row) for row in value)
    elif spec == "dice":
        ok = isinstance(value, list) and all(
            isinstance(d, list) and len(d) == 2 and isinstance(d[0], str) and isinstance(d[1], str)
            for d in value)
    if not ok:
        names = {"str": "text", "int": "a whole number", "bool": "true or false", "strs": "a list of text",
                 "rows": "a list of rows of text", "dice": "a list of [face, marks]"}
        raise ProtocolError("%s.%s: expected %s" % (kind, name, names.get(spec, spec)))
    if spec == "dice":
        for index in range(len(value)):
            marks = value[index][1]
            for ch in marks:
                if ch not in DIE_MARKS:
                    raise ProtocolError("%s.%s: die %d marks %s: expected letters from %s" % (
                        kind, name, index + 1, repr(marks), DIE_MARKS_HELP))
    choices = CHOICES.get((kind, name))
    if choices is not None and value not in choices:
        raise ProtocolError("%s.%s: expected one of %s" % (kind, name, ", ".join(str(c) for c in choices)))


def check_body(kind, body):
    """ProtocolError unless ``body`` has the fields ``kind`` needs, with the right types."""
    fields = KINDS[kind][1]
    for name in body:
        if name not in fields:
            raise ProtocolError("%s: unknown field %s" % (kind, repr(name)))
    for name in fields:
        spec, required = fields[name]
        if name not in body:
            if required:
                raise ProtocolError("%s: missing field %s" % (kind, repr(name)))
            continue
        _check_type(kind, name, body[name], spec)


def decode(line):
    """(seq, kind, body) from one line (bytes, with or without its newline).

    Raises ProtocolError with a reason a person can read; never any other exception.
    """
    try:
        return _decode(line)
    except ProtocolError:
        raise
    except Exception as exc:   # belt and braces: nothing a peer sends may crash the loop
        raise ProtocolError("unreadable line (%s)" % type(exc).__name__)


def _decode(line):
    line = bytes(line)
    while line and line[-1] in (10, 13):
        line = line[:-1]
    if len(line) + 1 > MAX_LINE:
        raise ProtocolError("line too long: %d bytes, at most %d" % (len(line) + 1, MAX_LINE))
    for index in range(len(line)):
        if not 32 <= line[index] < 127:
            raise ProtocolError("byte %d is 0x%02x; expected printable ASCII" % (index + 1, line[index]))
    text = line.decode()
    star = text.rfind("*")
    if star < 0 or len(text) - star != 5:
        raise ProtocolError("no checksum; expected the line to end with '*' and 4 hex digits")
    head, sent = text[:star], text[star + 1:]
    parts = head.split(" ", 3)
    seq = None
    if len(parts) >= 2 and parts[1].isdigit() and len(parts[1]) <= 5:
        seq = int(parts[1])
    for ch in sent:   # upper case only: a flipped case bit must not pass as the same checksum
        if ch not in "0123456789ABCDEF":
            raise ProtocolError("checksum %s is not 4 upper-case hex digits" % repr(sent), seq)
    wanted = int(sent, 16)
    if crc16(head.encode()) != wanted:
        raise ProtocolError("checksum mismatch (line garbled in transit)", seq)
    if len(parts) != 4:
        raise ProtocolError("expected 'DW1 <seq> <kind> <json>'", seq)
    version, _, kind, body_text = parts
    if version != VERSION:
        raise ProtocolError("protocol %s not spoken here; expected %s" % (repr(version), VERSION), seq)
    if seq is None or seq >= SEQ_MODULO:
        raise ProtocolError("sequence number %s: expected 0-%d" % (repr(parts[1]), SEQ_MODULO - 1))
    if kind not in KINDS:
        raise ProtocolError("unknown kind %s; expected one of %s" % (repr(kind), ", ".join(sorted(KINDS))), seq)
    try:
        body = json.loads(body_text)
    except ValueError:
        raise ProtocolError("%s: body is not valid JSON" % kind, seq)
    if not isinstance(body, dict):
        raise ProtocolError("%s: body must be a JSON object" % kind, seq)
    try:
        check_body(kind, body)
    except ProtocolError as exc:
        raise ProtocolError(exc.reason, seq)
    return seq, kind, body


class LineReader:
    """Splits a byte stream into lines; a line longer than MAX_LINE becomes one TOO_LONG marker.

    ``feed(chunk)`` returns a list whose items are complete lines (bytes, no newline) or
    ``LineReader.TOO_LONG``. Memory stays bounded whatever arrives.
    """

    TOO_LONG = object()   # compared with ``is``

    def __init__(self, max_line=MAX_LINE):
        self.max_line = max_line
        self.buffer = bytearray()
        self.discarding = False

    def feed(self, chunk):
        out = []
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            piece = chunk[start:] if end < 0 else chunk[start:end]
            if not self.discarding:
                self.buffer.extend(piece)
                if len(self.buffer) + 1 > self.max_line:
                    self.buffer = bytearray()
                    self.discarding = True
                    out.append(self.TOO_LONG)
            if end < 0:
                return out
            if not self.discarding:
                out.append(bytes(self.buffer))
            self.buffer = bytearray()
            self.discarding = False
            start = end + 1


class Endpoint:
    """One side of the link: numbers outgoing lines, reads incoming ones, keeps the heartbeat.

    ``receive(chunk, now)`` returns ``(messages, replies)``: the valid messages as
    ``(seq, kind, body)`` and the lines to send back (an ``error`` for every bad line;
    on the panel side an ``ack`` for every host command). It never raises.
    ``now`` is a millisecond tick count (time.ticks_ms() on the Pico).
    """

    def __init__(self, now, side="panel", heartbeat_ms=HEARTBEAT_MS, timeout_ms=PEER_TIMEOUT_MS):
        self.side = side
        self.seq = 0
        self.reader = LineReader()
        self.heartbeat_ms = heartbeat_ms
        self.timeout_ms = timeout_ms
        self.last_sent = now
        self.last_heard = None
        self.errors = 0

    def send(self, kind, body, now):
        line = encode(self.seq, kind, body)
        self.seq = (self.seq + 1) % SEQ_MODULO
        self.last_sent = now
        return line

    def _error(self, reason, seq, now):
        self.errors += 1
        if len(reason) > 200:
            reason = reason[:197] + "..."
        return self.send("error", {"seq": seq, "reason": reason}, now)

    def receive(self, chunk, now):
        messages, replies = [], []
        for line in self.reader.feed(bytes(chunk)):
            if line is LineReader.TOO_LONG:
                replies.append(self._error("line too long: more than %d bytes" % MAX_LINE, None, now))
                continue
            if not line.strip():
                continue
            try:
                seq, kind, body = decode(line)
            except ProtocolError as exc:
                if kind_of(line) != "error":   # never answer an error with an error
                    replies.append(self._error(exc.reason, exc.seq, now))
                continue
            self.last_heard = now
            sender = KINDS[kind][0]
            if sender != "both" and sender == self.side:
                replies.append(self._error("%s is sent by the %s, not to it" % (kind, sender), seq, now))
                continue
            messages.append((seq, kind, body))
            if self.side == "panel" and kind in ("status", "screen", "hello"):
                if kind != "hello":
                    replies.append(self.send("ack", {"seq": seq}, now))
        return messages, replies

    def heartbeat(self, now):
        """A ping line if nothing was sent for HEARTBEAT_MS, else None."""
        if ticks_diff(now, self.last_sent) >= self.heartbeat_ms:
            return self.send("ping", {}, now)
        return None

    def peer_alive(self, now):
        return self.last_heard is not None and ticks_diff(now, self.last_heard) < self.timeout_ms


def kind_of(line):
    """The kind word of a (possibly garbled) line, or None."""
    try:
        parts = bytes(line).split(b" ", 3)
        return parts[2].decode() if len(parts) >= 3 else None
    except Exception:
        return None
