"""The phone page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven through Selenium, against servers on loopback free ports.

The table page updates live while a game is played; a die corrected on the phone changes the
stored roll and the score shown; a second player's browser reaches nothing of the first
player's secret by any URL; a wrong PIN is refused. Each test saves a screenshot of each page
it visits (under pytest's tmp folder). With DICEWATCH_SCREENSHOTS set, one more test saves the
pages of a finished Jingle Bell Roll demo into docs/screenshots/ (the README shows them).

Without the browser these tests skip, except when the environment variable CI is set: there
they fail (``.ci/run`` installs the browser first)."""
from __future__ import annotations

import os
import queue
import re
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest

from host import games
from host.eink import EinkScreen, PngPanel
from host.loop import TableLoop
from host.presenters import RecordingPresenter
from host.session_store import SessionStore
from host.web.app import make_app
from host.web.server import serve
from host.web.table import WebTable
from rules import get_game
from tests.games import secret_pig_table
from tests.host.test_web_cli import printed_until

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select, WebDriverWait
    SELENIUM = None
except ImportError as exc:   # said by the fixture: a skip here, a failure on CI
    SELENIUM = exc

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")
PHONE = (390, 844)
WAIT = 30.0          # generous: a loaded CI machine with two test workers


def missing_browser() -> str | None:
    if SELENIUM is not None:
        return f"selenium cannot be imported ({SELENIUM})"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not path.exists():
            return f"{path} is missing (apt-get install chromium chromium-driver)"
    return None


@pytest.fixture(scope="module", autouse=True)
def plugged_in():
    games.add_module(secret_pig_table)
    yield


class Browser:
    """One headless Chromium (its own profile: its own cookies) that saves a screenshot of
    each page it visits."""

    def __init__(self, profile: Path, shots: Path, name: str):
        options = webdriver.ChromeOptions()
        options.binary_location = str(CHROMIUM)
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", f"--user-data-dir={profile}", f"--window-size={PHONE[0]},{PHONE[1]}"):
            options.add_argument(arg)
        self.driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
        # A phone's viewport (a window on Linux is never narrower than 500 px): 390x844 at scale 1.
        self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": PHONE[0], "height": PHONE[1], "deviceScaleFactor": 1, "mobile": True})
        self.driver.set_page_load_timeout(WAIT)
        self.driver.set_script_timeout(WAIT)
        self.shots, self.name, self.count = shots, name, 0

    def get(self, url: str) -> None:
        self.driver.get(url)
        self.shot()

    def shot(self, label: str | None = None) -> Path:
        self.count += 1
        self.shots.mkdir(parents=True, exist_ok=True)
        path = self.driver.current_url.split("/", 3)[-1].split("?")[0]
        path = "me-page" if path.startswith("me/") else path.replace("/", "_") or "table"   # no token in a name
        target = self.shots / f"{self.name}-{self.count:02d}-{label or path}.png"
        assert self.driver.save_screenshot(str(target)), target
        return target

    def text(self) -> str:
        return self.driver.find_element(By.TAG_NAME, "body").text

    def main_text(self) -> str:
        """The page's <main> (replaced in place by the live script), read as the person sees it."""
        try:
            return self.driver.find_element(By.TAG_NAME, "main").text
        except StaleElementReferenceException:
            return ""

    def wait_for(self, predicate, what: str, timeout: float = WAIT):
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05,
                             ignored_exceptions=(StaleElementReferenceException,)).until(
            lambda _: predicate(), message=f"waited {timeout} s for {what}")

    def quit(self) -> None:
        self.driver.quit()


@pytest.fixture
def browser(tmp_path_factory, request):
    """Browsers, one per person: ``browser("ann")``. Screenshots go to a folder under tmp."""
    why = missing_browser()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tests must run on CI: {why}")
        pytest.skip(f"no browser here: {why}")
    shots = tmp_path_factory.mktemp("screenshots") / request.node.name.replace("[", "-").replace("]", "")
    opened: list[Browser] = []

    def make(name: str = "phone") -> Browser:
        opened.append(Browser(tmp_path_factory.mktemp("chromium-profile"), shots, name))
        return opened[-1]

    make.shots = shots
    yield make
    for one in opened:
        one.quit()


def link_token(url: str) -> str:
    """The token of a private link ``.../me/TOKEN``."""
    return url.rsplit("/me/", 1)[1].split("/")[0].split("?")[0]


class LoopThread:
    """A table whose loop runs in its own thread (the store made there too), as at the box;
    ``call`` runs what a player does at the box in the loop's thread."""

    def __init__(self, path: Path, game: str, setup: dict, **loop_options):
        self.web = WebTable()
        self.screens = RecordingPresenter()
        self.panel = PngPanel(path.parent / "eink", (250, 122))   # the box's e-ink panel, as PNGs
        self.eink = EinkScreen(self.panel, min_interval=0.0)
        self.calls: "queue.Queue" = queue.Queue()
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.failed: list[BaseException] = []
        self.thread = threading.Thread(target=self._run, args=(path, game, setup, loop_options), daemon=True)
        self.thread.start()
        assert self.ready.wait(WAIT), self.failed

    def _run(self, path, game, setup, loop_options):
        try:
            with SessionStore(path) as store:
                table = store.create(get_game(game), setup)
                self.loop = TableLoop(table, presenters=[self.screens, self.eink, self.web], **loop_options)
                self.loop.start()
                self.ready.set()
                while not self.stop.is_set():
                    while not self.calls.empty():
                        fn, done = self.calls.get()
                        try:
                            done.put((True, fn(self.loop)))
                        except BaseException as exc:  # noqa: BLE001 - raised again in the test's thread
                            done.put((False, exc))
                    self.loop.step(look=False)
                    time.sleep(0.005)
                self.loop.shutdown()
        except BaseException as exc:  # noqa: BLE001 - said by the test
            self.failed.append(exc)
            self.ready.set()

    def call(self, fn):
        done: "queue.Queue" = queue.Queue()
        self.calls.put((fn, done))
        ok, value = done.get(timeout=WAIT)
        if not ok:
            raise value
        return value

    def handle(self, command: str):
        return self.call(lambda loop: loop.handle(command))

    def events(self) -> list[dict]:
        return self.call(lambda loop: [dict(e) for e in loop.table.session.events])

    def eink_pngs(self) -> list[Path]:
        return sorted(self.panel.folder.glob("*.png"))

    def close(self) -> None:
        self.stop.set()
        self.thread.join(WAIT)


@pytest.fixture
def secret_pig(tmp_path):
    table = LoopThread(tmp_path / "s.db", "secret-pig", {"players": ["Ann", "Ben"], "target": 10})
    yield table
    table.close()


@pytest.fixture
def jingle(tmp_path):
    table = LoopThread(tmp_path / "s.db", "jingle-bell-roll", {"players": ["Ann", "Ben"]}, ask_setup=False)
    yield table
    table.close()


def served(web: WebTable, **app_options):
    """The app on a free loopback port; returns (its URL, the running server)."""
    options = {"loopback": True, "pin": None, **app_options}
    server = serve(make_app(web, **options), "127.0.0.1", 0)
    return f"http://127.0.0.1:{server.port}", server


@pytest.fixture
def pig_url(secret_pig):
    url, server = served(secret_pig.web)
    yield url
    server.stop()


@pytest.fixture
def jingle_url(jingle):
    url, server = served(jingle.web)
    yield url
    server.stop()


def test_the_table_page_updates_live_while_the_game_is_played(secret_pig, pig_url, browser):
    phone = browser()
    phone.get(pig_url + "/")
    phone.wait_for(lambda: "Move 0" in phone.main_text() and "Ann: pick a lucky face" in phone.main_text(),
                   "the table at move 0")
    phone.driver.execute_script("window.notReloaded = true;")   # gone if the page were loaded again
    moves = [('choose:{"type": "lucky", "player": "Ann", "face": "5"}', "Ben: pick a lucky face"),
             ('choose:{"type": "lucky", "player": "Ben", "face": "3"}', None),
             ("roll:4", None)]
    for number, (command, status) in enumerate(moves, start=1):
        assert secret_pig.handle(command) is None
        assert len(secret_pig.events()) == number
        started = time.monotonic()
        phone.wait_for(lambda: f"Move {number}" in phone.main_text(), f"the page to show move {number}")
        latency = time.monotonic() - started
        if status:
            assert status in phone.main_text()
        phone.shot(f"move-{number}")
        assert latency < WAIT
    main = phone.main_text()
    assert "4" in [face.text for face in phone.driver.find_elements(By.CSS_SELECTOR, "main .dice .face")], main
    assert phone.driver.execute_script("return window.notReloaded === true;"), "the page was loaded again"
    assert "face 5" not in phone.driver.page_source and '"Ann": "5"' not in phone.driver.page_source


def correction_form(phone: Browser):
    return phone.driver.find_element(By.XPATH, "//form[.//select[@name='die']]")


def test_a_die_corrected_on_the_phone_changes_the_stored_roll_and_the_score(jingle, jingle_url, browser):
    thrown = ["MILK", "COOKIE", "GIFT", "GIFT", "BELL", "LIST", "STOCKING"]
    jingle.handle("roll:" + ",".join(thrown))
    assert jingle.events()[-1]["faces"] == thrown
    phone = browser()
    phone.get(jingle_url + "/")
    phone.wait_for(lambda: "= 9 pts" in phone.main_text() and "Move 1" in phone.main_text(), "the roll scored 9")
    phone.get(jingle_url + "/controls")
    phone.wait_for(lambda: "Correct a die" in phone.main_text(), "the correction form")

    def correct() -> bool:   # again if the live script replaced the form under us
        form = correction_form(phone)
        Select(form.find_element(By.NAME, "die")).select_by_value("1")
        Select(form.find_element(By.NAME, "face")).select_by_value("GIFT")
        phone.shot("corrected-die-1-to-gift")
        form.find_element(By.TAG_NAME, "button").click()
        return True

    before = jingle.eink_pngs()
    assert before, "the e-ink panel drew the roll"
    phone.wait_for(correct, "the correction sent")
    phone.wait_for(lambda: jingle.events()[-1]["faces"][0] == "GIFT", "the stored roll corrected")
    phone.wait_for(lambda: len(jingle.eink_pngs()) > len(before), "the e-ink panel drew the corrected roll")
    drawn = [s for s in jingle.screens.screens if s.kind == "roll"][-1]
    assert drawn.total.startswith("7") and [d.face for d in drawn.dice] == ["GIFT"] + thrown[1:]
    assert jingle.eink_pngs()[-1].read_bytes() != before[-1].read_bytes()
    assert jingle.events()[-1]["faces"] == ["GIFT"] + thrown[1:]
    phone.wait_for(lambda: phone.driver.current_url.endswith("/controls") and "Controls" in phone.main_text(),
                   "back on the controls page")
    assert "Nothing was done" not in phone.text()
    phone.shot("after-correction")
    phone.get(jingle_url + "/")
    phone.wait_for(lambda: "= 7 pts" in phone.main_text(), "the score of the corrected roll")
    faces = [face.text for face in phone.driver.find_elements(By.CSS_SELECTOR, "main .dice .face")]
    assert faces == ["GIFT"] + thrown[1:], faces
    assert "= 9 pts" not in phone.main_text()
    phone.get(jingle_url + "/history")
    phone.wait_for(lambda: "(undone)" in phone.main_text(), "the history of the correction")


def test_a_second_players_browser_reaches_nothing_of_the_first_players_secret(secret_pig, pig_url, browser):
    ann, ben = browser("ann"), browser("ben")
    for phone, player in ((ann, "Ann"), (ben, "Ben")):   # each takes their own seat on their phone
        phone.get(f"{pig_url}/join")
        phone.driver.find_element(By.XPATH, f"//button[normalize-space(.)='I am {player}']").click()
        phone.wait_for(lambda: f"{player}'s own view" in phone.main_text(), f"{player}'s own page")
        phone.shot(f"{player.lower()}-took-the-seat")
    ann_link, ben_link = ann.driver.current_url, ben.driver.current_url
    assert ann_link.startswith(f"{pig_url}/me/") and secret_pig.web.player_of(link_token(ann_link)) == "Ann"
    ben.get(f"{pig_url}/join")
    assert not ben.driver.find_elements(By.XPATH, "//button[normalize-space(.)='I am Ann']")   # not Ben's to take
    assert "Every seat is taken" in ben.text()
    ann.get(ann_link)
    ann.wait_for(lambda: "Ann's own view" in ann.main_text(), "Ann's page")
    ann.driver.find_element(By.XPATH, "//button[starts-with(normalize-space(.), 'Lucky: player Ann: face 5')]").click()
    ann.wait_for(lambda: secret_pig.events() == [{"type": "lucky", "player": "Ann", "face": "5"}], "Ann's choice")
    ann.wait_for(lambda: '"Ann": "5"' in ann.main_text(), "Ann's page to show her lucky face")
    ann.shot("ann-chose")
    secret = ['"Ann": "5"', "&quot;Ann&quot;: &quot;5&quot;", "player Ann: face", "Ann's own view"]
    token = link_token(ann_link)
    tries = [ben_link, f"{pig_url}/me/", f"{pig_url}/me/{secrets.token_urlsafe(18)}",
             f"{pig_url}/me/{token[:-1]}{'A' if token[-1] != 'A' else 'B'}", f"{pig_url}/me/{token[:8]}",
             f"{pig_url}/", f"{pig_url}/controls", f"{pig_url}/history",
             f"{pig_url}/api/state", f"{pig_url}/dice", f"{pig_url}/me/{token}/..", f"{pig_url}/join",
             f"{pig_url}/me"]
    for url in tries:
        ben.get(url)
        shown, source = ben.text(), ben.driver.page_source
        for text in secret:
            assert text not in shown and text not in source, (url, text)
        assert token not in shown and token not in source, url
    assert ben.driver.current_url == f"{pig_url}/me"   # nothing sent Ben's browser elsewhere
    ben.get(ben_link)
    assert "Ben's own view" in ben.text() and "Lucky: player Ben" in ben.text()   # Ben's own page works
    ann.get(ann_link)
    assert '"Ann": "5"' in ann.text()                                            # the check can fail


def test_dark_romance_the_second_players_browser_never_sees_the_first_players_role(tmp_path, browser):
    """Both take their seats on their phones, Mary enters her card on hers; Edgar's browser,
    on every page and URL it can reach, shows no trace of Mary's role before the end."""
    table = LoopThread(tmp_path / "s.db", "dark-romance", {"players": ["Mary", "Edgar"], "scenario": 2})
    url, server = served(table.web)
    try:
        mary, edgar = browser("mary"), browser("edgar")
        for phone, player in ((mary, "Mary"), (edgar, "Edgar")):
            phone.get(f"{url}/join")
            phone.driver.find_element(By.XPATH, f"//button[normalize-space(.)='I am {player}']").click()
            phone.wait_for(lambda: "You have not entered your role yet" in phone.main_text(), f"{player}'s page")
        edgar_page, mary_page = edgar.driver.current_url, mary.driver.current_url
        offered = sorted(b.text for b in edgar.driver.find_elements(By.CSS_SELECTOR, "main button"))
        mary.driver.find_element(By.XPATH, "//button[normalize-space(.)=\"Mary's role: the Swindleress\"]").click()
        mary.wait_for(lambda: "You are the Swindleress." in mary.main_text(), "Mary's role on her page")
        mary.shot("mary-entered-her-role")
        assert table.events() == [{"type": "role", "player": "Mary", "role": "swindleress"}]
        token = link_token(mary_page)
        assert table.web.player_of(token) == "Mary"
        edgar.get(edgar_page)   # his own page offers him the same cards as before (every card of the scenario)
        edgar.wait_for(lambda: "Edgar's own view" in edgar.main_text(), "Edgar's page")
        assert sorted(b.text for b in edgar.driver.find_elements(By.CSS_SELECTOR, "main button")) == offered
        assert "Swindleress" not in edgar.main_text().split("Your choices")[0]
        tries = [f"{url}/", f"{url}/controls", f"{url}/history", f"{url}/history.jsonl",
                 f"{url}/history.csv", f"{url}/api/state", f"{url}/join", f"{url}/me/{token[:-2]}",
                 f"{url}/me/{secrets.token_urlsafe(18)}"]
        for where in tries:
            edgar.get(where)
            shown = edgar.text() + edgar.driver.page_source
            assert "Swindleress" not in shown and "swindleress" not in shown and token not in shown, where
        mary.get(mary.driver.current_url)
        assert "You are the Swindleress." in mary.text()                       # the check can fail
        edgar.get(edgar_page)
        edgar.shot("edgar-sees-only-his-own")
    finally:
        server.stop()
        table.close()


def test_a_wrong_pin_is_refused_and_the_right_one_lets_in(secret_pig, browser):
    url, server = served(secret_pig.web, loopback=False, pin="4821")   # as on a network address
    try:
        phone = browser()
        phone.get(url + "/")
        assert phone.driver.current_url == url + "/pin" and "Table PIN" in phone.text()
        phone.driver.find_element(By.NAME, "pin").send_keys("1234")
        phone.driver.find_element(By.XPATH, "//form[@action='/pin']//button").click()
        phone.wait_for(lambda: "Wrong PIN" in phone.text(), "the wrong PIN refused")
        phone.shot("wrong-pin")
        assert "Ann: pick a lucky face" not in phone.text()
        for path in ("/", "/controls", "/history"):
            phone.get(url + path)
            assert phone.driver.current_url == url + "/pin" + (f"?next={path}" if path != "/" else ""), path
        phone.get(url + "/api/state")
        assert "the table PIN is needed" in phone.text() and "secret-pig" not in phone.text()
        phone.get(url + "/pin")
        phone.driver.find_element(By.NAME, "pin").send_keys("4821")
        phone.driver.find_element(By.XPATH, "//form[@action='/pin']//button").click()
        phone.wait_for(lambda: phone.driver.current_url == url + "/" and "Ann: pick a lucky face" in phone.main_text(),
                       "the table after the right PIN")
        phone.shot("right-pin")
        other = browser("other")       # a phone that opened the History first comes back to it after the PIN
        other.get(url + "/history")
        other.driver.find_element(By.NAME, "pin").send_keys("4821")
        other.driver.find_element(By.XPATH, "//form[@action='/pin']//button").click()
        other.wait_for(lambda: other.driver.current_url == url + "/history", "the History after the right PIN")
    finally:
        server.stop()


@pytest.mark.skipif(not os.environ.get("DICEWATCH_SCREENSHOTS"),
                    reason="writes docs/screenshots/ only when DICEWATCH_SCREENSHOTS is set")
def test_screenshots_of_a_finished_jingle_bell_roll_demo_for_the_readme(tmp_path, browser):
    """The README's pictures: the pages of ``dicewatch demo --web`` once the game is over."""
    env = {**os.environ, "DICEWATCH_HOME": str(tmp_path / "home"), "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "host.cli", "demo", "--quiet", "--seed", "1",
                                "--out", str(tmp_path / "demo"), "--web", "127.0.0.1:0", "--pace", "0"],
                               cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        printed = printed_until(process.stdout, "serving the finished game")
        found = re.search(r"the phone page is at (http://127\.0\.0\.1:\d+)/", printed)
        assert found and "serving the finished game" in printed, printed
        url = found.group(1)
        assert httpx.get(url + "/api/state", timeout=WAIT).json()["over"]
        folder = ROOT / "docs" / "screenshots"
        folder.mkdir(parents=True, exist_ok=True)
        phone = browser()
        for name, path in (("table", "/"), ("controls", "/controls"), ("history", "/history"), ("dice", "/dice")):
            phone.get(url + path)
            phone.wait_for(lambda: phone.main_text(), f"the {name} page")
            target = folder / f"phone-{name}.png"
            assert phone.driver.save_screenshot(str(target))
            small(target)
        process.send_signal(signal.SIGTERM)
        assert process.wait(WAIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def small(path: Path) -> None:
    """The screenshot as a small PNG: 32 grey levels (the page is black on white)."""
    from PIL import Image
    with Image.open(path) as image:
        grey = image.convert("L").quantize(32)
    grey.save(path, optimize=True)
