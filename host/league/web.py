"""The league's page: the standings, live, on the phone page's stack (Starlette + uvicorn).

``/`` the standings (across the tournament, per game, the tables being played, the boxes
online), updated by server-sent events; ``/api/standings`` the same as JSON (what
``dicewatch league --json`` prints). Read-only: nothing on it changes anything.
"""
from __future__ import annotations

import asyncio
import json

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, StreamingResponse
from starlette.routing import Route

from host.web.app import STYLE, e

LIVE_JS = """
(function(){
  if(!window.EventSource){return;}
  var source=new EventSource('/api/events');
  source.addEventListener('changed',function(){
    fetch('/',{credentials:'same-origin'}).then(function(r){return r.text();}).then(function(t){
      var next=new DOMParser().parseFromString(t,'text/html').querySelector('main');
      if(next){document.querySelector('main').innerHTML=next.innerHTML;}
    });
  });
})();
"""


def records_table(rows: list[dict]) -> str:
    if not rows:
        return "<p>No finished game yet.</p>"
    head = "<tr><th>#</th><th>Player</th><th>Score</th><th>Wins</th><th>Played</th><th>Points</th></tr>"
    body = "".join(f"<tr><td>{i}</td><td>{e(r['player'])}</td><td>{e(r['score'])}</td><td>{e(r['wins'])}</td>"
                   f"<td>{e(r['played'])}</td><td>{e(r['points'])}</td></tr>" for i, r in enumerate(rows, start=1))
    return f"<table>{head}{body}</table>"


def standings_page(snapshot: dict) -> str:
    parts = [f"<h1>League</h1><p>Scoring {e(snapshot['scoring'])}: {snapshot['finished']} games finished, "
             f"{len(snapshot['live'])} being played.</p>", "<h2>Tournament</h2>", records_table(snapshot["overall"])]
    for game, rows in snapshot["games"].items():
        parts += [f"<h2>{e(game)}</h2>", records_table(rows)]
    if snapshot["live"]:
        parts.append("<h2>Being played</h2><table><tr><th>Table</th><th>Game</th><th>Players</th></tr>")
        for table in snapshot["live"]:
            points = table["points"] or [""] * len(table["players"])
            who = ", ".join(f"{e(p)} {e(n)}" for p, n in zip(table["players"], points))
            parts.append(f"<tr><td>{e(table['table'])}</td><td>{e(table['game'])}</td><td>{who}</td></tr>")
        parts.append("</table>")
    boxes = " ".join(f"{e(box)} ({'online' if up else 'offline'})" for box, up in sorted(snapshot["boxes"].items()))
    parts.append(f"<h2>Boxes</h2><p>{boxes or 'none heard yet'}</p>")
    if snapshot["missing"]:
        parts.append(f"<p>Waiting for entries of {', '.join(e(t) for t in snapshot['missing'])}.</p>")
    return ("<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
            "content='width=device-width,initial-scale=1'><title>dicewatch league</title>"
            f"<style>{STYLE}</style></head><body><main>{''.join(parts)}</main><script>{LIVE_JS}</script></body></html>")


def make_app(league) -> Starlette:
    """The page for a running :class:`host.league.follower.League`."""

    async def page(request: Request) -> HTMLResponse:
        return HTMLResponse(standings_page(league.snapshot()))

    async def api_standings(request: Request) -> JSONResponse:
        return JSONResponse(league.snapshot())

    async def api_events(request: Request) -> StreamingResponse:
        async def stream():
            seen = -1
            while not getattr(request.app.state, "stopping", False):
                if league.version != seen:
                    seen = league.version
                    yield f"event: changed\ndata: {json.dumps({'version': seen})}\n\n"
                await asyncio.sleep(0.5)
        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    app = Starlette(routes=[Route("/", page), Route("/api/standings", api_standings),
                            Route("/api/events", api_events)])
    app.state.stopping = False
    return app
