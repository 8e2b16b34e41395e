"""The wire examples written in the protocol's own header are lines the protocol accepts
(someone writing a host or a panel in another language copies them)."""
from __future__ import annotations

import re
from pathlib import Path

from dwpanel import protocol

PROTOCOL_SOURCE = Path(protocol.__file__).read_text(encoding="utf-8")


def test_the_example_line_in_the_protocol_header_decodes():
    examples = re.findall(r"^#\s+e\.g\.\s+(DW1 .*\*[0-9A-Fa-f]{4})\s*$", PROTOCOL_SOURCE, re.MULTILINE)
    assert examples, "protocol.py's header has no 'e.g. DW1 ...*CRC' example"
    for example in examples:
        seq, kind, body = protocol.decode(example.encode())
        assert protocol.encode(seq, kind, body) == example.encode() + b"\n"
