"""Which session the service opens: README's "per session, set players and rules and restart" must start the
configured session, and a journal is never cut or credited to other players silently."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.engine.simulate import START_S, SimRun
from controller.engine.state import Phase
from controller.journal import JournalError, read_records
from mjtable.config import Config, parse_config
from mjtable.mqtt.fake import FakePublisher, MemoryBroker
from mjtable.mqtt.outbox import Outbox
from mjtable.service import Injected, build_service
from mjtable.service.ports import published_key
from mjtable.service.session_journal import archive_path, open_table
from tests.engine.engine_helpers import play_into_journal

OLD = ("Ann", "Bo", "Cy", "Di")
NEW = ("Eve", "Fu", "Gao", "Hu")


def _cfg(tmp_path: Path, players: tuple[str, ...], **table: Any) -> Config:
    return parse_config({"table": {"id": "T1", "data_dir": str(tmp_path), "players": list(players),
                                   "information": "full", **table},
                         "serial": {"port": ""}, "gpio": {"backend": "none"}})


def _service(cfg: Config) -> Any:
    return build_service(cfg, Injected(publisher=FakePublisher(MemoryBroker())))


def _played(cfg: Config, stop_after: int | None = None) -> bytes:
    """A one-hand session of OLD (finished, or cut after ``stop_after`` events) in the table's journal."""
    state = play_into_journal(cfg.journal_path, SimRun(players=OLD, hands_total=1), stop_after)
    assert (state.phase is Phase.SESSION_OVER) == (stop_after is None)
    return cfg.journal_path.read_bytes()


def test_a_restart_after_a_finished_session_starts_the_configured_one_and_keeps_the_old(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, NEW)
    old = _played(cfg)
    snaps = Path(str(cfg.journal_path) + ".snapshots")
    snaps.mkdir()
    (snaps / "g0:12:0.jpg").write_bytes(b"\xff\xd8 jpeg \xff\xd9")
    service = _service(cfg)
    try:
        assert not service.table.resumed and service.table.state.session.players == NEW
        assert service.table.state.phase is Phase.BUILDING
    finally:
        service.table.close()
    kept = archive_path(cfg.journal_path, START_S)
    assert kept.name.startswith("T1.journal.") and kept.read_bytes() == old  # every byte of the old session
    assert (Path(str(kept) + ".snapshots") / "g0:12:0.jpg").is_file() and not snaps.exists()
    records, _ = read_records(cfg.journal_path)
    assert len(records) == 1 and records[0].event["players"] == list(NEW)


def test_an_unfinished_session_with_other_players_in_the_config_is_refused_untouched(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, NEW)
    old = _played(cfg, stop_after=40)
    with pytest.raises(JournalError, match=r"unfinished session.*Ann, Bo, Cy, Di.*Eve, Fu, Gao, Hu.*end_session"):
        _service(cfg)
    assert cfg.journal_path.read_bytes() == old
    assert sorted(p.name for p in tmp_path.glob("T1.journal.*")) == ["T1.journal.jsonl",
                                                                     "T1.journal.jsonl.idx.sqlite"]
    with pytest.raises(JournalError, match=r"rules mcr-2006.*rules mcr-2017"):
        _service(_cfg(tmp_path, OLD, rules="mcr-2017"))


def test_an_unfinished_session_resumes_under_its_own_config(tmp_path: Path) -> None:
    cfg = _cfg(tmp_path, OLD)
    _played(cfg, stop_after=40)
    service = _service(cfg)
    try:
        assert service.table.resumed and service.table.state.session.players == OLD
    finally:
        service.table.close()


def test_a_finished_session_whose_events_the_outbox_lacks_is_resumed_to_publish_them(tmp_path: Path) -> None:
    """A kill between the journal's fsync and the outbox: the finished session is resumed, so the service
    publishes what it never did (``republish_unconfirmed``); the restart after that starts the configured one."""
    cfg = _cfg(tmp_path, NEW)
    _played(cfg)
    records, _ = read_records(cfg.journal_path)
    last = max(r.n for r in records if r.rec == "event")
    ledger = Outbox(tmp_path / "T1.outbox.sqlite")
    try:
        game = "T1-" + str(int(records[0].event["at_s"]))
        ledger.mark_published(game, {published_key(game): str(last - 1)}, prunable="none")
        start = _start(cfg)
        table = open_table(cfg, start, ledger)
        assert table.resumed and table.state.session.players == OLD
        table.close()
        ledger.mark_published(game, {published_key(game): str(last)}, prunable="none")
        table = open_table(cfg, start, ledger)
        assert not table.resumed and table.state.session.players == NEW
        table.close()
    finally:
        ledger.close()


def _start(cfg: Config) -> Any:
    from mjtable.service import session_start

    return session_start(cfg, 1000.0)


def test_doctor_says_before_a_restart_which_session_the_service_will_open(tmp_path: Path) -> None:
    from mjtable.doctor import check_data_dir

    cfg = _cfg(tmp_path, NEW)
    _played(cfg, stop_after=40)
    c = check_data_dir(cfg)
    assert c.status == "fail" and "unfinished session players Ann, Bo, Cy, Di" in c.detail
    assert check_data_dir(_cfg(tmp_path, OLD)).detail.endswith("resumes its unfinished session")
    cfg.journal_path.unlink()
    _played(cfg)
    c = check_data_dir(cfg)
    assert c.status == "ok" and "its session is over: at start the service keeps it aside" in c.detail
