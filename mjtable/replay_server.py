"""Hawk-eye replay: serve any hand of a journal step by step (``mjtable replay --serve JOURNAL``).

The journal (the engine's JSONL, ``controller/journal.py``) is read once, read-only, and folded through the real
engine (``controller.engine.step``): for every accepted event we keep the event and the referee view after
it.  The page (``mjtable/display/replay.html`` + ``replay.js``) lists the hands, steps through one with a
slider and buttons, jumps to calls and wins, shows the camera snapshot stored with an event, and exports a
hand as ONE self-contained HTML file (data, script, style and snapshots inlined) to share.

Camera snapshots: a ``camera`` event whose observation has ``"snapshot": "<path>"`` (relative to the
journal's folder), or a file ``<journal>.snapshots/<event id>.jpg|.png``.  Paths outside the journal's folder
are refused.  HTTP endpoints: ``/`` page, ``/api/meta``, ``/api/hand/<k>``, ``/snapshot/<n>``,
``/export/<k>``.  :func:`load_replay` is pure (tests use it); :func:`serve` blocks until SIGINT/SIGTERM.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import signal
import sys
import threading
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

CALL_TYPES = frozenset({"claim", "concealed_kong", "promoted_kong"})
WIN_TYPES = frozenset({"declare_win"})
DISPLAY = resources.files("mjtable").joinpath("display")


class ReplayError(RuntimeError):
    """The journal cannot be replayed (missing, not a journal, rejected on replay)."""


@dataclass
class Step:
    """One accepted event and the referee view after it (``n`` = engine seq)."""

    n: int
    event: dict[str, Any]
    view: dict[str, Any]
    mark: str | None  # "call", "win", "result" or None
    snapshot: Path | None = None

    def to_json(self, *, inline_snapshot: bool = False) -> dict[str, Any]:
        snap: str | None = None
        if self.snapshot is not None:
            if inline_snapshot:
                ctype = mimetypes.guess_type(self.snapshot.name)[0] or "image/jpeg"
                snap = f"data:{ctype};base64," + base64.b64encode(self.snapshot.read_bytes()).decode()
            else:
                snap = f"snapshot/{self.n}"
        return {"n": self.n, "event": self.event, "view": self.view, "mark": self.mark, "snapshot": snap}


@dataclass
class Replay:
    """A folded journal: every step, grouped by hand."""

    path: Path
    table: str
    rules: str
    players: list[str]
    steps: list[Step] = field(default_factory=list)
    hands: list[dict[str, Any]] = field(default_factory=list)  # {"index","hand_no","first","last","result"}

    def meta(self) -> dict[str, Any]:
        return {"journal": self.path.name, "table": self.table, "rules": self.rules, "players": self.players,
                "steps": len(self.steps), "hands": self.hands}

    def hand(self, k: int, *, inline_snapshots: bool = False) -> dict[str, Any]:
        if not 0 <= k < len(self.hands):
            raise KeyError(k)
        h = self.hands[k]
        steps = self.steps[h["first"]:h["last"] + 1]
        return {"meta": self.meta(), "hand": h, "steps": [s.to_json(inline_snapshot=inline_snapshots) for s in steps]}


def _snapshot_for(journal: Path, event: dict[str, Any]) -> Path | None:
    root = journal.parent.resolve()
    cands: list[Path] = []
    obs = event.get("observation")
    if isinstance(obs, dict) and isinstance(obs.get("snapshot"), str):
        cands.append(root / obs["snapshot"])
    side = journal.parent / f"{journal.name}.snapshots"
    cands += [side / f"{event.get('id')}{ext}" for ext in (".jpg", ".jpeg", ".png")]
    for c in cands:
        r = c.resolve()
        if (root == r.parent or root in r.parents) and r.is_file():
            return r
    return None


def load_replay(journal: Path | str) -> Replay:
    """Fold a journal through the engine; raises :class:`ReplayError` with a readable reason."""
    from controller.engine.effects import Rejected
    from controller.engine.events import EventFormatError, SessionStart, event_from_json
    from controller.engine.step import start_session, step
    from controller.journal import read_records
    from controller.views import referee_view

    path = Path(journal)
    if not path.is_file():
        raise ReplayError(f"no journal at {path}")
    records, _ = read_records(path)
    events = [r.event for r in records if r.rec == "event"]
    if not events:
        raise ReplayError(f"{path} holds no events")
    try:
        first = event_from_json(events[0])
        if not isinstance(first, SessionStart):
            raise ReplayError(f"{path}: a journal starts with session_start, not {events[0].get('type')!r}")
        state, _ = start_session(first)
        rep = Replay(path, state.config.table_id, state.config.rules, list(state.session.players))

        def view(st: Any) -> dict[str, Any]:
            try:
                return referee_view(st)
            except (ValueError, IndexError, KeyError):  # waits are best effort; the state is not
                return referee_view(st, with_waits=False)

        rep.steps.append(Step(state.seq, events[0], view(state), None))
        for obj in events[1:]:
            ev = event_from_json(obj)
            new, fx = step(state, ev)
            if fx and isinstance(fx[0], Rejected):
                raise ReplayError(f"{path}: event {ev.id} is rejected on replay: {fx[0].reason}")
            had_result = state.hand is not None and state.hand.result is not None
            has_result = new.hand is not None and new.hand.result is not None
            mark: str | None = None
            if has_result and not had_result:
                assert new.hand is not None and new.hand.result is not None
                mark = "win" if new.hand.result.kind == "win" else "result"
            elif obj.get("type") in WIN_TYPES:
                mark = "win"
            elif obj.get("type") in CALL_TYPES:
                mark = "call"
            rep.steps.append(Step(new.seq, obj, view(new), mark, _snapshot_for(path, obj)))
            state = new
    except EventFormatError as exc:
        raise ReplayError(f"{path}: {exc}") from exc
    cur: dict[str, Any] | None = None
    for i, s in enumerate(rep.steps):
        hand_no = s.view["session"]["hand_no"]
        built = s.event.get("type") == "table_built"
        if cur is None or (built and cur["built"]):
            cur = {"index": len(rep.hands), "hand_no": hand_no, "first": i, "last": i, "result": None,
                   "built": False}
            rep.hands.append(cur)
        cur["built"] = cur["built"] or built
        cur["last"] = i
        cur["hand_no"] = hand_no
        if s.view.get("result") is not None:
            r = s.view["result"]
            cur["result"] = {"kind": r["kind"], "winners": r["winners"], "total": r["total"]}
    return rep


def _page(name: str) -> bytes:
    return DISPLAY.joinpath(name).read_bytes()


def export_html(rep: Replay, k: int) -> bytes:
    """One hand as a single self-contained HTML file (no network needed to open it)."""
    data = json.dumps(rep.hand(k, inline_snapshots=True), ensure_ascii=False).replace("</", "<\\/")
    html = _page("replay.html").decode()
    style = "<style>\n" + _page("style.css").decode() + "</style>"
    script = f"<script>window.REPLAY_DATA = {data};</script>\n<script>\n{_page('replay.js').decode()}</script>"
    html = html.replace('<link rel="stylesheet" href="style.css">', style)
    html = html.replace('<script src="dom.js"></script>', f"<script>\n{_page('dom.js').decode()}</script>")
    html = html.replace('<script src="replay.js"></script>', script)
    return html.encode()


def make_server(rep: Replay, host: str, port: int) -> ThreadingHTTPServer:
    """The replay HTTP server (port 0 = a free port); serve it on a thread of your own."""

    class ReplayHandler(BaseHTTPRequestHandler):
        server_version = "mjtable-replay"

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write("replay: " + (format % args) + "\n")

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            try:
                if path in ("/", "/index.html"):
                    self._send(_page("replay.html"), "text/html; charset=utf-8")
                elif path in ("/replay.js", "/dom.js", "/style.css"):
                    ctype = "text/javascript" if path.endswith(".js") else "text/css"
                    self._send(_page(path.lstrip("/")), ctype + "; charset=utf-8")
                elif path == "/api/meta":
                    self._json(rep.meta())
                elif path.startswith("/api/hand/"):
                    self._json(rep.hand(int(path.rsplit("/", 1)[1])))
                elif path.startswith("/snapshot/"):
                    n = int(path.rsplit("/", 1)[1])
                    snap = next((s.snapshot for s in rep.steps if s.n == n and s.snapshot is not None), None)
                    if snap is None:
                        raise KeyError(n)
                    self._send(snap.read_bytes(), mimetypes.guess_type(snap.name)[0] or "image/jpeg")
                elif path.startswith("/export/"):
                    k = int(path.rsplit("/", 1)[1])
                    name = f"{rep.table}-hand{rep.hands[k]['hand_no'] if 0 <= k < len(rep.hands) else k}.html"
                    self._send(export_html(rep, k), "text/html; charset=utf-8",
                               {"Content-Disposition": f'attachment; filename="{name}"'})
                else:
                    raise KeyError(path)
            except (KeyError, ValueError, IndexError):
                self._send(b"not found\n", "text/plain", status=HTTPStatus.NOT_FOUND)

        def _json(self, doc: Any) -> None:
            self._send(json.dumps(doc, ensure_ascii=False).encode(), "application/json")

        def _send(self, body: bytes, ctype: str, headers: dict[str, str] | None = None,
                  status: HTTPStatus = HTTPStatus.OK) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer((host, port), ReplayHandler)
    server.daemon_threads = True
    return server


def serve(journal_path: Path | str, host: str, port: int) -> None:
    """Serve the replay UI for ``journal_path`` until SIGINT/SIGTERM (blocks the calling thread)."""
    try:
        rep = load_replay(journal_path)
    except ReplayError as exc:
        sys.stdout.write(json.dumps({"event": "error", "error": str(exc)}) + "\n")
        raise SystemExit(1) from exc
    server = make_server(rep, host, port)
    h, p = server.server_address[:2]
    sys.stdout.write(json.dumps({"event": "replay_serving", "url": f"http://{h!s}:{p}/", "hands": len(rep.hands),
                                 "steps": len(rep.steps)}) + "\n")
    sys.stdout.flush()
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, name="replay.http", daemon=True)
    thread.start()
    stop.wait()
    server.shutdown()
    server.server_close()
