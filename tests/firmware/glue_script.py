# The firmware's asyncio glue (dwpanel/runner.py) on the MicroPython WebAssembly port:
# a scripted host on a fake serial link, the fake machine/neopixel board, a button press.
# Run by test_asyncio_glue.py; prints one JSON line with what happened.
import sys
sys.path[:0] = ["/fw/fakes", "/fw/firmware"]

import asyncio
import json
import time

import machine
from dwpanel import protocol, runner
from dwpanel.board import PINS, Board


class ScriptedHost:
    """The host's end of the cable: lines to deliver at given ms, everything the panel wrote."""

    def __init__(self, script):
        self.script = script
        self.start = time.ticks_ms()
        self.received = bytearray()

    def read(self, limit=256):
        now = time.ticks_diff(time.ticks_ms(), self.start)
        if self.script and self.script[0][0] <= now:
            return self.script.pop(0)[1]
        return b""

    def write(self, data):
        self.received.extend(data)


host = ScriptedHost([
    (50, protocol.encode(0, "hello", {"host": "glue-test"})),
    (100, protocol.encode(1, "status", {"light": "moving", "bar": 2, "sound": None})),
    (150, protocol.encode(2, "screen", {"kind": "prompt", "title": "Check die 3", "lines": ["push to confirm"]})),
    (200, b"DW1 3 status {}*0000\n\x00\xff garbage\n"),
    (250, protocol.encode(4, "ping", {})),
])
machine.reset()
board = Board(pixels=8, screen=True, knob=True)
machine.SPI_BUSES[1].dc = machine.PINS[PINS["dc"]]    # so the fake bus can tell commands from data
start = time.ticks_ms()


press = {"state": "waiting"}


def until(app):
    """Press Score at 0.4 s, let go once the firmware saw it held; stop when everything
    happened (or after 60 s: a loaded machine runs the WebAssembly slowly)."""
    elapsed = time.ticks_diff(time.ticks_ms(), start)
    pin = machine.PINS[PINS["score"]]
    if press["state"] == "waiting" and elapsed >= 400:
        pin.level, press["state"] = 0, "down"
    elif press["state"] == "down" and app.buttons["score"].pressed:
        pin.level, press["state"] = 1, "up"
    sent = bytes(host.received)
    done = press["state"] == "up" and b" button " in sent and b" ping " in sent and app.screens_drawn >= 2
    return (done and elapsed > 1200) or elapsed > 60000


async def main():
    app = await asyncio.create_task(runner.run(pixels=8, board=board, link=host, until=until, screen_min_ms=50))
    lines = [protocol.decode(line) for line in bytes(host.received).split(b"\n") if line]
    frames = board.strip.frames
    spi = machine.SPI_BUSES[1]
    print(json.dumps({
        "kinds": [kind for seq, kind, body in lines],
        "bodies": [body for seq, kind, body in lines],
        "light": app.light, "bar": app.bar, "frames": len(frames), "last_frame": frames[-1] if frames else None,
        "screens_drawn": app.screens_drawn,
        "ram_writes": [len(data) for level, data in spi.written if level == 1 and len(data) > 1000],
    }))

await main()
