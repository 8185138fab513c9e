"""Issue 19.10: referee logins are rate limited.  Every MQTT login (a referee's password typed into the display, a
table, the recorder) is one new TCP connection to the broker, and ``deploy/nftables/mjtable-broker.nft`` bounds
new connections per source address.  This loads that file verbatim into a private network namespace holding a real
mosquitto, and connects from a second private namespace over a veth pair (neither has a route anywhere else; both
are deleted at the end): the first ``burst`` logins of one address get their CONNACK, the next one is dropped,
and another address still logs in.  Needs root, ``ip`` and ``nft`` (``scripts/bootstrap`` installs nftables)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = ROOT / "deploy" / "nftables" / "mjtable-broker.nft"
SERVER, CLIENT, OTHER = "10.254.19.1", "10.254.19.2", "10.254.19.3"
PORT = 1883  # one of the snippet's limited ports

#: run inside the client namespace: ``count`` MQTT logins from ``source``; one JSON list of outcomes
CLIENT_SCRIPT = r"""
import json, socket, sys
server, port, source, count = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
out = []
for i in range(count):
    cid = f"probe{i}".encode()
    body = b"\x00\x04MQTT\x04\x02\x00\x3c" + len(cid).to_bytes(2, "big") + cid
    s = socket.socket()
    s.settimeout(1.5)
    s.bind((source, 0))
    try:
        s.connect((server, port))
        s.sendall(bytes([0x10, len(body)]) + body)
        out.append("connack" if s.recv(4)[:1] == b"\x20" else "refused")
    except (TimeoutError, socket.timeout):
        out.append("dropped")
    except OSError as exc:
        out.append(type(exc).__name__)
    finally:
        s.close()
print(json.dumps(out))
"""


def _missing() -> str | None:
    if os.geteuid() != 0:
        return "needs root (network namespaces and nftables)"
    for tool in ("ip", "nft", "mosquitto"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH (scripts/bootstrap installs nftables and mosquitto)"
    return None


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(cmd), capture_output=True, text=True, timeout=30, check=False)


@dataclass
class Rig:
    server_ns: str
    client_ns: str

    def logins(self, source: str, count: int) -> list[str]:
        done = _run("ip", "netns", "exec", self.client_ns, sys.executable, "-c", CLIENT_SCRIPT, SERVER, str(PORT),
                    source, str(count))
        assert done.returncode == 0, done.stderr
        result: list[str] = json.loads(done.stdout)
        return result


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    why = _missing()
    if why:
        pytest.skip(why)
    tag = f"{os.getpid() % 100000}"
    srv, cli, veth = f"mjt19s{tag}", f"mjt19c{tag}", f"mjt19v{tag}"
    made = _run("ip", "netns", "add", srv)
    if made.returncode != 0:
        pytest.skip(f"cannot create a network namespace: {made.stderr.strip()}")
    mosquitto: subprocess.Popen[bytes] | None = None
    try:
        steps = [("ip", "netns", "add", cli),
                 ("ip", "link", "add", f"{veth}a", "type", "veth", "peer", "name", f"{veth}b"),
                 ("ip", "link", "set", f"{veth}a", "netns", srv), ("ip", "link", "set", f"{veth}b", "netns", cli),
                 ("ip", "-n", srv, "addr", "add", f"{SERVER}/24", "dev", f"{veth}a"),
                 ("ip", "-n", cli, "addr", "add", f"{CLIENT}/24", "dev", f"{veth}b"),
                 ("ip", "-n", cli, "addr", "add", f"{OTHER}/24", "dev", f"{veth}b"),
                 ("ip", "-n", srv, "link", "set", "lo", "up"), ("ip", "-n", cli, "link", "set", "lo", "up"),
                 ("ip", "-n", srv, "link", "set", f"{veth}a", "up"), ("ip", "-n", cli, "link", "set", f"{veth}b", "up"),
                 ("ip", "netns", "exec", srv, "nft", "-f", str(SNIPPET))]
        for step in steps:
            done = _run(*step)
            assert done.returncode == 0, f"{' '.join(step)}: {done.stderr}"
        conf = tmp_path / "mosquitto.conf"
        conf.write_text(f"listener {PORT} {SERVER}\nallow_anonymous true\npersistence false\n")
        mosquitto = subprocess.Popen(["ip", "netns", "exec", srv, "mosquitto", "-c", str(conf)],
                                     stdout=subprocess.DEVNULL, stderr=(tmp_path / "mosquitto.log").open("wb"))
        deadline = time.monotonic() + 10
        while f"{PORT:04X}" not in _run("ip", "netns", "exec", srv, "cat", "/proc/net/tcp").stdout:
            assert time.monotonic() < deadline and mosquitto.poll() is None, (tmp_path / "mosquitto.log").read_text()
            time.sleep(0.05)
        yield Rig(srv, cli)
    finally:
        if mosquitto is not None:
            mosquitto.terminate()
            mosquitto.wait(10)
        _run("ip", "netns", "del", cli)  # takes the veth pair with it
        _run("ip", "netns", "del", srv)


def _burst() -> int:
    found = re.findall(r"burst (\d+) packets", SNIPPET.read_text())
    assert found and len(set(found)) == 1, "the snippet names one burst for IPv4 and IPv6"
    return int(found[0])


def test_the_login_after_the_burst_is_dropped_and_another_address_still_logs_in(rig: Rig) -> None:
    burst = _burst()
    outcomes = rig.logins(CLIENT, burst + 1)
    assert outcomes[:burst] == ["connack"] * burst  # every login of the burst reaches mosquitto and is answered
    assert outcomes[burst:] == ["dropped"]  # the next new connection from that address is dropped
    assert rig.logins(OTHER, 1) == ["connack"]  # the limit is per source address
