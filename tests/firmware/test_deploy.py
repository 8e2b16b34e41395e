"""What `mpremote mip install ./firmware/package.json` deploys is the whole firmware, and
main.py calls the runner with options it has."""
from __future__ import annotations

import ast
import json
from pathlib import Path

FIRMWARE = Path(__file__).resolve().parent.parent.parent / "firmware"


def test_package_json_lists_every_module_and_they_exist():
    package = json.loads((FIRMWARE / "package.json").read_text(encoding="utf-8"))
    listed = {dest for dest, source in package["urls"]}
    on_disk = {str(path.relative_to(FIRMWARE)) for path in (FIRMWARE / "dwpanel").glob("*.py")}
    assert listed == on_disk
    for dest, source in package["urls"]:
        assert dest == source and (FIRMWARE / source).is_file()
    assert ["neopixel", "latest"] in package["deps"]
    assert package["version"]


def test_firmware_imports_nothing_of_ours_outside_the_firmware():
    allowed = {"dwpanel", "machine", "neopixel", "framebuf", "asyncio", "select", "sys", "time", "json"}
    for path in (FIRMWARE / "dwpanel").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) else []
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_main_py_uses_options_the_runner_has():
    runner = ast.parse((FIRMWARE / "dwpanel" / "runner.py").read_text(encoding="utf-8"))
    main_def = next(n for n in runner.body if isinstance(n, ast.FunctionDef) and n.name == "main")
    options = {arg.arg for arg in main_def.args.args}
    call = next(n for n in ast.walk(ast.parse((FIRMWARE / "main.py").read_text(encoding="utf-8")))
                if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "main")
    assert {kw.arg for kw in call.keywords} <= options
