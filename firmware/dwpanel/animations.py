# NeoPixel pictures as pure functions of time: (what to show, pixel count, ms) -> colours.
#
# Nothing here touches hardware; board.py writes the returned list of (r, g, b) tuples
# (0-255) to the strip. Integer maths only, so a Pico without an FPU stays quick.
#
# The colours match the host's GPIO status light (host/devices.py STATUS_COLOURS):
#   waiting    dim blue, breathing slowly       ready: roll the dice
#   moving     amber comet running round        dice tumbling / a hand in the tray
#   read-ok    green flash fading out           the roll was read and scored
#   attention  magenta blink                    look at the screen, press a button
#   fault      red blink                        camera lost, broken config...
#   off        dark
# Below the status picture the first ``bar`` pixels show the roll number or the fate
# snowflakes in icy white. A lost host shows one slow orange pulse on pixel 0.

BRIGHTNESS = 64          # cap per channel (of 255): 12 pixels stay well inside USB's 500 mA

BASE = {
    "waiting": (0, 0, 255),
    "moving": (255, 115, 0),
    "read-ok": (0, 255, 0),
    "attention": (255, 0, 255),
    "fault": (255, 0, 0),
    "off": (0, 0, 0),
}
SNOWFLAKE = (150, 200, 255)
GOLD = (255, 170, 0)
ERROR_RED = (255, 0, 0)
HOST_LOST = (255, 60, 0)
BLACK = (0, 0, 0)

BLINK_MS = 400
BREATH_MS = 3000
FLASH_MS = 1500
SPIN_MS = 900
EFFECT_MS = {"seven-bells": 2400, "error": 600, "attention": 500, "scored": 300, "game-over": 3000}


def scale(colour, level):
    """``colour`` at ``level``/255 of itself, then capped by BRIGHTNESS."""
    level = max(0, min(255, level))
    return tuple((c * level * BRIGHTNESS) // (255 * 255) for c in colour)


def triangle(t_ms, period_ms):
    """0 -> 255 -> 0 over ``period_ms``."""
    phase = (t_ms % period_ms) * 510 // period_ms
    return phase if phase <= 255 else 510 - phase


def status_colour(light, t_ms):
    """The colour of the status picture at ``t_ms`` since the state began."""
    base = BASE.get(light, BASE["fault"])
    if light == "waiting":
        return scale(base, 40 + triangle(t_ms, BREATH_MS) * 120 // 255)
    if light in ("attention", "fault"):
        return scale(base, 255 if (t_ms // BLINK_MS) % 2 == 0 else 0)
    if light == "read-ok":
        return scale(base, max(60, 255 - t_ms * 195 // FLASH_MS))
    return scale(base, 255)


def roll_spin(count, t_ms):
    """An amber comet running round the ring: the dice are tumbling."""
    if count <= 0:
        return []
    head = (t_ms * count // SPIN_MS) % count
    out = []
    for index in range(count):
        behind = (head - index) % count
        level = 255 >> behind if behind < 4 else 0
        out.append(scale(BASE["moving"], level))
    return out


def snowflakes(bar, count, t_ms):
    """The first ``bar`` pixels twinkling icy white, the rest dark."""
    out = []
    for index in range(count):
        if index < bar:
            out.append(scale(SNOWFLAKE, 150 + triangle(t_ms + index * 270, 1600) * 105 // 255))
        else:
            out.append(BLACK)
    return out


def effect_frame(effect, count, t_ms):
    """A one-shot picture for a sound (``seven-bells`` ...) at ``t_ms`` after it began, or None when done."""
    length = EFFECT_MS.get(effect)
    if length is None or t_ms >= length or count <= 0:
        return None
    if effect == "seven-bells":   # seven gold sweeps, one per bell
        lit = (t_ms * 7 * count // length) % count
        return [scale(GOLD, 255 if index <= lit else 30) for index in range(count)]
    if effect == "error":
        return [scale(ERROR_RED, 255)] * count
    if effect == "game-over":     # a colour wheel chasing round
        return [scale(wheel((index * 256 // count + t_ms // 4) % 256), 255) for index in range(count)]
    level = 255 - t_ms * 255 // length
    colour = BASE["attention"] if effect == "attention" else BASE["read-ok"]
    return [scale(colour, level)] * count


def wheel(position):
    """Red -> green -> blue -> red for position 0-255."""
    position %= 256
    if position < 85:
        return (255 - position * 3, position * 3, 0)
    if position < 170:
        position -= 85
        return (0, 255 - position * 3, position * 3)
    position -= 170
    return (position * 3, 0, 255 - position * 3)


def frame(light, bar, count, since_ms, effect=None, effect_ms=0, host_alive=True, now_ms=0):
    """Everything on the strip at once.

    :param light: the host's status (``waiting``, ``moving``...).
    :param bar: roll number / snowflakes to show (0-``count``).
    :param count: number of pixels.
    :param since_ms: ms since ``light`` was set.
    :param effect: a sound's picture that plays over the top, started ``effect_ms`` ago.
    :param host_alive: False when the host's heartbeat stopped.
    :param now_ms: free-running clock for the host-lost pulse.
    """
    if count <= 0:
        return []
    if not host_alive:
        return [scale(HOST_LOST, 20 + triangle(now_ms, 2000) * 200 // 255)] + [BLACK] * (count - 1)
    over = effect_frame(effect, count, effect_ms) if effect else None
    if over is not None:
        return over
    if light == "off":
        return [BLACK] * count
    if light == "moving":
        return roll_spin(count, since_ms)
    pixels = snowflakes(min(max(bar, 0), count), count, now_ms)
    colour = status_colour(light, since_ms)
    # the status colour fills the pixels the bar does not use; with a full bar, the last pixel shows it
    first_free = min(max(bar, 0), count)
    if first_free >= count:
        pixels[count - 1] = colour
    for index in range(first_free, count):
        pixels[index] = colour
    return pixels
