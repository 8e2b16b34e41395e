"""Camera geometry: how high to mount the camera over the dice tray, and how big a die looks.

Pure maths on published sensor and lens figures; ``dicewatch geometry`` prints it and
hardware/camera-geometry.md is generated from it. The model is a rectilinear pinhole
camera looking straight down: a lens of horizontal field of view ``hfov`` at height ``h``
sees a strip ``2 h tan(hfov / 2)`` wide. The wide lens has strong barrel distortion, so
its figures hold at the centre; dice near its edges look up to about a third smaller.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Camera:
    """A camera and lens as the makers publish them."""

    key: str
    name: str
    sensor: str
    sensor_mm: tuple[float, float]      # active area, width x height
    pixels: tuple[int, int]             # full resolution
    focal_mm: float
    hfov_deg: float                     # horizontal field of view on the full sensor
    vfov_deg: float
    min_focus_mm: float
    note: str = ""


CAMERAS: dict[str, Camera] = {
    "module3": Camera(
        "module3", "Raspberry Pi Camera Module 3", "Sony IMX708, 1.4 um pixels", (6.45, 3.63), (4608, 2592),
        focal_mm=4.74, hfov_deg=66.0, vfov_deg=41.0, min_focus_mm=100,
        note="autofocus; published 66 x 41 degrees, focus from 10 cm"),
    "module3-wide": Camera(
        "module3-wide", "Raspberry Pi Camera Module 3 Wide", "Sony IMX708, 1.4 um pixels", (6.45, 3.63), (4608, 2592),
        focal_mm=2.75, hfov_deg=102.0, vfov_deg=67.0, min_focus_mm=50,
        note="autofocus; published 102 x 67 degrees, focus from 5 cm; barrel distortion at the edges"),
    "hq-6mm": Camera(
        "hq-6mm", "Raspberry Pi HQ Camera + 6 mm CS-mount lens", "Sony IMX477, 1.55 um pixels", (6.287, 4.712),
        (4056, 3040), focal_mm=6.0,
        hfov_deg=round(math.degrees(2 * math.atan(6.287 / 2 / 6.0)), 1),
        vfov_deg=round(math.degrees(2 * math.atan(4.712 / 2 / 6.0)), 1), min_focus_mm=200,
        note="manual focus and aperture; field of view computed from the 6 mm focal length and the sensor"),
}


@dataclass(frozen=True)
class Plan:
    """Where to put the camera for one tray, and what it will see."""

    camera: Camera
    tray_mm: tuple[float, float]         # long side, short side (the long side runs across the image)
    margin: float
    height_mm: float                     # lens to tray surface
    view_mm: tuple[float, float]         # ground covered at 1280x720 (or the chosen output)
    hfov_deg: float                      # at the chosen output (a 16:9 output crops a 4:3 sensor)
    vfov_deg: float
    output: tuple[int, int]
    die_mm: float
    die_px_output: float                 # edge of one die in pixels, chosen output
    die_px_full: float                   # edge of one die in pixels, full sensor resolution
    warnings: tuple[str, ...]


def output_fov(camera: Camera, output: tuple[int, int]) -> tuple[float, float]:
    """(hfov, vfov) in degrees for an output size: the sensor is cropped to its aspect ratio."""
    half_w = math.tan(math.radians(camera.hfov_deg) / 2)
    half_h = math.tan(math.radians(camera.vfov_deg) / 2)
    aspect = output[0] / output[1]
    if aspect >= half_w / half_h:        # wider than the sensor: keep the width, crop the height
        half_h = half_w / aspect
    else:                                # taller: keep the height, crop the width
        half_w = half_h * aspect
    return math.degrees(2 * math.atan(half_w)), math.degrees(2 * math.atan(half_h))


def plan(tray_mm: tuple[float, float], camera: Camera | str, *, margin: float = 0.1, die_mm: float = 16.0,
         output: tuple[int, int] = (1280, 720)) -> Plan:
    """Mounting height for ``tray_mm`` to fill the frame, with ``margin`` (0.1 = 10 % each side)."""
    if isinstance(camera, str):
        camera = CAMERAS[camera]
    long_side, short_side = max(tray_mm), min(tray_mm)
    if short_side <= 0 or margin < 0 or die_mm <= 0 or min(output) <= 0:
        raise ValueError("tray sides, die size and output size must be positive, margin not negative")
    hfov, vfov = output_fov(camera, output)
    need_w = long_side * (1 + 2 * margin)
    need_h = short_side * (1 + 2 * margin)
    tan_w = math.tan(math.radians(hfov) / 2)
    tan_h = math.tan(math.radians(vfov) / 2)
    height = max(need_w / (2 * tan_w), need_h / (2 * tan_h))
    view = (2 * height * tan_w, 2 * height * tan_h)
    die_px_output = die_mm * output[0] / view[0]
    full_view_w = 2 * height * math.tan(math.radians(camera.hfov_deg) / 2)
    die_px_full = die_mm * camera.pixels[0] / full_view_w
    warnings = []
    if height < camera.min_focus_mm:
        warnings.append(f"{height:.0f} mm is closer than this lens focuses ({camera.min_focus_mm:.0f} mm): "
                        "mount it higher and accept a smaller tray in the picture")
    if die_px_output < 20:
        warnings.append(f"a {die_mm:g} mm die is only {die_px_output:.0f} px at {output[0]}x{output[1]}: "
                        "pips may be hard to read; use a smaller tray, bigger dice or a higher resolution")
    if height > 1000:
        warnings.append(f"{height / 10:.0f} cm is a tall arm: check it is stable and out of the players' way")
    return Plan(camera, (long_side, short_side), margin, height, view, hfov, vfov, output, die_mm,
                die_px_output, die_px_full, tuple(warnings))


_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(mm|cm|in)?\s*$", re.IGNORECASE)
_UNITS = {"mm": 1.0, "cm": 10.0, "in": 25.4}


def parse_tray(text: str) -> tuple[float, float]:
    """``300x200mm`` / ``30x20cm`` / ``12x8in`` / ``300x200`` (mm) -> (300.0, 200.0) in mm.

    ValueError saying what was expected.
    """
    found = _LENGTH.match(text or "")
    if not found:
        raise ValueError(f"--tray {text!r}: expected WIDTHxDEPTH with a unit, e.g. 300x200mm, 30x20cm or 12x8in")
    scale = _UNITS[(found.group(3) or "mm").lower()]
    width, depth = float(found.group(1)) * scale, float(found.group(2)) * scale
    if not (20 <= width <= 3000 and 20 <= depth <= 3000):
        raise ValueError(f"--tray {text!r}: each side must be 20 mm to 3 m")
    return width, depth


def parse_size(text: str, what: str) -> tuple[int, int]:
    found = re.match(r"^\s*(\d+)\s*x\s*(\d+)\s*$", text or "")
    if not found or min(int(found.group(1)), int(found.group(2))) <= 0:
        raise ValueError(f"{what} {text!r}: expected WIDTHxHEIGHT in pixels, e.g. 1280x720")
    width, height = int(found.group(1)), int(found.group(2))
    if not (160 <= width <= 9600 and 120 <= height <= 9600 and 1 / 4 <= width / height <= 4):
        raise ValueError(f"{what} {text!r}: expected a camera picture from 160x120 to 9600x9600 pixels, "
                         "no more than 4 times wider than high or high than wide")
    return width, height


def describe(result: Plan) -> str:
    """The plan as a few lines for a person holding a tape measure."""
    cam = result.camera
    long_side, short_side = result.tray_mm
    lines = [
        f"{cam.name} ({cam.sensor}, {cam.focal_mm:g} mm lens)",
        f"  tray {long_side:g} x {short_side:g} mm with {result.margin * 100:g}% margin each side, long side across the picture",
        f"  mount the lens {result.height_mm:.0f} mm ({result.height_mm / 10:.1f} cm) above the tray, looking straight down",
        f"  field of view at {result.output[0]}x{result.output[1]}: {result.hfov_deg:.1f} x {result.vfov_deg:.1f} degrees, "
        f"covering {result.view_mm[0]:.0f} x {result.view_mm[1]:.0f} mm",
        f"  a {result.die_mm:g} mm die: {result.die_px_output:.0f} px at {result.output[0]}x{result.output[1]}, "
        f"{result.die_px_full:.0f} px at full resolution ({cam.pixels[0]}x{cam.pixels[1]})",
    ]
    if cam.note:
        lines.append(f"  note: {cam.note}")
    lines.extend(f"  warning: {warning}" for warning in result.warnings)
    return "\n".join(lines)


SHEET_TRAYS = ((250, 180), (300, 200), (400, 300), (500, 350))


def sheet_markdown() -> str:
    """hardware/camera-geometry.md: the common trays for all three cameras."""
    out = [
        "# Camera geometry sheet",
        "",
        "Generated by `python3 hardware/make_geometry_sheet.py` from `host/geometry.py`; for your own",
        "tray run `dicewatch geometry --tray 300x200mm`. Heights are from the lens to the tray",
        "surface, camera looking straight down, the tray's long side across the picture, 10 % margin",
        "on every side, 16 mm dice, 1280x720 frames (the size the settle gate and reader use).",
        "",
        "| camera | sensor | lens | field of view (full sensor) | focuses from |",
        "|---|---|---|---|---|",
    ]
    for cam in CAMERAS.values():
        out.append(f"| {cam.name} | {cam.sensor}, {cam.pixels[0]}x{cam.pixels[1]}, {cam.sensor_mm[0]:g} x "
                   f"{cam.sensor_mm[1]:g} mm | {cam.focal_mm:g} mm | {cam.hfov_deg:g} x {cam.vfov_deg:g} degrees | "
                   f"{cam.min_focus_mm / 10:g} cm |")
    out += ["", "| tray (mm) | camera | height | view at 1280x720 (mm) | die px at 1280x720 | die px full res |",
            "|---|---|---|---|---|---|"]
    for tray in SHEET_TRAYS:
        for key in CAMERAS:
            p = plan(tray, key)
            out.append(f"| {tray[0]} x {tray[1]} | {key} | {p.height_mm / 10:.1f} cm | {p.view_mm[0]:.0f} x "
                       f"{p.view_mm[1]:.0f} | {p.die_px_output:.0f} | {p.die_px_full:.0f} |")
    best = plan((300, 200), "module3")
    wide = plan((300, 200), "module3-wide")
    out += [
        "",
        "Reading the table: the vision pipeline wants a die at least 20 px across at 1280x720",
        "(30 px or more reads pips reliably). The pixels per die depend only on how much table",
        "the picture covers, so every lens gives the same figure at 1280x720; the lens decides",
        f"the height. The Camera Module 3 on a 300 x 200 mm tray is the sweet spot: {best.height_mm / 10:.0f} cm up,",
        f"{best.die_px_output:.0f} px dice. The wide lens needs only {wide.height_mm / 10:.0f} cm but distorts the corners",
        "(dice there look up to a third smaller); the HQ camera with the 6 mm lens needs the",
        "tallest arm (its 4:3 sensor is cropped to 16:9) and is focused by hand.",
        "",
    ]
    return "\n".join(out)
