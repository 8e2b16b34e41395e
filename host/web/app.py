"""The phone page's Starlette app: server-rendered pages, a JSON API and server-sent events.

Pages: ``/`` (the table, live), ``/controls`` (the buttons, the knob, the game's public
choices, a die corrected), ``/history`` (with ``/history.jsonl`` and ``/history.csv``, the
public files of host.history), ``/me/{token}`` (one player's own view and secret choices).
API: ``GET /api/state`` (the public snapshot) and ``GET /api/events`` (text/event-stream).

Security: on loopback nothing is asked; on any other address the table PIN is (a form sets
a cookie), its tries are rate-limited per client. Every change is a POST that must come from
this box's own page (Origin, else Referer, matches Host) and names the sequence number it was
made on. Everything shown is escaped; nothing public is computed from anything but the
game's public views.
"""
from __future__ import annotations

import asyncio
import collections
import hmac
import html
import json
import logging
import secrets
import sqlite3
import time
import urllib.parse
from typing import Callable

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response, \
    StreamingResponse
from starlette.routing import Route

from host.history import seen_by, shown_body, to_csv, to_jsonl
from host.session_store import EVENT, UNDO
from host.web.dice_stats import bar_chart, face_counts
from host.web.table import BUTTONS, Refused, WebTable, command_json

log = logging.getLogger(__name__)

COOKIE = "dicewatch_pass"
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]", "testserver"}
BUTTON_WORDS = {"score": "Score", "undo": "Undo", "next": "Next", "push": "Knob: push",
                "left": "Knob: turn left", "right": "Knob: turn right"}

STYLE = """
body{font:22px/1.4 system-ui,sans-serif;margin:0;padding:12px;background:#fff;color:#000;max-width:800px}
nav a{display:inline-block;margin:0 12px 8px 0;font-weight:bold;color:#000}
h1{font-size:30px;margin:8px 0} h2{font-size:24px;margin:16px 0 6px}
table{border-collapse:collapse;width:100%;display:block;overflow-x:auto} td,th{border:2px solid #000;padding:6px;text-align:left}
svg.chart{max-width:100%;height:auto}
button,input,select{font:inherit;min-height:48px;padding:6px 12px;margin:4px 4px 4px 0;border:3px solid #000;
background:#fff;color:#000;border-radius:6px} button{font-weight:bold}
.dice{display:flex;flex-wrap:wrap;gap:8px;list-style:none;padding:0}
.dice li{border:3px solid #000;padding:6px 10px;min-width:60px;text-align:center}
.face{font-size:32px;font-weight:bold;display:block}
.said{border:3px solid #000;padding:8px;font-weight:bold} pre{white-space:pre-wrap;font-size:18px}
.undone{text-decoration:line-through}
"""

LIVE_JS = """
(function(){
  if(!window.EventSource){return;}
  var source=new EventSource('/api/events');
  function refresh(){
    fetch(location.pathname,{credentials:'same-origin'}).then(function(r){return r.text();}).then(function(t){
      var doc=new DOMParser().parseFromString(t,'text/html');
      var now=document.querySelector('main'), next=doc.querySelector('main');
      if(now&&next){now.innerHTML=next.innerHTML;}
    });
  }
  source.addEventListener('stored',refresh);
  source.addEventListener('screen',refresh);
})();
"""


def e(value) -> str:
    """Escaped for HTML (a player called <script> is shown as text)."""
    return html.escape(str(value), quote=True)


class Guard:
    """The PIN (cookie passes, rate-limited tries) and the same-origin check."""

    def __init__(self, *, loopback: bool, pin: str | None, tries: int, window: float, clock: Callable[[], float]):
        self.loopback, self.pin, self.tries, self.window, self.clock = loopback, pin, tries, window, clock
        self.passes: set[str] = set()
        self.failures: dict[str, collections.deque] = collections.defaultdict(collections.deque)

    @property
    def needs_pin(self) -> bool:
        return not self.loopback and self.pin is not None

    def let_in(self, request: Request) -> bool:
        if not self.needs_pin:
            return True
        given = request.cookies.get(COOKIE, "")
        return any(hmac.compare_digest(given.encode(), known.encode()) for known in list(self.passes))

    def host_ok(self, request: Request) -> bool:
        """On loopback, only a Host naming loopback (a page elsewhere cannot rebind a name to it)."""
        if not self.loopback:
            return True
        host = request.headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
        return name in LOOPBACK_HOSTS

    def blocked(self, client: str) -> bool:
        recent = self.failures[client]
        now = self.clock()
        while recent and recent[0] < now - self.window:
            recent.popleft()
        return len(recent) >= self.tries

    def failed(self, client: str) -> None:
        self.failures[client].append(self.clock())

    def new_pass(self) -> str:
        token = secrets.token_urlsafe(24)
        self.passes.add(token)
        return token


async def read_form(request: Request, limit: int = 8192) -> dict[str, str]:
    """An urlencoded form (the pages' forms are small; no multipart): first value of each name."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            return {}
    fields = urllib.parse.parse_qs(body.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def same_origin(request: Request) -> bool:
    host = request.headers.get("host")
    if not host:
        return False
    expected = f"{request.url.scheme}://{host}"
    origin = request.headers.get("origin")
    if origin is not None:
        return origin == expected
    referer = request.headers.get("referer")
    if referer is not None:
        return referer == expected or referer.startswith(expected + "/")
    return False


def page(title: str, body: str, *, status: int = 200, live: bool = True) -> HTMLResponse:
    script = '<script src="/live.js"></script>' if live else ""
    return HTMLResponse(
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width,initial-scale=1">'
        f'<title>{e(title)}</title><link rel=stylesheet href="/style.css"></head><body>'
        '<nav><a href="/">Table</a><a href="/controls">Controls</a><a href="/history">History</a>'
        '<a href="/dice">Dice</a><a href="/join">My seat</a></nav>'
        f"<main>{body}</main>{script}</body></html>", status_code=status)


def message_page(title: str, text: str, status: int) -> HTMLResponse:
    return page(title, f"<h1>{e(title)}</h1><p class=said role=alert>{e(text)}</p>"
                       '<p><a href="/">Back to the table</a></p>', status=status, live=False)


def dice_html(seen) -> str:
    if not seen.dice:
        return "<p>No dice shown yet.</p>"
    items = []
    for number, die in enumerate(seen.dice, start=1):
        marks = [word for flag, word in ((die.flagged, "check it"), (die.kept, "kept"), (die.locked, "locked"))
                 if flag]
        items.append(f"<li>die {number}<span class=face>{e(die.face)}</span>{round(die.confidence * 100)}% sure"
                     + (f"<br><b>{e(', '.join(marks))}</b>" if marks else "") + "</li>")
    return f'<ul class=dice aria-label="the dice">{"".join(items)}</ul>'


def scoreboard_html(rows) -> str:
    if not rows:
        return ""
    head = "".join(f"<th scope=col>{e(cell)}</th>" for cell in rows[0])
    body = "".join("<tr>" + "".join(f"<td>{e(cell)}</td>" for cell in row) + "</tr>" for row in rows[1:])
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def seq_field(seq: int) -> str:
    return f'<input type=hidden name=seq value="{seq}">'


def local_path(path: str) -> bool:
    """Whether ``path`` is a page of this box to go back to after the PIN (a path of plain
    characters, never another site's address)."""
    return (0 < len(path) <= 200 and path.startswith("/") and not path.startswith("//")
            and all(c.isascii() and (c.isalnum() or c in "/_-.") for c in path))


def make_app(web_table: WebTable, *, loopback: bool, pin: str | None, reply_timeout: float = 5.0,
             pin_tries: int = 5, pin_window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> Starlette:
    """The phone page for ``web_table``. ``loopback``: the server listens on loopback only (no
    PIN asked); otherwise ``pin`` is asked once per browser (``pin_tries`` wrong tries per
    ``pin_window`` seconds per client, then 429)."""
    guard = Guard(loopback=loopback, pin=pin, tries=pin_tries, window=pin_window, clock=clock)

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "?"

    def check(request: Request, *, post: bool = False, api: bool = False) -> Response | None:
        if not guard.host_ok(request):
            return message_page("Refused", "this page answers only to its own address", 403)
        if post and not same_origin(request):
            return message_page("Refused", "this change was not sent from this box's own page: nothing was done",
                                403)
        if not guard.let_in(request):
            if api:
                return JSONResponse({"error": "the table PIN is needed: open the page and enter it"}, 401)
            wanted = request.url.path if request.method == "GET" and request.url.path != "/" else None
            return RedirectResponse("/pin" + (f"?next={wanted}" if wanted and local_path(wanted) else ""), 303)
        if web_table.seen() is None:
            return message_page("Not ready", "the box has not started the game yet; try again in a moment", 503)
        return None

    async def take(request: Request, command: str, seq: int, back: str) -> Response:
        try:
            await asyncio.to_thread(web_table.submit, seq, command, reply_timeout)
        except Refused as exc:
            return message_page("Nothing was done", str(exc), 409)
        return RedirectResponse(back, 303)

    async def form_seq(request: Request):
        form = await read_form(request)
        try:
            return form, int(form.get("seq", ""))
        except ValueError:
            return form, None

    async def posted_move(request: Request):
        """A change posted from one of the box's pages: (a refusal or None, the form, the move it
        was made on). Refused when it comes from another site or does not name its move."""
        refused = check(request, post=True)
        if refused:
            return refused, {}, None
        form, seq = await form_seq(request)
        if seq is None:
            return message_page("Nothing was done", "the form did not say which move it was made on", 400), form, None
        return None, form, seq

    async def table_page(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        seen = web_table.seen()
        snap = seen.snapshot
        game_rows = seen.scoreboard
        screen = seen.screen.text() if seen.screen else ""
        body = (f"<h1>{e(snap['title'])}</h1><p class=said>{e(snap['status'] or '')}"
                + (" (the game is over)" if snap["over"] else "") + "</p>"
                + scoreboard_html(game_rows) + "<h2>The dice</h2>" + dice_html(seen)
                + f"<h2>The box's screen</h2><pre>{e(screen)}</pre>"
                + ("" if seen.running else "<p><b>The box is not playing any more.</b></p>")
                + f"<p>Move {seen.seq}</p>")
        return page(snap["title"], body)

    async def controls_page(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        seen = web_table.seen()
        buttons = "".join(f'<button name=command value="{c}">{e(BUTTON_WORDS[c])}</button>' for c in BUTTONS)
        choices = "".join(f'<button name=choice value="{i}">{e(label)}</button>'
                          for i, (label, _) in enumerate(seen.choices))
        body = (f"<h1>Controls</h1><p class=said>{e(seen.snapshot['status'] or '')}</p>"
                f'<form method=post action="/controls">{seq_field(seen.seq)}{buttons}</form>')
        if choices:
            body += f'<h2>Choices</h2><form method=post action="/controls">{seq_field(seen.seq)}{choices}</form>'
        if seen.faces:
            count = max(len(seen.dice), 1)
            dice = "".join(f'<option value="{n}">die {n}</option>' for n in range(1, count + 1))
            faces = "".join(f'<option value="{e(f)}">{e(f)}</option>' for f in seen.faces)
            body += ('<h2>Correct a die</h2><form method=post action="/controls">' + seq_field(seen.seq)
                     + f'<label>Die <select name=die>{dice}</select></label> '
                       f'<label>is <select name=face>{faces}</select></label> <button>Correct</button></form>')
        body += dice_set_form(seen) + new_game_form(seen) + resume_form(seen) + f"<p>Move {seen.seq}</p>"
        return page("Controls", body)

    async def new_game_post(request: Request) -> Response:
        refused, form, seq = await posted_move(request)
        if refused:
            return refused
        seen = web_table.seen()
        names = [" ".join(str(form.get(f"player{n}", "")).split()) for n in range(1, MAX_PLAYERS + 1)]
        names = [name for name in names if name]
        if not names:
            return message_page("Nothing was done", "a new game needs the players' names", 400)
        if any(len(name) > MAX_NAME for name in names):
            return message_page("Nothing was done", f"a player's name is at most {MAX_NAME} characters", 400)
        if len(set(names)) != len(names):
            return message_page("Nothing was done", "two players have the same name", 400)
        if not seen.snapshot["over"] and form.get("confirm") != "yes":
            return message_page("Nothing was done", "this game is not over: tick \"end this game unfinished\" "
                                "to start a new one anyway", 400)
        return await take(request, "new-game:" + json.dumps({"players": names}), seq, "/")

    async def controls_post(request: Request) -> Response:
        refused, form, seq = await posted_move(request)
        if refused:
            return refused
        seen = web_table.seen()
        if "command" in form:
            command = str(form["command"])
            if command not in BUTTONS:
                return message_page("Nothing was done", "that is not one of the buttons", 400)
        elif "choice" in form:
            try:
                index = int(form["choice"])
            except ValueError:
                index = -1
            if seq != seen.seq:
                return message_page("Nothing was done", refuse_stale(seq, seen.seq), 409)
            if not 0 <= index < len(seen.choices):
                return message_page("Nothing was done", "that choice is not open now", 400)
            command = command_json(seen.choices[index][1])
        elif "die" in form and "face" in form:
            face = str(form["face"])
            try:
                die = int(form["die"])
            except ValueError:
                die = 0
            if die < 1 or face not in seen.faces:
                return message_page("Nothing was done", "expected a die number and one of the dice's faces", 400)
            command = f"face:{die}:{face}"
        else:
            return message_page("Nothing was done", "the form said nothing to do", 400)
        return await take(request, command, seq, "/controls")

    async def history_page(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        seen = web_table.seen()
        show = seen_by(seen.game, None)
        rows, stack = [], []
        for entry in seen.entries:
            if entry.kind == EVENT:
                stack.append(len(rows))
                rows.append([entry.seq, "", json.dumps(shown_body(entry, show), sort_keys=True)])
            elif entry.kind == UNDO:
                if stack:
                    rows[stack.pop()][1] = "undone"
                undone = (shown_body(entry, show) or {}).get("undoes") or {}
                rows.append([entry.seq, "undo", f"took back: {undone.get('type', '?')}"])
        items = "".join(f'<li{" class=undone" if mark == "undone" else ""}>#{n} '
                        + (f"<b>({e(mark)})</b> " if mark else "") + f"{e(text)}</li>" for n, mark, text in rows)
        body = ("<h1>History</h1><p>Download: <a href=\"/history.jsonl\">JSON Lines</a> · "
                "<a href=\"/history.csv\">CSV</a></p>" + (f"<ol>{items}</ol>" if items else "<p>No events yet.</p>"))
        return page("History", body)

    async def history_file(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        seen = web_table.seen()
        show = seen_by(seen.game, None)
        if request.url.path.endswith(".csv"):
            return Response(to_csv(seen.entries, show=show), media_type="text/csv",
                            headers={"Content-Disposition": 'attachment; filename="history.csv"'})
        return Response(to_jsonl(seen.header, seen.entries, show=show), media_type="application/x-ndjson",
                        headers={"Content-Disposition": 'attachment; filename="history.jsonl"'})

    async def dice_page(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        path = web_table.sessions_path
        if path is None:
            return page("Dice", "<h1>Dice</h1><p>No sessions database to read.</p>", live=False)
        try:   # a read-only connection of its own, in a worker thread of the server (never the loop's)
            sets = await asyncio.to_thread(face_counts, path)
        except sqlite3.Error as exc:
            return message_page("Dice", f"the sessions database cannot be read now ({exc})", 503)
        return page("Dice", dice_html_page(sets), live=False)

    def player_for(request: Request) -> tuple[str | None, Response | None]:
        client = client_of(request)
        if guard.blocked(client):
            return None, message_page("Too many tries", "too many wrong tries from here: wait a minute", 429)
        player = web_table.player_of(request.path_params["token"])
        if player is None:
            guard.failed(client)
            return None, message_page("Not found", "there is no such page", 404)
        return player, None

    async def me_page(request: Request) -> Response:
        player, refused = seat_holder(request)
        if refused:
            return refused
        view, mine, seq = web_table.private(player)
        token = request.path_params["token"]
        buttons = "".join(f'<button name=choice value="{i}">{e(label)}</button>' for i, (label, _) in enumerate(mine))
        words = web_table.private_lines(view, player)
        shown = ("".join(f"<p>{e(line)}</p>" for line in words) if words is not None
                 else f"<pre>{e(json.dumps(view, indent=1, sort_keys=True, default=str))}</pre>")
        body = (f"<h1>{e(player)}'s own view</h1><p>Only you should see this page: do not show or share "
                f"its address.</p>{shown}")
        if buttons:
            body += (f'<h2>Your choices</h2><form method=post action="/me/{e(token)}">{seq_field(seq)}'
                     f"{buttons}</form>")
        body += (f'<h2>This seat</h2><form method=post action="/me/{e(token)}/leave">'
                 "<button>Give up this seat</button></form><p>(Then this link stops working and the seat "
                 "can be taken again, by this phone or another.)</p>")
        return page(f"{player}'s view", body)

    def seat_holder(request: Request, *, post: bool = False) -> tuple[str | None, Response | None]:
        """The player whose private link this request names (or the refusal to send)."""
        refused = check(request, post=post)
        if refused:
            return None, refused
        return player_for(request)

    async def me_post(request: Request) -> Response:
        player, refused = seat_holder(request, post=True)
        if refused:
            return refused
        form, seq = await form_seq(request)
        _, mine, now = web_table.private(player)
        if seq is None:
            return message_page("Nothing was done", "the form did not say which move it was made on", 400)
        if seq != now:
            return message_page("Nothing was done", refuse_stale(seq, now), 409)
        try:
            index = int(form.get("choice", ""))
        except ValueError:
            index = -1
        if not 0 <= index < len(mine):
            return message_page("Nothing was done", "that choice is not open now", 400)
        return await take(request, command_json(mine[index][1]), seq, f"/me/{request.path_params['token']}")

    async def join_page(request: Request) -> Response:
        refused = check(request)
        if refused:
            return refused
        seen = web_table.seen()
        seats = web_table.seats()
        open_seats = "".join(f'<button name=player value="{e(p)}">I am {e(p)}</button>'
                             for p, taken in seats if not taken)
        taken = [p for p, held in seats if held]
        body = ("<h1>Take your seat</h1><p>Choose your own name: this phone then gets your own page "
                "(what only you may see, the choices only you make). Each seat can be taken once.</p>")
        body += (f'<form method=post action="/join">{seq_field(seen.seq)}{open_seats}</form>' if open_seats
                 else "<p>Every seat is taken.</p>")
        if taken:
            lost = "".join(f'<button name=takeover value="{e(p)}">I am {e(p)}: my phone is lost</button>'
                           for p in taken)
            body += (f"<p>Seats taken: {e(', '.join(taken))}.</p><h2>Lost your phone?</h2>"
                     "<p>Take your seat over on this phone: your old page stops working, and the box "
                     "tells the whole table that your seat moved.</p>"
                     f'<form method=post action="/join">{seq_field(seen.seq)}{lost}</form>')
        return page("My seat", body, live=False)

    async def join_post(request: Request) -> Response:
        refused, form, _ = await posted_move(request)
        if refused:
            return refused
        try:
            if "takeover" in form:
                token = web_table.take_over(str(form["takeover"]))
                log.info("%s's seat moved to another phone", form["takeover"])
            else:
                token = web_table.claim(str(form.get("player", "")))
                log.info("a phone took %s's seat", form.get("player"))
        except Refused as exc:
            return message_page("Seat not taken", str(exc), 409)
        return RedirectResponse(f"/me/{token}", 303)

    async def leave_post(request: Request) -> Response:
        player, refused = seat_holder(request, post=True)
        if refused:
            return refused
        web_table.leave(request.path_params["token"])
        return message_page("Seat given up", f"this phone no longer holds {player}'s seat; "
                            "it can be taken again on the My seat page", 200)

    async def resume_post(request: Request) -> Response:
        refused, form, seq = await posted_move(request)
        if refused:
            return refused
        wanted = str(form.get("session", ""))
        if wanted not in {sid for sid, _ in web_table.seen().resumable}:
            return message_page("Nothing was done", "that is not an unfinished game of this box", 400)
        return await take(request, "resume:" + wanted, seq, "/")

    async def dice_post(request: Request) -> Response:
        refused, form, seq = await posted_move(request)
        if refused:
            return refused
        wanted = str(form.get("dice", ""))
        if wanted not in web_table.seen().dice_sets:
            return message_page("Nothing was done", "that is not one of the die sets this table can use", 400)
        return await take(request, "dice:" + wanted, seq, "/controls")

    async def api_state(request: Request) -> Response:
        refused = check(request, api=True)
        if refused:
            return refused
        return JSONResponse(web_table.seen().snapshot)

    async def api_events(request: Request) -> Response:
        refused = check(request, api=True)
        if refused:
            return refused
        aloop = asyncio.get_running_loop()
        box: asyncio.Queue = asyncio.Queue()
        web_table.subscribe(aloop, box)
        seen = web_table.seen()
        first = {"kind": "stored", "seq": seen.seq, "snapshot": seen.snapshot,
                 "screen": seen.screen.text() if seen.screen else ""}

        def sse(message: dict) -> str:
            data = json.dumps({"seq": message["seq"], "snapshot": message["snapshot"], "screen": message["screen"]},
                              sort_keys=True)
            return f"id: {message['seq']}\nevent: {message['kind']}\ndata: {data}\n\n"

        async def stream():
            try:
                yield "retry: 1000\n\n" + sse(first)
                while not app.state.stopping:
                    try:
                        message = await asyncio.wait_for(box.get(), 1.0)
                    except asyncio.TimeoutError:
                        yield ": still here\n\n"
                        continue
                    yield sse(message)
            finally:
                web_table.unsubscribe(aloop, box)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    async def pin_page(request: Request) -> Response:
        if not guard.host_ok(request):
            return message_page("Refused", "this page answers only to its own address", 403)
        wanted = request.query_params.get("next", "")
        wanted = wanted if local_path(wanted) else "/"
        if guard.let_in(request):
            return RedirectResponse(wanted, 303)
        body = ('<h1>Table PIN</h1><p>Enter the PIN shown on the box.</p><form method=post action="/pin">'
                f'<input type=hidden name=next value="{html.escape(wanted)}">'
                '<label>PIN <input name=pin inputmode=numeric autocomplete=off maxlength=6 required></label> '
                "<button>Enter</button></form>")
        return page("Table PIN", body, live=False)

    async def pin_post(request: Request) -> Response:
        if not same_origin(request):
            return message_page("Refused", "this form was not sent from this box's own page", 403)
        client = client_of(request)
        if guard.blocked(client):
            return message_page("Too many tries", "too many wrong PINs from here: wait a minute and try again", 429)
        form = await read_form(request)
        given = str(form.get("pin", ""))
        if guard.pin is None or not hmac.compare_digest(given.encode(), guard.pin.encode()):
            guard.failed(client)
            return message_page("Wrong PIN", "that is not the PIN shown on the box", 403)
        wanted = str(form.get("next", "/"))
        response = RedirectResponse(wanted if local_path(wanted) else "/", 303)   # back to the page asked for
        response.set_cookie(COOKIE, guard.new_pass(), httponly=True, samesite="strict", max_age=12 * 3600)
        return response

    async def style(request: Request) -> Response:
        return Response(STYLE, media_type="text/css")

    async def live(request: Request) -> Response:
        return Response(LIVE_JS, media_type="text/javascript")

    async def not_found(request: Request, exc: HTTPException) -> Response:
        if exc.status_code == 404:
            return message_page("Not found", "there is no such page", 404)
        return message_page("Not allowed", "that is not something this page does", exc.status_code)

    async def server_error(request: Request, exc: Exception) -> Response:
        return message_page("Something went wrong", "the page could not be made; the game goes on", 500)

    routes = [
        Route("/", table_page), Route("/controls", controls_page), Route("/controls", controls_post, methods=["POST"]),
        Route("/controls/new-game", new_game_post, methods=["POST"]),
        Route("/history", history_page), Route("/history.jsonl", history_file), Route("/history.csv", history_file),
        Route("/dice", dice_page), Route("/me/{token}", me_page), Route("/me/{token}", me_post, methods=["POST"]),
        Route("/me/{token}/leave", leave_post, methods=["POST"]),
        Route("/join", join_page), Route("/join", join_post, methods=["POST"]),
        Route("/controls/resume", resume_post, methods=["POST"]),
        Route("/controls/dice", dice_post, methods=["POST"]),
        Route("/api/state", api_state), Route("/api/events", api_events),
        Route("/pin", pin_page), Route("/pin", pin_post, methods=["POST"]),
        Route("/style.css", style), Route("/live.js", live),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found, 500: server_error})
    app.state.stopping = False
    app.state.guard = guard
    return SecurityHeaders(app)


MAX_PLAYERS, MAX_NAME = 12, 40


def new_game_form(seen) -> str:
    """A new game of the same game, the players' names editable (blank: left out); while the
    game is not over, only with a box ticked to say so."""
    players = [str(p) for p in (seen.header.get("setup") or {}).get("players", [])
               if isinstance(p, (str, int))][:MAX_PLAYERS]
    fields = "".join(f'<label>Player {n} <input name=player{n} value="{e(name)}" maxlength={MAX_NAME} '
                     f"autocomplete=off></label><br>" for n, name in enumerate(players + [""], start=1)
                     if n <= MAX_PLAYERS)
    over = seen.snapshot["over"]
    confirm = ("" if over else '<p><label><input type=checkbox name=confirm value=yes required> '
               "End this game unfinished (it stays saved) and start a new one</label></p>")
    return ('<h2>New game</h2><form method=post action="/controls/new-game">' + seq_field(seen.seq)
            + "<p>The same game; change the players' names if you like (a blank one is left out).</p>"
            + fields + confirm + "<button>Start a new game</button></form>")


def dice_set_form(seen) -> str:
    """Which taught die set reads the throws (only when there is more than one to choose from)."""
    if len(seen.dice_sets) < 2:
        return ""
    options = "".join(f'<option value="{e(name)}"{" selected" if name == seen.dice_in_use else ""}>{e(name)}'
                      f"{' (in use)' if name == seen.dice_in_use else ''}</option>" for name in seen.dice_sets)
    return ('<h2>Dice to use</h2><form method=post action="/controls/dice">' + seq_field(seen.seq)
            + f"<p>The throws are read with the {e(seen.dice_in_use or '?')} dice.</p>"
            + f"<label>Read with <select name=dice>{options}</select></label> <button>Use these dice</button></form>")


def resume_form(seen) -> str:
    """The other unfinished games of this game, to go on with one of them."""
    if not seen.resumable:
        return ""
    rows = "".join(f'<button name=session value="{e(sid)}">Resume {e(label)}</button>' for sid, label in seen.resumable)
    return ('<h2>Resume a game</h2><form method=post action="/controls/resume">' + seq_field(seen.seq)
            + "<p>Go on with an unfinished game where it stopped (this one stays saved).</p>" + rows + "</form>")


def dice_html_page(sets) -> str:
    """The Dice page: per dice set, a chart and a table of how often each face came up, and
    the chi-square test of a fair die."""
    body = ("<h1>Dice</h1><p>How often each face came up in every game stored in this box (the dice "
            "thrown, not those left standing), and whether that looks like a fair die.</p>")
    if not sets:
        return body + "<p>No dice thrown yet.</p>"
    for die_set in sets.values():
        chi2, df, p = die_set.test()
        table = die_set.table()
        n = sum(table.values())
        rows = "".join(f"<tr><th scope=row>{e(face)}</th><td>{count}</td><td>{count / n:.1%}</td></tr>"
                       for face, count in table.items())
        if p is None:
            verdict = "Too few faces or throws for a test."
        else:
            verdict = (f"Chi-square {chi2:.2f} with {df} degrees of freedom: p = {p:.3g}. "
                       + ("A fair die would rarely come out this uneven (p below 0.05): worth a look."
                          if p < 0.05 else "Nothing suggests an unfair die (p is 0.05 or more)."))
            if n < 5 * len(die_set.faces):
                verdict += " (Few throws yet: the test says little.)"
        body += (f"<h2>{e(die_set.name)}</h2><p>{n} dice in {die_set.throws} throws, "
                 f"{len(die_set.games)} game{'s' if len(die_set.games) != 1 else ''}.</p>"
                 f"<figure>{bar_chart(die_set)}</figure>"
                 f"<table><thead><tr><th scope=col>Face</th><th scope=col>Times</th><th scope=col>Share</th>"
                 f"</tr></thead><tbody>{rows}</tbody></table><p class=said>{e(verdict)}</p>")
    return body


def refuse_stale(made_on: int, now: int) -> str:
    from host.web.table import stale
    return stale(made_on, now)


class SecurityHeaders:
    """Adds the headers every answer carries: no framing, no sniffing, scripts only from here,
    the Referer (which may hold a private link) never sent to another site."""

    HEADERS = [(b"x-frame-options", b"DENY"), (b"x-content-type-options", b"nosniff"),
               (b"referrer-policy", b"same-origin"), (b"cache-control", b"no-store"),
               (b"content-security-policy",
                b"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                b"frame-ancestors 'none'; form-action 'self'")]

    def __init__(self, app: Starlette):
        self.app = app
        self.state = app.state

    async def __call__(self, scope, receive, send):
        async def sending(message):
            if message["type"] == "http.response.start":
                names = {name.lower() for name, _ in message.get("headers", [])}
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + [
                    (name, value) for name, value in self.HEADERS if name not in names]
            await send(message)
        await self.app(scope, receive, sending)
