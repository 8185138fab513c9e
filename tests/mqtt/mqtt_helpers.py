"""Helpers for the MQTT tests: a collecting paho subscriber and sample public/referee states."""

from __future__ import annotations

import copy
import json
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion


class Collector:
    """A real paho subscriber that records (topic, payload, retain) in arrival order (network thread)."""

    def __init__(self, host: str, port: int, topics: list[str], *, client_id: str = "", username: str | None = None,
                 password: str | None = None, clean_session: bool = True) -> None:
        self.messages: list[tuple[str, bytes, bool]] = []
        self.cond = threading.Condition()
        self.connect_reason: str | None = None
        self.suback: list[int] = []
        self._topics = topics
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session)
        if username is not None:
            self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe
        self.client.reconnect_delay_set(1, 1)
        self.client.connect(host, port, keepalive=10)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        with self.cond:
            self.connect_reason = str(reason)
            self.cond.notify_all()
        if not reason.is_failure:
            for t in self._topics:
                client.subscribe(t, qos=1)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, codes: Any, props: Any) -> None:
        with self.cond:
            self.suback += [int(c.value) for c in codes]
            self.cond.notify_all()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with self.cond:
            self.messages.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            self.cond.notify_all()

    def wait_for(self, pred: Callable[[list[tuple[str, bytes, bool]]], bool], timeout_s: float = 10.0) -> bool:
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while not pred(self.messages):
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def wait_for_any(self, match: Callable[[str, bytes], bool], timeout_s: float = 10.0) -> bool:
        """Wait until a message (topic, payload) matches; each message is looked at once (a predicate over the
        whole list, re-run under the lock at every arrival, costs O(n^2) and starves the network thread when a
        game's thousands of messages stream in)."""
        deadline = time.monotonic() + timeout_s
        seen = 0
        with self.cond:
            while True:
                for topic, payload, _ in self.messages[seen:]:
                    if match(topic, payload):
                        return True
                seen = len(self.messages)
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)

    def wait_subscribed(self, n: int | None = None, timeout_s: float = 10.0) -> bool:
        want = len(self._topics) if n is None else n
        deadline = time.monotonic() + timeout_s
        with self.cond:
            while len(self.suback) < want:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self.cond.wait(left)
            return True

    def payloads(self, topic: str) -> list[dict[str, Any]]:
        with self.cond:
            return [json.loads(p) for t, p, _ in self.messages if t == topic]

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def sample_public(table: str = "T1", seq: int = 1, hand_no: int = 1) -> dict[str, Any]:
    """A public state in the contract shape (what controller.views.public_view produces)."""
    seats = []
    for i, w in enumerate("ESWN"):
        seats.append({"seat": i, "player": f"P{i + 1}", "wind": w, "score": 0, "hand_size": 13, "flowers": [],
                      "melds": [], "pond": [], "penalties": 0})
    seats[1]["melds"] = [{"type": "pung", "tiles": ["5p", "5p", "5p"], "claimed_from": 0},
                         {"type": "concealed_kong", "tiles": None, "claimed_from": None}]
    seats[1]["hand_size"] = 6
    seats[0]["pond"] = [{"tile": "1z", "called": False}, {"tile": "5p", "called": True}]
    return {"schema": "mjtable.public_state/1", "table": table, "rules": "mcr-2006", "seq": seq, "paused": False,
            "phase": "play", "session": {"hand_no": hand_no, "round_wind": "E", "dealer": 0, "hands_total": 16},
            "turn": 2, "wall_remaining": 80, "last_discard": {"seat": 0, "tile": "5p"}, "seats": seats,
            "timers": [{"name": "discard", "seat": 2, "deadline_s": 1.8e9, "limit_s": 10.0}],
            "claim_window": None, "result": None, "infractions": [], "alerts": []}


def sample_referee(public: dict[str, Any]) -> dict[str, Any]:
    ref = copy.deepcopy(public)
    ref["schema"] = "mjtable.referee_state/1"
    hands = [["1m", "2m", "3m", "4p", "4p", "7s", "8s", "9s", "2z", "2z", "6z", "6z", "6z"],
             ["9m", "9m", "9m", "1s", "2s", "3s"], None,
             ["3p", "4p"] + ["7m"] * 3 + ["1s"] * 3 + ["5z"] * 3 + ["9p"] * 2]
    for seat, hand in zip(ref["seats"], hands, strict=True):
        seat["concealed"] = hand
        seat["waits"] = [{"tile": "2p", "total": 8}, {"tile": "5p", "total": 9}] if hand and len(hand) == 13 else []
    ref["seats"][1]["melds"][1]["tiles"] = ["7p", "7p", "7p", "7p"]
    return ref
