"""What the box loads: reading a photo or opening a real camera, video or folder of frames
never imports the training code, the benchmarks, torch or the dice renderer; only a
``synthetic`` camera (the demo's) brings in the renderer.

Each check runs in a fresh interpreter (this test process has loaded all of them already)
and looks at ``sys.modules`` afterwards.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import cv2
import pytest

from vision import sources, synth, synthetic_camera

PROJECT_ROOT = Path(__file__).resolve().parents[2]

TOOLING = ("vision.training", "vision.bench", "torch")          # and host.bench, host.bench_*
RENDERER = ("vision.synth", "vision.synthetic_camera")


def _under(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def tooling(modules) -> list[str]:
    return sorted(m for m in modules if _under(m, TOOLING) or m.startswith("host.bench"))


def renderer(modules) -> list[str]:
    return sorted(m for m in modules if _under(m, RENDERER))


def loaded_after(code: str, tmp_path: Path) -> tuple[dict, list[str]]:
    """Run ``code`` in a fresh interpreter at the project root; it may set ``result`` (a JSON
    value). Returns (result, the names in sys.modules at the end)."""
    out = tmp_path / "loaded.json"
    script = textwrap.dedent(code) + textwrap.dedent(f"""
        import json, sys
        with open({str(out)!r}, "w") as f:
            json.dump({{"result": globals().get("result"), "modules": sorted(sys.modules)}}, f)
        """)
    done = subprocess.run([sys.executable, "-c", script], cwd=PROJECT_ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(out.read_text())
    return found["result"], found["modules"]


@pytest.fixture
def photo(tmp_path) -> Path:
    image, _ = synth.render_scene(["2", "5", "6"], "d6-pips", seed=4, size=(320, 240))
    path = tmp_path / "tray.png"
    assert cv2.imwrite(str(path), image)
    return path


def test_reading_a_photo_loads_no_tooling_and_no_renderer(photo, tmp_path):
    """`dicewatch read photo.png`, as the command line runs it (every command's module is
    imported to build the parser)."""
    result, modules = loaded_after(f"""
        import contextlib, io
        from host import cli
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = cli.main(["read", "--json", {str(photo)!r}])
        result = {{"status": status, "out": printed.getvalue()}}
        """, tmp_path)
    assert result["status"] == 0
    assert json.loads(result["out"])["dice"], result["out"]  # it really read the photo
    assert "vision.pips" in modules and "host.commands.read" in modules
    assert tooling(modules) == []
    assert renderer(modules) == []


def test_a_video_and_a_frames_folder_load_no_renderer(photo, tmp_path):
    frames = tmp_path / "frames"
    frames.mkdir()
    image = cv2.imread(str(photo))
    video = tmp_path / "roll.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, image.shape[1::-1])
    assert writer.isOpened()
    for i in range(3):
        cv2.imwrite(str(frames / f"frame-{i}.png"), image)
        writer.write(image)
    writer.release()
    result, modules = loaded_after(f"""
        from vision.sources import open_source
        shapes = []
        for spec in ("frames:{frames}", "video:{video}"):
            with open_source(spec) as source:
                shapes.append(list(source.read().image.shape))
        result = shapes
        """, tmp_path)
    assert result == [list(image.shape)] * 2
    assert "vision.sources" in modules
    assert tooling(modules) == []
    assert renderer(modules) == []


def test_a_synthetic_camera_loads_the_renderer_only_when_opened(tmp_path):
    result, modules = loaded_after("""
        import sys
        from vision.sources import open_source, parse_spec
        spec = parse_spec("synthetic:1")
        before = sorted(m for m in sys.modules if m.startswith("vision.synth"))
        with open_source(spec, realtime=False) as camera:
            shape = list(camera.read().image.shape)
        result = {"before": before, "shape": shape}
        """, tmp_path)
    assert result["before"] == []
    assert result["shape"] == [480, 640, 3]
    assert renderer(modules) == ["vision.synth", "vision.synthetic_camera"]
    assert tooling(modules) == []


def test_a_synthetic_source_is_the_synthetic_camera():
    """``open_source("synthetic:N")`` gives vision.synthetic_camera's camera (loaded on use)."""
    assert isinstance(sources.open_source("synthetic:2", realtime=False), synthetic_camera.SyntheticCamera)


# Loaded only with the flag or the part that needs them: the phone page (--web), the MQTT
# client (--publish; host.mqtt.box reads the config's [box] table, without it), the Pico
# panel (--panel), GPIO (not with --no-gpio), and the league server.
NOT_AT_A_PLAIN_TABLE = ("host.web", "starlette", "uvicorn", "host.mqtt.publisher", "paho", "host.panel", "serial",
                        "gpiozero", "host.league.follower", "host.league.store", "host.league.web",
                        "onnxruntime")


def test_a_game_at_a_camera_loads_only_what_the_table_uses(tmp_path, dicewatch_home):
    """`dicewatch run` on a camera whose pictures come from a folder (as a real camera's do: no
    renderer), the screens as PNG files and no GPIO, until the pictures run out: the table
    loop, the taught reader and PIL for the screens are loaded; no tooling, no renderer, and
    nothing of the parts this run does not have."""
    from vision.dicesets import load_reader
    load_reader("jingle-bell-roll", dicewatch_home)   # taught and stored, as after the box's first run
    frames = tmp_path / "frames"
    frames.mkdir()
    empty, _ = synth.render_scene([], "jingle-bell-roll", seed=1, size=(640, 480), background="mat")
    thrown, _ = synth.render_scene(["MILK", "BELL", "GIFT"], "jingle-bell-roll", seed=1, size=(640, 480),
                                   background="mat")
    for i, image in enumerate([empty] * 3 + [thrown] * 12):
        assert cv2.imwrite(str(frames / f"frame-{i:03d}.png"), image)
    result, modules = loaded_after(f"""
        from host import cli
        result = cli.main(["run", "--camera", "frames:{frames}", "--players", "Ann,Ben", "--no-characters",
                           "--no-gpio", "--display", "png", "--png-dir", {str(tmp_path / "screens")!r}, "--quiet"])
        """, tmp_path)
    assert result == 0
    assert {"host.loop", "host.watcher", "vision.taught", "PIL"} <= set(modules)
    assert tooling(modules) == []
    assert renderer(modules) == []
    assert sorted(m for m in modules if _under(m, NOT_AT_A_PLAIN_TABLE)) == []
