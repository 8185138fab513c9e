"""Where the display page finds the broker (issue 17 pt 7, issue 19 pt 7): the configured URL, else the host
the page was loaded from -- never 127.0.0.1 for a browser on another machine, never a URL parameter -- and a
CSP whose connect-src allows only that broker."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from mjtable.cli_display import broker_ws_for, csp_for, make_server


def _get(port: int, path: str, host: str) -> tuple[bytes, Any]:
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": host})
    with urllib.request.urlopen(req) as resp:
        return resp.read(), resp.headers


@pytest.fixture
def server() -> Iterator[int]:
    srv = make_server("127.0.0.1", 0, None, table="T1", broker_ws_port=9443)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield int(srv.server_address[1])
    finally:
        srv.shutdown()
        srv.server_close()


def test_unconfigured_broker_is_the_pages_host(server: int) -> None:
    body, headers = _get(server, "/config.json", "table-pi.lan:8080")
    assert json.loads(body)["broker_ws"] == "ws://table-pi.lan:9443"
    assert "connect-src 'self' ws://table-pi.lan:9443;" in headers["Content-Security-Policy"]
    body, _ = _get(server, "/config.json", "10.0.0.7:8080")
    assert json.loads(body)["broker_ws"] == "ws://10.0.0.7:9443"
    _, headers = _get(server, "/index.html", "10.0.0.7:8080")
    assert "connect-src 'self' ws://10.0.0.7:9443;" in headers["Content-Security-Policy"]


def test_a_strange_host_header_falls_back_to_the_server_address(server: int) -> None:
    body, _ = _get(server, "/config.json", "evil.example/x?y")
    assert json.loads(body)["broker_ws"] == "ws://127.0.0.1:9443"


def test_the_configured_broker_wins_and_bad_urls_are_refused() -> None:
    assert broker_ws_for("table-pi.lan:8080", "wss://broker.lan:9001", 9001, "127.0.0.1") == "wss://broker.lan:9001"
    assert broker_ws_for("[fd00::1]:8080", None, 9001, "127.0.0.1") == "ws://[fd00::1]:9001"
    assert csp_for("wss://broker.lan:9001/mqtt").split("; ")[1] == "connect-src 'self' wss://broker.lan:9001"
    for bad in ("http://broker.lan:9001", "ws://", "ws://a.lan:1; script-src *"):
        with pytest.raises(ValueError, match="broker-ws"):
            make_server("127.0.0.1", 0, bad)
