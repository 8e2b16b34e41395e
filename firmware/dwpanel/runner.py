# The asyncio glue: a few small tasks that move bytes and pin levels between the Board
# and the PanelApp. All behaviour lives in app.py (tested under CPython and MicroPython);
# keep this file thin.
import sys

import asyncio
import framebuf
import select
import time

from dwpanel.app import PanelApp
from dwpanel.board import Board
from dwpanel.layout import HEIGHT, WIDTH, TwoPlanes, render
from dwpanel.ssd1680 import RAM_HEIGHT, ROW_BYTES, ram_bytes

PIXELS = 12
SAMPLE_MS = 2        # button and knob sampling
PIXEL_MS = 33        # ~30 frames a second
TICK_MS = 100        # heartbeat check
SCREEN_MIN_MS = 5000  # at most one full e-ink refresh every 5 s (coalesced)
ROWS_PER_STEP = 10    # e-ink RAM rows converted between two looks at the buttons


class UsbSerial:
    """The USB serial link: non-blocking reads of what has arrived, plain writes."""

    def __init__(self):
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.source = getattr(sys.stdin, "buffer", sys.stdin)
        self.sink = getattr(sys.stdout, "buffer", sys.stdout)

    def read(self, limit=256):
        chunk = bytearray()
        while len(chunk) < limit and self.poller.poll(0):
            data = self.source.read(1)
            if not data:
                break
            chunk.extend(data if isinstance(data, bytes) else data.encode())
        return bytes(chunk)

    def write(self, data):
        self.sink.write(data)


def _send(link, lines):
    for line in lines:
        link.write(line)


async def serial_task(app, link):
    while True:
        chunk = link.read()
        if chunk:
            _send(link, app.receive(chunk, time.ticks_ms()))
        await asyncio.sleep_ms(5)


async def input_task(app, board, link):
    while True:
        _send(link, app.sample(board.pressed(), board.knob_ab(), time.ticks_ms()))
        await asyncio.sleep_ms(SAMPLE_MS)


async def pixel_task(app, board):
    while True:
        board.show_pixels(app.pixels(time.ticks_ms()))
        await asyncio.sleep_ms(PIXEL_MS)


async def tick_task(app, link):
    while True:
        _send(link, app.tick(time.ticks_ms()))
        await asyncio.sleep_ms(TICK_MS)


async def screen_task(app, board, min_ms=SCREEN_MIN_MS):
    stride = (WIDTH + 7) // 8 * 8
    black = framebuf.FrameBuffer(bytearray(stride * HEIGHT // 8), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    red = framebuf.FrameBuffer(bytearray(stride * HEIGHT // 8), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    canvas = TwoPlanes(black, red)
    black_ram = bytearray(ROW_BYTES * RAM_HEIGHT)
    red_ram = bytearray(ROW_BYTES * RAM_HEIGHT)
    while True:
        ops = app.take_screen()
        if ops is not None:
            render(ops, canvas)
            for first in range(0, RAM_HEIGHT, ROWS_PER_STEP):   # slow in Python: let the others run
                last = min(first + ROWS_PER_STEP, RAM_HEIGHT)
                ram_bytes(black.pixel, rotation=board.rotation, out=black_ram, first=first, last=last)
                ram_bytes(red.pixel, rotation=board.rotation, out=red_ram, first=first, last=last)
                await asyncio.sleep_ms(0)
            board.start_screen(black_ram, red_ram)
            while board.screen_busy():
                await asyncio.sleep_ms(100)
            board.screen_sleep()
            app.screens_drawn += 1
            await asyncio.sleep_ms(min_ms)
        await asyncio.sleep_ms(200)


async def run(pixels=PIXELS, screen=True, knob=True, rotation=90, board=None, link=None, until=None,
              screen_min_ms=SCREEN_MIN_MS):
    """Run the panel: forever on the Pico; until ``until(app)`` is true in tests."""
    board = board if board is not None else Board(pixels=pixels, screen=screen, knob=knob, rotation=rotation)
    link = link if link is not None else UsbSerial()
    app = PanelApp(time.ticks_ms(), pixels=pixels, screen=screen, knob=knob)
    coros = [serial_task(app, link), input_task(app, board, link), pixel_task(app, board), tick_task(app, link)]
    if screen:
        coros.append(screen_task(app, board, screen_min_ms))
    tasks = [asyncio.create_task(coro) for coro in coros]
    while until is None or not until(app):
        await asyncio.sleep_ms(20)
    for task in tasks:
        task.cancel()
    return app


def main(pixels=PIXELS, screen=True, knob=True, rotation=90):
    asyncio.run(run(pixels, screen, knob, rotation))
