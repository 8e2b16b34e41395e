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

PIXELS = 12
SAMPLE_MS = 2        # button and knob sampling
PIXEL_MS = 33        # ~30 frames a second
TICK_MS = 100        # heartbeat check
SCREEN_MIN_MS = 5000  # at most one full e-ink refresh every 5 s (coalesced)


def _out():
    return getattr(sys.stdout, "buffer", sys.stdout)


def send(lines):
    out = _out()
    for line in lines:
        out.write(line)


async def serial_task(app):
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    source = getattr(sys.stdin, "buffer", sys.stdin)
    while True:
        chunk = bytearray()
        while len(chunk) < 256 and poller.poll(0):
            data = source.read(1)
            if not data:
                break
            chunk.extend(data if isinstance(data, bytes) else data.encode())
        if chunk:
            send(app.receive(chunk, time.ticks_ms()))
        await asyncio.sleep_ms(5)


async def input_task(app, board):
    while True:
        send(app.sample(board.pressed(), board.knob_ab(), time.ticks_ms()))
        await asyncio.sleep_ms(SAMPLE_MS)


async def pixel_task(app, board):
    while True:
        board.show_pixels(app.pixels(time.ticks_ms()))
        await asyncio.sleep_ms(PIXEL_MS)


async def tick_task(app):
    while True:
        send(app.tick(time.ticks_ms()))
        await asyncio.sleep_ms(TICK_MS)


async def screen_task(app, board):
    stride = (WIDTH + 7) // 8 * 8
    black = framebuf.FrameBuffer(bytearray(stride * HEIGHT // 8), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    red = framebuf.FrameBuffer(bytearray(stride * HEIGHT // 8), WIDTH, HEIGHT, framebuf.MONO_HLSB)
    canvas = TwoPlanes(black, red)
    while True:
        ops = app.take_screen()
        if ops is not None:
            render(ops, canvas)
            board.start_screen(black.pixel, red.pixel)
            while board.screen_busy():
                await asyncio.sleep_ms(100)
            board.screen_sleep()
            await asyncio.sleep_ms(SCREEN_MIN_MS)
        await asyncio.sleep_ms(200)


async def run(pixels=PIXELS, screen=True, knob=True):
    board = Board(pixels=pixels, screen=screen, knob=knob)
    app = PanelApp(time.ticks_ms(), pixels=pixels, screen=screen, knob=knob)
    tasks = [serial_task(app), input_task(app, board), pixel_task(app, board), tick_task(app)]
    if screen:
        tasks.append(screen_task(app, board))
    await asyncio.gather(*tasks)


def main(pixels=PIXELS, screen=True, knob=True):
    asyncio.run(run(pixels, screen, knob))
