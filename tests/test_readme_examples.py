"""Every example in the README runs as written (issue 56: a newcomer gets from the README to a
game).

Each ```sh block of README.md is a list of commands typed from the project root in a shell
where `. .venv/bin/activate` was run: `dicewatch ...`, `python ...` and `python3 dicewatch.py
...` all mean the project's environment. Each command runs in turn, in one shared working
folder that mirrors the project root (a symlink to each of its files and folders, so
`docs/samples/...` resolves and whatever an example writes, `out/`, `mat.pdf`, lands in the
temporary folder, never in the tree) with its own HOME and DICEWATCH_HOME, and must exit 0.
Later examples may use what earlier ones made (a calibration, a taught set, a demo's sessions).

A comment line `#> TEXT` under a command is what the command prints: its output must hold
TEXT (spaces compared loosely). A block whose first line is a comment `# needs ...` (a camera, a Raspberry Pi, Ctrl-C to stop
it, or the quick start, which the CI runs itself) is shown to the reader but not run here.
"""
from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SHELL_LANGUAGES = {"sh", "bash", "shell"}
NOT_RUN_MARK = re.compile(r"#\s*needs\b")
QUICK_START = ("python3 dicewatch.py demo", "python3 dicewatch.py test")
COMMAND_TIMEOUT_S = 180
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)\s*$")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


@dataclass(frozen=True)
class Block:
    language: str
    line: int                   # README line of the block's first content line
    lines: tuple[str, ...]

    @property
    def not_run(self) -> bool:
        first = next((text.strip() for text in self.lines if text.strip()), "")
        return bool(NOT_RUN_MARK.match(first))


@dataclass(frozen=True)
class Example:
    line: int
    command: str
    prints: tuple[str, ...] = ()        # the `#> ...` lines under it


def code_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, with their language and first line."""
    blocks, open_fence, language, start, lines = [], None, "", 0, []
    for number, line in enumerate(text.splitlines(), 1):
        match = FENCE.match(line.strip())
        if open_fence is None and match:
            open_fence, language, start, lines = match.group(1), match.group(2).lower(), number + 1, []
        elif open_fence is not None and line.strip() == open_fence:
            blocks.append(Block(language, start, tuple(lines)))
            open_fence = None
        elif open_fence is not None:
            lines.append(line)
    if open_fence is not None:
        raise ValueError(f"README.md:{start - 1}: a code block is never closed")
    return blocks


def commands_of(block: Block) -> list[Example]:
    """The block's commands: comment lines dropped, lines ending in a backslash joined, each
    `#> ...` line kept as what the command above it prints."""
    examples, pending, pending_line = [], "", 0
    for offset, raw in enumerate(block.lines):
        line = raw.strip()
        if not pending and line.startswith("#>"):
            if not examples:
                raise ValueError(f"README.md:{block.line + offset}: '#>' output with no command above it")
            last = examples[-1]
            examples[-1] = Example(last.line, last.command, last.prints + (line[2:].strip(),))
            continue
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            pending_line = block.line + offset
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        examples.append(Example(pending_line, pending + line))
        pending = ""
    if pending:
        raise ValueError(f"README.md:{pending_line}: a command ends in a backslash with nothing after it")
    return examples


def runnable_examples(text: str) -> list[Example]:
    """Every command of every shell block that is not marked `# needs ...`, in README order."""
    return [example for block in code_blocks(text)
            if block.language in SHELL_LANGUAGES and not block.not_run
            for example in commands_of(block)]


def unlabelled_commands(text: str) -> list[int]:
    """Lines of blocks without a language that look like commands (they would never be run)."""
    return [block.line for block in code_blocks(text) if not block.language
            and any(line.strip().startswith(("dicewatch ", "python", ".venv/")) for line in block.lines)]


def project_entries() -> list[Path]:
    """The project root's files and folders to mirror: those git knows, and the venv."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        names = {part.split("/", 1)[0] for part in listed.decode().split("\0") if part}
    except (OSError, subprocess.CalledProcessError):
        names = {p.name for p in ROOT.iterdir() if p.name != ".git"}
    names.add(".venv")
    return [ROOT / name for name in sorted(names) if (ROOT / name).exists()]


def example_folder(tmp: Path) -> Path:
    """A folder that looks like the project root, where new files stay in ``tmp``."""
    work = tmp / "project"
    work.mkdir()
    for entry in project_entries():
        (work / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return work


def example_environment(tmp: Path) -> dict[str, str]:
    """The project's environment as `. .venv/bin/activate` leaves it, with a fresh home and data folder."""
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("DICEWATCH_", "PYTEST_", "VIRTUAL_ENV"))}
    venv_bin = Path(sys.executable).parent
    env.update(HOME=str(tmp / "home"), DICEWATCH_HOME=str(tmp / "data"), VIRTUAL_ENV=str(venv_bin.parent),
               PATH=f"{venv_bin}{os.pathsep}{env.get('PATH', '')}", PYTHONDONTWRITEBYTECODE="1")
    (tmp / "home").mkdir(exist_ok=True)
    return env


def loosely(text: str) -> str:
    return " ".join(text.split())


def run_example(example: Example, folder: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run one command as a shell would; its exit status and what it printed."""
    try:
        result = subprocess.run(["bash", "-o", "pipefail", "-c", example.command], cwd=folder, env=env,
                                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                timeout=COMMAND_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return -1, f"still running after {COMMAND_TIMEOUT_S} s"
    return result.returncode, (result.stdout + result.stderr).strip()


def tail(output: str, lines: int = 8) -> str:
    return "\n".join(output.splitlines()[-lines:])


def failures_of(examples: list[Example], tmp: Path) -> list[str]:
    folder, env = example_folder(tmp), example_environment(tmp)
    failed = []
    for example in examples:
        status, output = run_example(example, folder, env)
        missing = [text for text in example.prints if loosely(text) not in loosely(output)]
        if status != 0:
            failed.append(f"README.md:{example.line}: `{example.command}` exited {status}:\n{tail(output)}")
        elif missing:
            failed.append(f"README.md:{example.line}: `{example.command}` did not print {missing}; it printed:\n"
                          f"{tail(output)}")
    return failed


def test_every_readme_example_runs_as_written(tmp_path):
    examples = runnable_examples(README.read_text())
    assert len(examples) >= 20, f"only {len(examples)} README examples found: is the block convention intact?"
    failed = failures_of(examples, tmp_path)
    assert not failed, f"{len(failed)} of {len(examples)} README examples fail:\n\n" + "\n\n".join(failed)


def test_the_quick_start_commands_stay_as_the_ci_calls_them():
    blocks = [b for b in code_blocks(README.read_text()) if b.language in SHELL_LANGUAGES]
    quick = blocks[0]
    assert quick.not_run, "the quick start block is marked `# needs ...`: the CI runs it, this test does not"
    assert tuple(e.command.split("#")[0].strip() for e in commands_of(quick)) == QUICK_START


def test_every_command_block_is_labelled_so_it_is_run():
    assert unlabelled_commands(README.read_text()) == []


def test_readme_links_and_pictures_point_to_files_that_exist():
    targets = {m.group(1) for m in LINK.finditer(README.read_text())}
    local = {t.split("#", 1)[0] for t in targets if not re.match(r"[a-z]+:", t) and not t.startswith("#")}
    missing = sorted(t for t in local if t and not (ROOT / t).exists())
    assert not missing, f"README links to files that do not exist: {missing}"


FAKE_README = """
Text.

```sh
# needs a camera
dicewatch run --camera opencv:0
```

```sh
dicewatch score jingle-bell-roll --dice ... # a placeholder, as the README once had
#> total 13
dicewatch place \\
    no-such-card.layout --roll 2,2,3
dicewatch games --json
#> "jingle-bell-roll"
#> a line no command prints
```

```
dicewatch read tray.jpg
```
"""


def test_the_parser_skips_marked_blocks_joins_lines_and_finds_unlabelled_commands():
    examples = runnable_examples(FAKE_README)
    assert [e.command for e in examples] == [
        "dicewatch score jingle-bell-roll --dice ... # a placeholder, as the README once had",
        "dicewatch place  no-such-card.layout --roll 2,2,3",
        "dicewatch games --json",
    ]
    assert [e.line for e in examples] == [10, 12, 14]
    assert [e.prints for e in examples] == [("total 13",), (), ('"jingle-bell-roll"', "a line no command prints")]
    assert unlabelled_commands(FAKE_README) == [20]


def test_a_broken_example_is_reported_with_its_line(tmp_path):
    failed = failures_of(runnable_examples(FAKE_README), tmp_path)
    assert len(failed) == 3
    assert failed[0].startswith("README.md:10: `dicewatch score") and "exited 2" in failed[0]
    assert failed[1].startswith("README.md:12: `dicewatch place") and "exited 1" in failed[1]
    assert failed[2].startswith("README.md:14: `dicewatch games --json` did not print ['a line no command prints']")
