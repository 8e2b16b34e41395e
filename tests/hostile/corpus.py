"""The hostile-input corpus (issue 56): bad inputs for every command and every file kind the
box reads, grouped by class. Each case is a command line (``{tmp}`` stands for a scratch
folder the case's files are written into) and what a good answer is:

* ``ERROR``: a clear refusal: exit 1 or 2, a message on stderr, no traceback, in time;
* ``OK``: a hostile-looking input that is fine (exit 0, no traceback).

``tests/hostile/sweep.py`` runs every case as a separate process (a hang shows as a time-out)
and counts the answers per class; ``tests/hostile/test_corpus.py`` runs them in-process in the
test suite. Files are made by small writers below, never taken from elsewhere.
"""
from __future__ import annotations

import json
import struct
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ERROR, OK = "error", "ok"

JBR_HEADER = {"schema": 1, "game": "jingle-bell-roll", "setup": {"players": ["Ann", "Ben"]}}
ROLL = {"type": "roll", "faces": ["MILK", "COOKIE", "LIST", "LIST", "STOCKING", "GIFT", "BELL"]}


@dataclass(frozen=True)
class Case:
    kind: str                       # the class of bad input
    argv: tuple[str, ...]
    expect: str = ERROR
    files: dict[str, Callable[[], bytes]] = field(default_factory=dict)   # name under {tmp} -> contents
    slow: bool = False              # loads the dice models or a camera: left to the sweep

    def name(self) -> str:
        return f"{self.kind}: {' '.join(self.argv)}"[:120]


# ------------------------------------------------------------------ file writers

def png(width: int, height: int, *, truncate: int | None = None, colour: int = 2) -> bytes:
    """A PNG of ``width`` x ``height`` grey pixels; a huge size is only claimed in the header
    (a decompression bomb's first bytes), ``truncate`` cuts the file short."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, 0)
    channels = 3 if colour == 2 else 1
    whole = width * height <= 4_000_000          # else only the header claims the size
    rows, columns = (height, width) if whole else (min(height, 64), min(width, 64))
    raw = b"".join(b"\x00" + b"\x80" * (columns * channels) for _ in range(rows))
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return data[:truncate] if truncate else data


def text(value: str) -> Callable[[], bytes]:
    return lambda: value.encode("utf-8")


def raw(value: bytes) -> Callable[[], bytes]:
    return lambda: value


def jsonl(*lines) -> Callable[[], bytes]:
    return lambda: "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines).encode()


def calibration(**changes) -> Callable[[], bytes]:
    """A calibration file (schema 2) with some fields changed (None: the field left out)."""
    def make() -> bytes:
        doc = {"schema": 2, "name": "bad", "mat": "A4", "frame_size": [640, 480],
               "image_to_mat": [[0.5, 0, -20], [0, 0.5, -15], [0, 0, 1]], "mm_per_pixel": 2.0,
               "reprojection_px": 0.3, "background": None, "created": "", "camera": None, "markers": None}
        for key, value in changes.items():
            if value is None:
                doc.pop(key, None)
            else:
                doc[key] = value
        return json.dumps(doc).encode()
    return make


def deep_json(depth: int) -> str:
    return "[" * depth + "]" * depth


# ------------------------------------------------------------------ the cases

def _numbers(command: tuple[str, ...], flag: str, values: list[str], kind: str, slow: bool = False) -> list[Case]:
    return [Case(kind, (*command, flag, value), slow=slow) for value in values]


BAD_NUMBERS = ["-1", "0", "nan", "inf", "1e999", "99999999999", "abc", ""]
BAD_SIZES = ["0x0", "-640x480", "100000x100000", "640", "x", "640x480x3", "1e3x1e3", "nanxnan"]


def cases() -> list[Case]:
    found: list[Case] = []
    add = found.extend

    # -- usage: every command with an unknown flag, and without its required arguments
    from host.cli import build_parser
    commands = sorted(build_parser()[1])   # every command there is, also those added later
    add(Case("unknown flag", (command, "--no-such-flag")) for command in commands)
    add(Case("missing arguments", (command,)) for command in
        ["calibrate", "dice", "geometry", "mat", "place", "read", "replay", "score", "teach"])
    add([Case("missing arguments", ()), Case("unknown command", ("no-such-command",))])

    # -- numbers and sizes: every count and size has a sane limit
    add(_numbers(("geometry", "--tray", "400x300"), "--margin", [n for n in BAD_NUMBERS if n != "0"], "numbers"))
    add([Case("numbers", ("geometry", "--tray", "400x300", "--margin", "0"), OK)])     # no margin: fine
    add(_numbers(("geometry", "--tray", "400x300"), "--die", BAD_NUMBERS, "numbers"))
    add(Case("sizes", ("geometry", "--tray", size)) for size in BAD_SIZES)
    add(Case("sizes", ("geometry", "--tray", "400x300", "--resolution", size)) for size in BAD_SIZES)
    add(_numbers(("mat", "--out", "{tmp}/mat.png"), "--dpi", BAD_NUMBERS, "numbers"))
    add(_numbers(("panel", "--panel", "serial:/dev/null-no-such"), "--seconds", BAD_NUMBERS, "numbers"))
    add(_numbers(("replay", "{tmp}/game.jsonl"), "--undo", ["-1", "abc", "99999999999", "1e3"], "numbers"))
    add(_numbers(("demo", "--out", "{tmp}/demo"), "--seed", ["abc", "1e3", "nan"], "numbers"))
    add(_numbers(("demo", "--out", "{tmp}/demo"), "--pace", ["-1", "nan", "inf", "1e9", "abc"], "numbers"))
    add(Case("sizes", ("demo", "--out", "{tmp}/demo", "--size", size)) for size in BAD_SIZES)
    add(_numbers(("calibrate", "--camera", "synthetic"), "--frames", ["-1", "0", "100000", "abc"], "numbers"))
    add(_numbers(("teach", "--dice", "mine", "--camera", "synthetic", "--faces", "A,B"), "--shots",
                 ["-1", "0", "100000", "abc"], "numbers"))
    add(_numbers(("read", "--frames", "{tmp}"), "--fps", ["-1", "0", "nan", "inf", "abc"], "numbers"))
    for case in found:
        if "{tmp}/game.jsonl" in case.argv:
            object.__setattr__(case, "files", {"game.jsonl": jsonl(JBR_HEADER, ROLL)})

    # -- names: sets, calibrations, sessions, games, cameras, panels
    add([Case("names", ("dice", "rename", "christmas-romance", "FACE-2", "FACE-3"), slow=True),   # train the set first
         Case("names", ("dice", "rename", "christmas-romance", "NOPE", "X"), slow=True)])
    add(Case("names", argv) for argv in [
        ("calibrate", "--camera", "synthetic", "--name", "../escape"),
        ("calibrate", "--camera", "synthetic", "--name", "x" * 300),
        ("calibrate", "--camera", "synthetic", "--name", ""),
        ("calibrate", "--camera", "no-such-camera"),
        ("calibrate", "--camera", "opencv:"),
        ("calibrate", "--camera", "video:"),
        ("calibrate", "--camera", "frames:{tmp}/missing"),
        ("calibrate", "--camera", "video:{tmp}/missing.mp4"),
        ("read", "{tmp}/a.png", "--dice", "../../etc"),
        ("read", "{tmp}/a.png", "--dice", "no-such-set"),
        ("read", "{tmp}/a.png", "--calibration", "../x"),
        ("read", "{tmp}/a.png", "--calibration", "missing"),
        ("teach", "--dice", "../escape", "--camera", "synthetic", "--faces", "A,B"),
        ("teach", "--dice", "d6-pips", "--camera", "synthetic", "--faces", "A,B"),
        ("teach", "--dice", "mine", "--camera", "synthetic", "--faces", "A,A"),
        ("teach", "--dice", "mine", "--camera", "synthetic", "--faces", "A"),
        ("teach", "--dice", "mine", "--camera", "synthetic", "--faces", "A B,C"),
        ("teach", "--dice", "mine", "--camera", "synthetic"),
        ("dice", "show", "../escape"),
        ("dice", "show", "no-such-set"),
        ("dice", "delete", "no-such-set"),
        ("dice", "delete", "d6-pips"),
        ("dice", "rename", "no-such-set", "A", "B"),
        ("dice", "rename", "jingle-bell-roll", "MILK", "CREAM"),
        ("dice", "rename", "christmas-romance", "FACE-2", "has space"),
        ("dice", "show", "jingle-bell-roll", "--out", "{tmp}/sheet.jpg"),
        ("dice", "show", "jingle-bell-roll", "--out", "{tmp}"),
        ("export", "no-such-session"),
        ("export", "latest", "--sessions", "{tmp}/missing.db"),
        ("export", "latest", "--format", "xml"),
        ("run", "--game", "no-such-game", "--players", "Ann"),
        ("run", "--players", ",,", "--display", "none", "--no-gpio"),
        ("run", "--players", "Ann", "--camera", "bogus:1", "--display", "none", "--no-gpio"),
        ("run", "--players", "Ann", "--panel", "usb:zz:zz", "--display", "none", "--no-gpio"),
        ("run", "--players", "Ann", "--web", "nohost:99999", "--display", "none", "--no-gpio"),
        ("run", "--resume", "no-such-session", "--display", "none", "--no-gpio"),
        ("run", "--resume", "--display", "none", "--no-gpio"),
        ("run", "--players", "Ann,Ben", "--mode", "coop", "--display", "none", "--no-gpio"),
        ("demo", "--game", "no-such-game"),
        ("demo", "--mode", "coop", "--out", "{tmp}/demo"),
        ("demo", "--web", "abc", "--out", "{tmp}/demo"),
        ("panel", "--panel", "usb:nothex:0005", "--seconds", "1"),
        ("panel", "--panel", "serial:", "--seconds", "1"),
        ("score", "no-such-game", "--dice", "MILK"),
        ("score", "jingle-bell-roll", "--dice", "..."),
        ("score", "jingle-bell-roll", "--dice", "MILK,COOKIE"),
        ("score", "jingle-bell-roll", "--dice", ",".join(["MILK"] * 100)),
        ("score", "jingle-bell-roll", "--dice", "MILK,COOKIE,LIST,LIST,GIFT,BELL,BELL", "--character", "Nobody"),
        ("score", "jingle-bell-roll", "--dice", "MILK,COOKIE,LIST,LIST,GIFT,BELL,BELL", "--cards", "Nope"),
        ("score", "jingle-bell-roll", "--dice", "MILK,COOKIE,LIST,LIST,GIFT,BELL,BELL", "--letters", "BELL"),
        ("geometry", "--tray", "400x300", "--camera", "no-such"),
        ("mat", "--out", "{tmp}/mat.txt"),
        ("mat", "--out", "{tmp}"),
        ("mat", "--out", "{tmp}/mat.png", "--size", "A0"),
    ])

    # -- photos the box is asked to read
    photos = {"empty.png": raw(b""), "text.jpg": text("not a picture"), "cut.png": lambda: png(64, 64, truncate=60),
              "bomb.png": lambda: png(60000, 60000), "tiny.png": lambda: png(1, 1), "line.png": lambda: png(4000, 1),
              "grey.png": lambda: png(64, 64, colour=0), "binary.jpg": raw(bytes(range(256)) * 8)}
    for name, make in photos.items():
        expect = OK if name in ("tiny.png", "grey.png", "line.png") else ERROR
        add([Case("photos", ("read", f"{{tmp}}/{name}"), expect, {name: make}, slow=True),
             Case("photos", ("read", f"{{tmp}}/{name}", "--json"), expect, {name: make}, slow=True)])
    add([Case("photos", ("read", "{tmp}/missing.jpg"), slow=True),
         Case("photos", ("read", "{tmp}"), slow=True),
         Case("photos", ("read", "{tmp}/text.jpg", "--overlay", "{tmp}/text.jpg"), files={"text.jpg": text("x")}),
         Case("photos", ("read", "{tmp}/tiny.png", "--overlay", "{tmp}/tiny.png"), files={"tiny.png": lambda: png(1, 1)})])

    # -- videos and frame folders
    add([Case("videos", ("read", "--video", "{tmp}/v.mp4"), files={"v.mp4": raw(b"")}, slow=True),
         Case("videos", ("read", "--video", "{tmp}/v.mp4"), files={"v.mp4": text("no video")}, slow=True),
         Case("videos", ("read", "--video", "{tmp}/v.avi"), files={"v.avi": raw(b"RIFF\x00\x00\x00\x00AVI LIST")}, slow=True),
         Case("videos", ("read", "--video", "{tmp}/missing.mp4"), slow=True),
         Case("videos", ("read", "--video", "{tmp}"), slow=True),
         Case("videos", ("read", "--frames", "{tmp}/missing"), slow=True),
         Case("videos", ("read", "--frames", "{tmp}/f"), files={"f/frame-1.png": text("x"), "f/frame-2.png": raw(b"")},
              slow=True),
         Case("videos", ("read", "--frames", "{tmp}/e"), files={"e/readme.txt": text("no frames here")}, slow=True),
         Case("videos", ("calibrate", "--camera", "video:{tmp}/v.mp4"), files={"v.mp4": text("no video")}, slow=True),
         Case("videos", ("calibrate", "--camera", "frames:{tmp}/g"), files={"g/1.png": lambda: png(64, 48)},
              slow=True)])

    # -- configs
    configs = {
        "not TOML": "[device\ncamera = ",
        "binary": "\x00\x01\x02",
        "misspelt table": "[devcie]\ncamera = \"synthetic\"\n",
        "misspelt key": "[device]\ncamra = \"synthetic\"\n",
        "wrong type": "[device]\nconfidence = \"high\"\n",
        "out of range": "[device]\nconfidence = 7\n",
        "huge display": "[device]\ndisplay_size = [100000, 100000]\n",
        "bad camera": "[device]\ncamera = \"bogus:1\"\n",
        "table as value": "device = 3\n",
        "game option": "[jingle-bell-roll]\nrounds = 9\n",
        "game option type": "[jingle-bell-roll]\nstocking_points = \"many\"\n",
        "dice table": "[dice.jingle-bell-roll]\nfaces = [\"A\"]\n",
        "dice key": "[dice.christmas-romance]\nfacez = [\"A\"]\n",
        "romance mode": "[christmas-romance]\nmode = \"duel\"\n",
    }
    for label, body in configs.items():
        files = {"config.toml": text(body)}
        add([Case("configs", ("run", "--players", "Ann,Ben", "--config", "{tmp}/config.toml", "--display", "none",
                              "--no-gpio", "--quiet"), files=files),
             Case("configs", ("score", "jingle-bell-roll", "--dice", "MILK,COOKIE,LIST,LIST,GIFT,BELL,BELL",
                              "--config", "{tmp}/config.toml"), files=files,
                  expect=ERROR)])   # score reads the same config file: a broken one is said
    add([Case("configs", ("run", "--players", "Ann", "--config", "{tmp}/missing.toml", "--display", "none")),
         Case("configs", ("run", "--players", "Ann", "--config", "{tmp}", "--display", "none")),
         Case("configs", ("place", "stage1-meet-cute", "--roll", "1", "--config", "{tmp}/c.toml"),
              files={"c.toml": text("[dice.christmas-romance]\nfaces = [\"A\", \"B\"]\n")}),
         Case("configs", ("teach", "--dice", "mine", "--camera", "synthetic", "--faces", "A,B", "--config",
                          "{tmp}/c.toml"), files={"c.toml": text("[device\n")})])

    # -- calibrations
    broken = {
        "not json": text("{"), "a list": text("[1, 2]"), "schema 9": calibration(schema=9),
        "no matrix": calibration(image_to_mat=None), "2x2 matrix": calibration(image_to_mat=[[1, 0], [0, 1]]),
        "NaN matrix": lambda: calibration()().replace(b"0.5, 0, -20", b"NaN, 0, -20"),
        "singular matrix": calibration(image_to_mat=[[0, 0, 0], [0, 0, 0], [0, 0, 1]]),
        "zero frame": calibration(frame_size=[0, 0]), "huge frame": calibration(frame_size=[10 ** 9, 10 ** 9]),
        "text frame": calibration(frame_size=["a", "b"]), "other paper": calibration(mat="A9"),
        "bad markers": calibration(markers={"0": [[1, 2]]}), "bad camera": calibration(camera="webcam"),
        "missing background": calibration(background="nowhere.png"),
        "background escapes": calibration(background="../../../../etc/passwd"),
    }
    for label, make in broken.items():
        add([Case("calibrations", ("read", "{tmp}/tiny.png", "--calibration", "bad"),
                  files={"home/calibration/bad.json": make, "tiny.png": lambda: png(64, 48)})])
    add([Case("calibrations", ("read", "{tmp}/tiny.png", "--calibration", "old"), OK,
              files={"home/calibration/old.json": calibration(schema=1, camera=None, markers=None),
                     "tiny.png": lambda: png(640, 480)}, slow=True)])

    # -- card layouts
    layouts = {
        "binary": "\x00\xff\x00", "no kind": "dice:\n ?\n", "kind twice": "kind: stage\nkind: stage\n",
        "stage 0": "kind: stage\nstage: 0\ndice:\n ? ? ? ?\n", "needs lowered": "kind: stage\nstage: 1\nneeds: 1\ndice:\n ? ? ? ?\n",
        "needs huge": "kind: stage\nstage: 1\nneeds: 99999999999999999999\ndice:\n ? ? ? ?\n",
        "romance of 3": "kind: romance\ndice:\n ? ? ?\n", "romance needs 3": "kind: romance\nneeds: 3\ndice:\n ? ? ? ?\n",
        "unknown face": "kind: element\ndice:\n HEART\n", "empty grid": "kind: element\ndice:\n . .\n",
        "huge grid": "kind: element\ndice:\n" + ("? " * 400 + "\n") * 400,
        "negative reward": "kind: romance\nreward: -1\ndice:\n ? ? ? ?\n",
        "bad exchange": "kind: element\nexchange: -> ->\ndice:\n ?\n",
    }
    for label, body in layouts.items():
        add([Case("layouts", ("place", "{tmp}/card.layout", "--roll", "1,2"), files={"card.layout": text(body)})])
    add([Case("layouts", ("place", "{tmp}", "--roll", "1")),
         Case("layouts", ("place", "{tmp}/card.layout", "--roll", "1"), files={"card.layout": raw(b"\xff\xfe\x00")})])
    placed = [["--placed", "1,1=SNOWFLAKE", "--placed", "1,1=SNOWFLAKE"], ["--placed", "1,1=1", "--placed", "3,2=3"],
              ["--placed", "1,2=2"], ["--placed", "9,9=1"], ["--placed", "0,1=1"], ["--placed", "1,1"],
              ["--placed", "99999999999999,1=1"], ["--placed", "1,1=HEART"],
              ["--placed", "1,1=1", "--placed", "1,2=2", "--placed", "1,3=2", "--placed", "2,2=2", "--placed", "3,2=3"]]
    add(Case("placed dice", ("place", "stage1-meet-cute", "--roll", "3", *extra)) for extra in placed)
    add(Case("placed dice", ("place", "stage1-meet-cute", "--roll", roll)) for roll in ["", ",,,", "HEART", "7", "0"])
    add([Case("placed dice", ("place", "stage1-meet-cute", "--roll", ",".join(["2"] * 200)), OK)])

    # -- replay files
    replays = {
        "empty": raw(b""), "not json": text("hello\n"), "header only list": jsonl([1, 2]),
        "no header": jsonl(ROLL), "schema 9": jsonl({**JBR_HEADER, "schema": 9}),
        "unknown game": jsonl({**JBR_HEADER, "game": "chess"}), "bad setup": jsonl({**JBR_HEADER, "setup": 3}),
        "one player": jsonl({**JBR_HEADER, "setup": {"players": ["Ann"]}}),
        "illegal event": jsonl(JBR_HEADER, {"type": "score"}), "unknown event": jsonl(JBR_HEADER, {"type": "dance"}),
        "event not object": jsonl(JBR_HEADER, "[1]"), "misspelt key": jsonl(JBR_HEADER, {**ROLL, "playr": "Ann"}), "wrong faces": jsonl(JBR_HEADER, {"type": "roll", "faces": ["X"]}),
        "too many faces": jsonl(JBR_HEADER, {"type": "roll", "faces": ["MILK"] * 1000}),
        "deep nesting": jsonl(JBR_HEADER, deep_json(100000)), "huge number": jsonl(JBR_HEADER, "1" + "0" * 100000),
        "binary": raw(b"\x00\xff\xfe\n"), "nan": jsonl(JBR_HEADER, '{"type": "roll", "faces": NaN}'),
        "long line": jsonl(JBR_HEADER, json.dumps({"type": "roll", "faces": ["MILK"] * 7, "x": "y" * 2_000_000})),
    }
    for label, make in replays.items():
        add([Case("replay files", ("replay", "{tmp}/game.jsonl"), files={"game.jsonl": make})])
    add([Case("replay files", ("replay", "{tmp}")), Case("replay files", ("replay", "{tmp}/missing.jsonl")),
         Case("replay files", ("replay", "{tmp}/game.jsonl", "--undo", "5"), files={"game.jsonl": jsonl(JBR_HEADER, ROLL)})])

    # -- die sets taught from folders
    add([Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/missing")),
         Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/f"), files={"f/readme.txt": text("x")}),
         Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/g"),
              files={f"g/A/{n}.jpg": text("not a photo") for n in range(5)} | {f"g/B/{n}.jpg": raw(b"") for n in range(5)},
              slow=True),
         Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/h"),
              files={"h/A/1.png": lambda: png(32, 32)}),
         Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/i", "--shots", "3"),
              files={"i/A/1.png": lambda: png(32, 32)}),
         Case("die sets", ("teach", "--dice", "mine", "--from", "{tmp}/j", "--faces", "A,B"),
              files={"j/A/1.png": lambda: png(32, 32)}),
         Case("die sets", ("dice", "show", "broken"),
              files={"home/dice/broken/set.json": text("{not json")}),
         Case("die sets", ("read", "{tmp}/tiny.png", "--dice", "broken"),
              files={"home/dice/broken/set.json": text("[]"), "tiny.png": lambda: png(64, 48)})])

    # -- the pin map
    add([Case("pin maps", ("pins", "--file", "{tmp}/pins.toml"), files={"pins.toml": text(body)})
         for body in ["[pins\n", "[pins]\nscore = 99\n", "[pins]\nscore = \"x\"\n", "[pins]\nscore = 5\nundo = 5\n",
                      "\x00"]])
    add([Case("pin maps", ("pins", "--file", "{tmp}/missing.toml")), Case("pin maps", ("pins", "--file", "{tmp}"))])

    # -- the sessions database (damaged pages: tests/host/test_stored_games_hostile.py)
    not_ours = {"home/sessions.db": text("not a database at all, " * 100)}
    add([Case("sessions database", ("export", "--list"), files=not_ours),
         Case("sessions database", ("export", "latest"), files=not_ours),
         Case("sessions database", ("run", "--resume", "--display", "none", "--no-gpio"), files=not_ours),
         Case("sessions database", ("run", "--players", "Ann,Ben", "--display", "none", "--no-gpio"), files=not_ours),
         Case("sessions database", ("export", "latest"), files={"home/sessions.db": raw(b"")}),
         Case("sessions database", ("export", "--list", "--sessions", "{tmp}"))])

    # -- flags that would be silently ignored: refused
    add(Case("ignored flags", argv) for argv in [
        ("export", "--list", "--format", "csv"), ("export", "--list", "-o", "{tmp}/list.txt"),
        ("export", "--list", "latest"), ("export", "latest", "--bookkeeping"),
        ("read", "{tmp}/a.png", "--fps", "3"), ("read", "--video", "{tmp}/v.mp4", "--fps", "3"),
        ("teach", "--dice", "mine", "--from", "{tmp}", "--display", "png"),
        ("teach", "--dice", "mine", "--from", "{tmp}", "--faces", "A,B"),
        ("teach", "--dice", "mine", "--add", "--replace", "--camera", "synthetic"),
        ("demo", "--mode", "solo", "--game", "jingle-bell-roll", "--out", "{tmp}/demo"),
        ("demo", "--short-game", "--game", "dream-factory", "--out", "{tmp}/demo"),
        ("run", "--players", "Ann", "--scenario", "2", "--display", "none", "--no-gpio"),
    ])

    # -- output paths that are inputs, or not ours
    add([Case("outputs", ("export", "latest", "-o", "{tmp}/home/sessions.db")),
         Case("outputs", ("read", "{tmp}/tiny.png", "--overlay", "{tmp}/tiny.png"), files={"tiny.png": lambda: png(8, 8)}),
         Case("outputs", ("mat", "--out", "{tmp}/nofolder/deeper/mat.png")),   # said: the folder does not exist
         Case("outputs", ("mat", "--out", "{tmp}/afile/mat.png"), files={"afile": text("x")}),
         Case("outputs", ("demo", "--out", "{tmp}/afile"), files={"afile": text("x")}),
         Case("outputs", ("calibrate", "--camera", "synthetic", "--preview", "{tmp}/preview.txt")),
         Case("outputs", ("calibrate", "--camera", "frames:{tmp}/f", "--preview", "{tmp}/f/1.png"),
              files={"f/1.png": lambda: png(64, 48)}),
         Case("outputs", ("read", "--frames", "{tmp}/f", "--overlay", "{tmp}/f"),
              files={"f/1.png": lambda: png(64, 48)})])
    return found


def materialise(case: Case, tmp: Path) -> list[str]:
    """Write the case's files under ``tmp`` and return its argv with ``{tmp}`` filled in."""
    for name, make in case.files.items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(make())
    return [arg.replace("{tmp}", str(tmp)) for arg in case.argv]
