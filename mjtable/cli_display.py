"""``mjtable display``: serve the referee / spectator display (static files + ``config.json``).

    mjtable display --port 8080 [--broker-ws ws://broker.lan:9001 | --broker-ws-port 9001] [--table T1] [--spectator]

The page itself talks to the broker over websockets; this server only hands out the files in
``mjtable/display/`` and a ``config.json`` (``{"broker_ws", "table", "prefix", "spectator", ...}``).

Where the browser finds the broker: the configured ``--broker-ws`` URL, or (when none is configured) the host
the page was loaded from with ``--broker-ws-port`` -- a browser on another machine that opened
``http://table-pi.lan:8080/`` connects to ``ws://table-pi.lan:9001``, not to its own 127.0.0.1.  The page takes
the address ONLY from ``config.json``, never from its URL, and every response carries a Content-Security-Policy
whose ``connect-src`` allows that one broker origin (and the server itself): a crafted link cannot send a
referee's password to another host.  :func:`make_server` returns a ``ThreadingHTTPServer`` (one thread per
request) that tests run on a background thread; ``run`` blocks until SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import mimetypes
import re
import signal
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from mjtable.mqtt.topics import PREFIX, check_table_id

DISPLAY_DIR = Path(str(resources.files("mjtable").joinpath("display")))
DEFAULT_WS_PORT = 9001
DEFAULT_PUBLIC_CLIENTS = "127.0.0.1/32,::1/128"
#: a Host header we accept to build the broker URL from: a DNS name, IPv4 or [IPv6], optional port
_HOST_RE = re.compile(r"^(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])"
                      r"(?::\d{1,5})?$")


def csp_for(broker_ws: str) -> str:
    """The page's Content-Security-Policy: scripts, styles and images from the server only; websockets to
    ``broker_ws``'s origin only."""
    parts = urlsplit(broker_ws)
    origin = f"{parts.scheme}://{parts.netloc}"
    return (f"default-src 'self'; connect-src 'self' {origin}; img-src 'self' data:; style-src 'self'; "
            "script-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'")


def broker_ws_for(host_header: str | None, configured: str | None, ws_port: int, fallback_host: str) -> str:
    """The broker URL a page gets: the configured one, else ``ws://<host the page came from>:<ws_port>``."""
    if configured is not None:
        return configured
    host = fallback_host
    if host_header:
        m = _HOST_RE.match(host_header.strip())
        if m:
            host = m.group("host")
    return f"ws://{host}:{ws_port}"


def _handler(config: dict[str, Any], root: Path, *, configured_ws: str | None,
             ws_port: int, fallback_host: str,
             public_clients: tuple[IPv4Network | IPv6Network, ...] = ()) -> type[BaseHTTPRequestHandler]:
    root = root.resolve()
    anonymous = {**config, "public_user": None, "public_password": None}

    def may_have_public_credentials(address: str) -> bool:
        try:
            ip = ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in public_clients)

    class DisplayHandler(BaseHTTPRequestHandler):
        server_version = "mjtable-display"

        def log_message(self, format: str, *args: Any) -> None:
            sys.stderr.write("display: " + (format % args) + "\n")

        def _broker_ws(self) -> str:
            return broker_ws_for(self.headers.get("Host"), configured_ws, ws_port, fallback_host)

        def do_GET(self) -> None:
            path = urlsplit(self.path).path
            if path in ("/", ""):
                path = "/index.html"
            if path == "/config.json":  # the shared display password only to the hall screens listed
                trusted = may_have_public_credentials(str(self.client_address[0]))
                body = json.dumps({**(config if trusted else anonymous), "broker_ws": self._broker_ws()}).encode()
                self._send(HTTPStatus.OK, body, "application/json")
                return
            target = (root / path.lstrip("/")).resolve()
            if root not in target.parents or not target.is_file() or target.suffix == ".py":
                self._send(HTTPStatus.NOT_FOUND, b"not found\n", "text/plain")
                return
            ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self._send(HTTPStatus.OK, target.read_bytes(), ctype)

        def _send(self, status: HTTPStatus, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", csp_for(self._broker_ws()))
            self.end_headers()
            self.wfile.write(body)

    return DisplayHandler


def make_server(host: str, port: int, broker_ws: str | None, *, table: str | None = None, spectator: bool = False,
                public_user: str | None = None, public_password: str | None = None,
                root: Path = DISPLAY_DIR, broker_ws_port: int = DEFAULT_WS_PORT,
                public_clients: str = DEFAULT_PUBLIC_CLIENTS) -> ThreadingHTTPServer:
    """An HTTP server for the display files; ``port`` 0 picks a free port (see ``server.server_address``).

    ``broker_ws`` None: each page gets ``ws://<the host it was loaded from>:<broker_ws_port>``.

    ``public_user``/``public_password`` are the broker credentials of the ``display`` (or ``spectator``) role
    the page uses before a referee logs in.  They are served only to browsers whose address is in
    ``public_clients`` (comma-separated networks; default: this machine, i.e. a kiosk hall screen), never to
    every browser that finds the page: anyone else gets ``config.json`` without them and must log in.
    Referee credentials are typed into the page and never served.
    """
    if table is not None:
        check_table_id(table)
    if broker_ws is not None:
        parts = urlsplit(broker_ws)
        if parts.scheme not in ("ws", "wss") or not parts.hostname or any(c in broker_ws for c in " ;'\""):
            raise ValueError(f"--broker-ws must be a ws:// or wss:// URL, not {broker_ws!r}")
    if not 0 < broker_ws_port < 65536:
        raise ValueError(f"--broker-ws-port must be 1..65535, not {broker_ws_port}")
    config = {"table": table, "prefix": PREFIX, "spectator": spectator,
              "public_user": public_user, "public_password": public_password}
    try:
        nets = tuple(ip_network(part.strip(), strict=False) for part in public_clients.split(",") if part.strip())
    except ValueError as exc:
        raise ValueError(f"--public-clients: {exc}") from exc
    fallback = host if host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    server = ThreadingHTTPServer((host, port), _handler(config, root, configured_ws=broker_ws, ws_port=broker_ws_port,
                                                        fallback_host=fallback, public_clients=nets))
    server.daemon_threads = True
    return server


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="0.0.0.0", help="address to listen on")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--broker-ws", default=None,
                        help="broker websockets URL for browsers (default: the host the page was loaded from, "
                             "port --broker-ws-port); pages never take it from their URL")
    parser.add_argument("--broker-ws-port", type=int, default=DEFAULT_WS_PORT,
                        help=f"websockets port of the broker on the page's host (default {DEFAULT_WS_PORT})")
    parser.add_argument("--table", default=None, help="table id to show (default: the first one seen)")
    parser.add_argument("--spectator", action="store_true", help="show the delayed spectator topics")
    parser.add_argument("--public-user", default=None, help="broker user of the display/spectator role")
    parser.add_argument("--public-password-file", type=Path, default=None, help="file with that user's password")
    parser.add_argument("--public-clients", default=DEFAULT_PUBLIC_CLIENTS,
                        help="networks of the hall screens that get the public user's password "
                             f"(comma-separated; default {DEFAULT_PUBLIC_CLIENTS}: this machine only)")


def run(args: argparse.Namespace) -> int:
    try:
        password = args.public_password_file.read_text().strip() if args.public_password_file else None
        server = make_server(args.host, args.port, args.broker_ws, table=args.table, spectator=args.spectator,
                             public_user=args.public_user, public_password=password,
                             broker_ws_port=args.broker_ws_port, public_clients=args.public_clients)
    except (OSError, ValueError) as exc:
        sys.stdout.write(json.dumps({"event": "error", "error": str(exc)}) + "\n")
        return 2
    host, port = server.server_address[:2]
    sys.stdout.write(json.dumps({"event": "display_serving", "url": f"http://{host!s}:{port}/",
                                 "broker_ws": args.broker_ws or f"ws://<page host>:{args.broker_ws_port}",
                                 "table": args.table}) + "\n")
    sys.stdout.flush()
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    thread = threading.Thread(target=server.serve_forever, name="display.http", daemon=True)
    thread.start()
    stop.wait()
    server.shutdown()
    server.server_close()
    return 0
