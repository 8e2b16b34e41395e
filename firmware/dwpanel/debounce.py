# Buttons and the rotary encoder, as pure state machines fed with pin levels and times.
#
# board.py samples the pins (every few ms) and feeds the levels in; these classes decide
# what a person did. No hardware, no clock of their own: ``now`` is a ms tick count.


def _diff(now, then):
    half = 1 << 29
    return ((now - then + half) % (1 << 30)) - half


class Debouncer:
    """One push button: ignores contact bounce, tells a short press from a long one.

    ``update(pressed, now)`` returns ``"press"`` (released before ``long_ms``),
    ``"long"`` (as soon as it has been held ``long_ms``; no "press" follows on release)
    or None. A level must hold for ``stable_ms`` before it counts.

    >>> b = Debouncer()
    >>> b.update(True, 0), b.update(True, 25), b.update(False, 200), b.update(False, 230)
    (None, None, None, 'press')
    """

    def __init__(self, stable_ms=20, long_ms=800):
        self.stable_ms = stable_ms
        self.long_ms = long_ms
        self.pressed = False          # the debounced level
        self._raw = False
        self._raw_since = 0
        self._pressed_at = 0
        self._long_sent = False

    def update(self, pressed, now):
        pressed = bool(pressed)
        if pressed != self._raw:
            self._raw = pressed
            self._raw_since = now
        event = None
        if self._raw != self.pressed and _diff(now, self._raw_since) >= self.stable_ms:
            self.pressed = self._raw
            if self.pressed:
                self._pressed_at = self._raw_since
                self._long_sent = False
            elif not self._long_sent:
                event = "press"
        if self.pressed and not self._long_sent and _diff(now, self._pressed_at) >= self.long_ms:
            self._long_sent = True
            event = "long"
        return event


# Quadrature: (previous AB, new AB) -> -1, 0 or +1 quarter step. Invalid jumps (both
# pins changed at once: a missed sample or a bounce) count as 0.
_STEP = {
    (0b00, 0b01): 1, (0b01, 0b11): 1, (0b11, 0b10): 1, (0b10, 0b00): 1,
    (0b00, 0b10): -1, (0b10, 0b11): -1, (0b11, 0b01): -1, (0b01, 0b00): -1,
}


class QuadratureDecoder:
    """A rotary encoder's A/B pins to detent clicks (+1 clockwise, -1 anticlockwise).

    ``update(a, b)`` returns +1, -1 or 0. A KY-040 style encoder makes four transitions
    per detent and rests with both pins high (pulled up); a click is reported when a full
    cycle of ``steps_per_detent`` quarter steps in one direction brings it back to rest,
    so bounce that goes back and forth cancels out.
    """

    def __init__(self, steps_per_detent=4, rest=0b11):
        self.steps_per_detent = steps_per_detent
        self.rest = rest
        self.state = rest
        self.count = 0

    def update(self, a, b):
        new = (1 if a else 0) << 1 | (1 if b else 0)
        if new == self.state:
            return 0
        self.count += _STEP.get((self.state, new), 0)
        self.state = new
        if new == self.rest or self.steps_per_detent == 1:
            if self.count >= self.steps_per_detent:
                self.count = 0
                return 1
            if self.count <= -self.steps_per_detent:
                self.count = 0
                return -1
            if new == self.rest:
                self.count = 0
        return 0
