"""The organiser's standings web view: a small HTTP server (stdlib, one thread per request).

Routes (GET only): ``/`` the page, ``/app.js`` its script, ``/standings.json`` the report
(:func:`mjtable.standings.compute.standings_report`), ``/standings.csv`` and ``/tables.csv``.  The page polls
``/standings.json`` every ``refresh_s`` seconds and renders every table's running scores and the tournament
tables with ``textContent`` (player names come from the tables: never parsed as HTML).  Nothing in a request
chooses what is read: the database is the one given at start.  Binds 127.0.0.1 unless told otherwise.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from mjtable.standings.compute import standings_csv, tables_csv

LOGGER = logging.getLogger(__name__)

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mjtable standings</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body{font-family:"Noto Sans CJK SC","DejaVu Sans",sans-serif;margin:1em;background:#f6f6f2;color:#222}
h1{font-size:1.4em;margin:.2em 0} h2{font-size:1.15em;margin:1em 0 .3em}
table{border-collapse:collapse;margin:.3em 0 1em;background:#fff} th,td{border:1px solid #ccc;padding:.25em .6em}
th{background:#eee;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
#tables{display:flex;flex-wrap:wrap;gap:.8em}
.tbl{border:1px solid #bbb;background:#fff;padding:.4em .6em;min-width:15em}
.tbl h3{margin:0 0 .2em;font-size:1em} .offline{color:#a00} .meta{color:#666;font-size:.85em}
</style></head><body>
<h1>Standings 成绩</h1><p class="meta" id="updated">loading…</p>
<div id="tournaments"></div>
<h2>Tables 桌</h2><div id="tables"></div>
<p class="meta"><a href="standings.csv">standings.csv</a> · <a href="tables.csv">tables.csv</a></p>
<script src="app.js"></script></body></html>
"""

SCRIPT = """'use strict';
function el(tag, text, cls) { const e = document.createElement(tag); if (text !== undefined && text !== null)
  e.textContent = String(text); if (cls) e.className = cls; return e; }
function row(cells, head) { const tr = el('tr'); for (const [v, n] of cells) tr.appendChild(el(head ? 'th' : 'td',
  v, n ? 'n' : '')); return tr; }
function render(doc) {
  const tours = document.getElementById('tournaments'); tours.replaceChildren();
  for (const t of doc.tournaments) {
    tours.appendChild(el('h2', t.family.toUpperCase() + ' (' + t.rules.join(', ') + ') - ' + t.points_name));
    const tab = el('table');
    tab.appendChild(row([['#'], ['player 姓名'], ['points'], [t.score_name], ['games'], ['with running games'],
      ['playing']], true));
    for (const r of t.rows) tab.appendChild(row([[r.place, 1], [r.player], [r.points, 1], [r.score, 1],
      [r.games, 1], [r.provisional_points, 1], [r.running ? 'yes' : '']]));
    tours.appendChild(tab);
  }
  const tables = document.getElementById('tables'); tables.replaceChildren();
  for (const t of doc.tables) {
    const box = el('div', undefined, 'tbl');
    box.appendChild(el('h3', t.table + (t.status === 'online' ? '' : ' (' + t.status + ')'),
      t.status === 'online' ? '' : 'offline'));
    box.appendChild(el('div', t.game ? (t.rules + ' · hand ' + t.hands_played + (t.complete ? ' · final' : ''))
      : 'no result yet', 'meta'));
    const tab = el('table');
    for (const p of t.players) tab.appendChild(row([[p.wind || ''], [p.player], [p.score, 1]]));
    box.appendChild(tab);
    if (t.last_hand) { const h = t.last_hand; box.appendChild(el('div', 'last: ' + (h.kind === 'win'
      ? h.winners.join(', ') + (h.discarder ? ' on ' + h.discarder + "'s discard" : ' self-drawn') + ' · ' + h.total
      : 'draw'), 'meta')); }
    tables.appendChild(box);
  }
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
}
async function poll() {
  try { const r = await fetch('standings.json', {cache: 'no-store'}); if (r.ok) render(await r.json()); }
  catch (e) { document.getElementById('updated').textContent = 'no data: ' + e; }
  setTimeout(poll, REFRESH_MS);
}
poll();
"""


def make_server(report: Callable[[], dict[str, Any]], host: str = "127.0.0.1", port: int = 0,
                refresh_s: float = 2.0) -> ThreadingHTTPServer:
    """An HTTP server (not started) that serves ``report()`` (called per request, on the request's thread)."""
    script = SCRIPT.replace("REFRESH_MS", str(int(refresh_s * 1000))).encode()

    class Handler(BaseHTTPRequestHandler):
        server_version = "mjtable-standings"

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            try:
                if path in ("/", "/index.html"):
                    self._send(200, "text/html; charset=utf-8", PAGE.encode())
                elif path == "/app.js":
                    self._send(200, "text/javascript; charset=utf-8", script)
                elif path == "/standings.json":
                    body = json.dumps(report(), ensure_ascii=False, separators=(",", ":")).encode()
                    self._send(200, "application/json; charset=utf-8", body)
                elif path == "/standings.csv":
                    self._send(200, "text/csv; charset=utf-8", standings_csv(report()).encode())
                elif path == "/tables.csv":
                    self._send(200, "text/csv; charset=utf-8", tables_csv(report()).encode())
                else:
                    self._send(404, "text/plain; charset=utf-8", b"not found\n")
            except Exception as exc:  # a database hiccup: say so, keep serving
                LOGGER.warning("standings request %s failed: %s", path, exc)
                self._send(503, "text/plain; charset=utf-8", f"standings unavailable: {exc}\n".encode())

        def _send(self, code: int, ctype: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy", "default-src 'self'; style-src 'unsafe-inline'")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            LOGGER.debug("standings http: " + format, *args)

    return ThreadingHTTPServer((host, port), Handler)


def serve_in_thread(server: ThreadingHTTPServer) -> threading.Thread:
    t = threading.Thread(target=server.serve_forever, name="standings.http", daemon=True)
    t.start()
    return t
