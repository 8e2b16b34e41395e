# The panel's behaviour, with no hardware and no clock: feed it bytes, pin levels and
# times; it returns the lines to send, the NeoPixel colours and the screen to draw.
#
#   app = PanelApp(now=0, pixels=12)
#   out = app.receive(b"DW1 0 hello {}*XXXX\n", now)       # -> lines to write to USB
#   out += app.sample({"score": True}, (1, 1), now)           # pins -> button/knob lines
#   out += app.tick(now)                                      # heartbeat
#   colours = app.pixels(now); ops = app.take_screen()        # what to show
from dwpanel import protocol
from dwpanel.animations import frame
from dwpanel.debounce import Debouncer, QuadratureDecoder
from dwpanel.layout import layout, waiting_screen

FIRMWARE = "0.1.0"
SCREEN_LOST_MS = 10000   # the screen says "waiting" after this long without the host


class PanelApp:
    """What the table panel does, as a pure state machine.

    :param now: the current ms tick.
    :param pixels: NeoPixels on the strip or ring.
    :param screen: True when an e-ink panel is fitted.
    :param knob: True when a rotary encoder is fitted.
    """

    def __init__(self, now, pixels=12, screen=True, knob=True, long_ms=800):
        self.link = protocol.Endpoint(now, side="panel")
        self.pixel_count = pixels
        self.has_screen = screen
        self.has_knob = knob
        self.light = "waiting"
        self.light_since = now
        self.bar = 0
        self.effect = None
        self.effect_since = now
        self.buttons = {}
        for name in protocol.BUTTONS:
            if name != "push" or knob:
                self.buttons[name] = Debouncer(long_ms=long_ms)
        self.knob = QuadratureDecoder()
        self._screen = waiting_screen(FIRMWARE) if screen else None
        self._host_seen = False
        self._lost_shown = True
        self.messages = 0
        self.screens_drawn = 0      # counted by the glue, for tests and diagnostics

    # -- from the host ------------------------------------------------------------------------
    def receive(self, chunk, now):
        """Bytes from USB -> lines to send back. Never raises."""
        try:
            messages, replies = self.link.receive(chunk, now)
        except Exception as exc:   # a bug here must not stop the panel
            return [self._safe_error("panel fault: %s" % type(exc).__name__, now)]
        for seq, kind, body in messages:
            try:
                replies.extend(self.handle(seq, kind, body, now))
            except Exception as exc:
                replies.append(self._safe_error("panel could not show %s: %s" % (kind, type(exc).__name__), now))
        return replies

    def _safe_error(self, reason, now):
        return self.link.send("error", {"seq": None, "reason": reason}, now)

    def handle(self, seq, kind, body, now):
        self.messages += 1
        self._host_seen = True
        self._lost_shown = False
        if kind == "hello":
            return [self.link.send("hello", {
                "panel": "dicewatch-panel", "firmware": FIRMWARE, "protocol": protocol.PROTOCOL,
                "pixels": self.pixel_count, "screen": self.has_screen}, now)]
        if kind == "status":
            if body["light"] != self.light:
                self.light = body["light"]
                self.light_since = now
            self.bar = max(0, min(body["bar"], self.pixel_count))
            if body.get("sound"):
                self.effect = body["sound"]
                self.effect_since = now
        elif kind == "screen" and self.has_screen:
            self._screen = layout(body)
        return []

    # -- from the buttons and knob -----------------------------------------------------------
    def sample(self, pressed, knob_ab, now):
        """Pin levels -> lines to send. ``pressed``: {button: bool}; ``knob_ab``: (a, b) or None."""
        out = []
        for name in self.buttons:
            if name in pressed:
                event = self.buttons[name].update(pressed[name], now)
                if event:
                    out.append(self.link.send("button", {"name": name, "long": event == "long"}, now))
        if knob_ab is not None and self.has_knob:
            step = self.knob.update(knob_ab[0], knob_ab[1])
            if step:
                out.append(self.link.send("knob", {"step": step}, now))
        return out

    # -- time passing -----------------------------------------------------------------------
    def tick(self, now):
        """Heartbeat and host-lost handling -> lines to send."""
        if (self._host_seen and not self._lost_shown and self.has_screen
                and not self.link.peer_alive(now)
                and protocol.ticks_diff(now, self.link.last_heard) >= SCREEN_LOST_MS):
            self._screen = waiting_screen(FIRMWARE)
            self._lost_shown = True
        line = self.link.heartbeat(now)
        return [line] if line else []

    def host_alive(self, now):
        return self.link.peer_alive(now)

    def pixels(self, now):
        """The NeoPixel colours for this moment."""
        effect_ms = protocol.ticks_diff(now, self.effect_since)
        if self.effect is not None and effect_ms > 10000:
            self.effect = None
        return frame(self.light, self.bar, self.pixel_count, protocol.ticks_diff(now, self.light_since),
                     effect=self.effect, effect_ms=effect_ms, host_alive=self.host_alive(now), now_ms=now)

    def take_screen(self):
        """Drawing operations for a new screen, once; None when nothing changed."""
        ops, self._screen = self._screen, None
        return ops
