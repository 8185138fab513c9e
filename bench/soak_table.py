"""One table of the soak (``bench.soak``): a bot session through the service's journal and MQTT publication path.

    .venv/bin/python -m bench.soak_table --table T1 --seed 1 --hands 16 --port 1883 --dir runs/soak [--pace-s 0.25]

The engine with its fsynced journal (``JournaledTable``), the simulator's bots (``SimRun``: every choice is a function
of the seed and the state, so a killed and resumed table plays the same session), and the service's publication
path: ``ServicePublisher.publish_events`` into a ``TableChannel`` with the outbox ledger, ``PahoPublisher`` with the
persistent outbox following the recorder's end-to-end acks, the public state after every step (hand results and the
game end are derived from it), and ``republish_unconfirmed`` after a resume, exactly as ``mjtable run`` does.  The
hardware parts are left out: they are not what a broker or service SIGKILL tests.

At the session end it waits until the recorder has acknowledged every event (``--drain-s`` at most), prints one JSON
line (``table``, ``accepted``, ``published``, ``held``, ``scores``) and exits 0; 3 if the drain timed out.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

from controller.engine.effects import Rejected
from controller.engine.simulate import SimRun
from controller.journal import JournaledTable
from controller.views import public_view
from mjtable.mqtt.channel import TableChannel, status_message
from mjtable.mqtt.outbox import Outbox
from mjtable.mqtt.publisher import PahoPublisher
from mjtable.mqtt.topics import TableTopics
from mjtable.service.events_out import public_event
from mjtable.service.ports import ServicePublisher, game_id_of, republish_unconfirmed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--hands", type=int, default=16)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--dir", type=Path, required=True)
    ap.add_argument("--pace-s", type=float, default=0.25, help="pause between engine events, seconds")
    ap.add_argument("--drain-s", type=float, default=300.0, help="how long to wait for the recorder at the end")
    args = ap.parse_args(argv)
    args.dir.mkdir(parents=True, exist_ok=True)
    topics = TableTopics(args.table)
    run = SimRun(seed=args.seed, hands_total=args.hands)
    table = JournaledTable(args.dir / f"{args.table}.journal.jsonl", run.session_start())
    outbox = Outbox(args.dir / f"{args.table}.outbox.sqlite")
    pub = PahoPublisher("127.0.0.1", args.port, f"mjtable-{args.table}", outbox=outbox,
                        will=status_message(topics, "offline"), online=status_message(topics, "online"))
    pub.follow_recorder(topics.recorder_ack)
    pub.start()
    channel = TableChannel(args.table, pub, game_id=game_id_of(args.table, table.state.session.start_s),
                           validate=False, ledger=outbox, clock=time.time,
                           infractions=lambda: [i.public_json() for i in table.state.infractions])
    sp = ServicePublisher(channel, asyncio.Event())
    if table.resumed:
        republish_unconfirmed(table, sp)
    channel.publish_state(public_view(table.state, args.table))
    accepted = 0
    last_resend = time.monotonic()
    while True:
        ev = run.next_event(table.state)
        if ev is None:
            break
        before = table.state
        fx = table.submit(ev)  # journaled and fsynced
        if fx and isinstance(fx[0], Rejected):
            continue
        accepted += 1
        sp.publish_events(public_event(ev, (), before), table.state.seq, ev.at_s)
        channel.publish_state(public_view(table.state, args.table))
        if time.monotonic() - last_resend >= 1.0:
            pub.resend_stale()
            last_resend = time.monotonic()
        time.sleep(args.pace_s)
    deadline = time.monotonic() + args.drain_s
    while (outbox.held_count() or len(outbox)) and time.monotonic() < deadline:
        pub.resend_stale()
        time.sleep(0.5)
    held = outbox.held_count()
    sess = table.state.session
    out = {"table": args.table, "accepted": accepted, "published": outbox.last_seq(channel.game_id), "held": held,
           "scores": list(sess.scores), "penalties": list(sess.penalties), "phase": str(table.state.phase)}
    pub.close()
    table.close()
    sys.stdout.write(json.dumps(out) + "\n")
    return 0 if held == 0 else 3


if __name__ == "__main__":
    raise SystemExit(main())
