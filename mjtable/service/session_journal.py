"""Which session the service opens at start: the journal's, or a new one from the config.

The journal (``Config.journal_path``) is the truth of the session it holds, so it is never cut or dropped.
README's per-session step is "set players and rules in the config and restart"; so, at start:

- no journal yet: a new session from the config;
- an unfinished session: resumed when the config names the same players, rules and information mode;
  otherwise the service refuses to start (:class:`SessionMismatchError`, naming both), because resuming would
  credit that session's hands to the wrong people, and a new session would cut it.  Restore the config, or
  have the referee end the session (``end_session``) and restart;
- a finished session (``session_over``) whose public events are all in the outbox: set aside whole, as
  ``<table id>.journal.<session start, s>.jsonl`` with its index and snapshot folder (``mjtable replay`` and
  ``records export`` read it there), and a new session is started from the config;
- a finished session with public events the outbox never recorded (a kill between the journal's fsync and the
  outbox): resumed, so the service publishes them first; the next restart starts the configured session.

Called once, from ``build_service``, before any part runs (main thread).
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

from controller.engine.events import SessionStart
from controller.engine.state import GameState, Phase
from controller.journal import JournaledTable, JournalError
from mjtable.config import Config
from mjtable.mqtt.outbox import Outbox
from mjtable.service.ports import game_id_of, published_key

LOGGER = logging.getLogger(__name__)


class SessionMismatchError(JournalError):
    """The journal holds an unfinished session that the config does not describe."""


def archive_path(journal: Path, start_s: float) -> Path:
    """Where a finished session's journal is set aside: ``<table id>.journal.<start, whole seconds>.jsonl``."""
    return journal.with_name(f"{journal.name.removesuffix('.jsonl')}.{int(start_s)}.jsonl")


def _sidecars(journal: Path) -> tuple[Path, Path]:
    """The journal's SQLite index and snapshot folder (``controller.journal``, ``mjtable.snapshots``)."""
    return Path(f"{journal}.idx.sqlite"), Path(f"{journal}.snapshots")


def _session_of(state: GameState) -> str:
    players = ", ".join(state.session.players)
    return f"players {players}; rules {state.config.rules}; information {state.config.mode}"


def _configured(cfg: Config) -> str:
    players = ", ".join(cfg.table.players)
    return f"players {players}; rules {cfg.table.rules}; information {cfg.table.information}"


def mismatch(cfg: Config, state: GameState) -> str | None:
    """Why the service will not resume ``state`` (an unfinished session of the journal) under ``cfg``, or None
    when the config names its players, rules and information mode (``mjtable doctor`` says the same)."""
    if state.phase is Phase.SESSION_OVER:
        return None
    same = (tuple(state.session.players) == tuple(cfg.table.players) and state.config.rules == cfg.table.rules
            and str(state.config.mode) == cfg.table.information)
    if same:
        return None
    return (f"{cfg.journal_path} holds the unfinished session {_session_of(state)}, but the config names "
            f"{_configured(cfg)}. Resuming would credit its hands to the wrong players and a new session would "
            "cut it: restore the config to finish it, or have the referee end it (end_session) and restart")


def _all_published(cfg: Config, state: GameState, table: JournaledTable, ledger: Outbox | None) -> bool:
    """Whether the outbox holds the public events of every journaled event (no outbox: nothing to republish)."""
    if ledger is None:
        return True
    mark = ledger.get_meta(published_key(game_id_of(cfg.table.id, state.session.start_s)))
    last = max((r.n for r in table.journal.records if r.rec == "event"), default=0)
    return mark is not None and int(mark) >= last


def _set_aside(journal: Path, start_s: float) -> Path:
    """Rename the journal, then its index and snapshots, beside it; the directory is fsynced.  The journal goes
    last: a crash before it leaves the session in place (found finished again at the next start)."""
    target = archive_path(journal, start_s)
    k = 1
    while target.exists():
        k += 1
        target = target.with_name(f"{archive_path(journal, start_s).name.removesuffix('.jsonl')}-{k}.jsonl")
    for old, new in zip(_sidecars(journal)[::-1], _sidecars(target)[::-1], strict=True):
        if old.exists():
            os.replace(old, new)
    os.replace(journal, target)
    fd = os.open(journal.parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
    return target


def open_table(cfg: Config, start: SessionStart, ledger: Outbox | None) -> JournaledTable:
    """The engine with its journal for this start (see the module's docstring); raises :class:`SessionMismatchError`
    for an unfinished session the config does not describe, JournalError for a journal that cannot be read."""
    path = cfg.journal_path
    table = JournaledTable(path, start)
    if not table.resumed:
        return table
    state = table.state
    if state.phase is not Phase.SESSION_OVER:
        problem = mismatch(cfg, state)
        if problem is not None:
            table.close()
            raise SessionMismatchError(problem)
        return table
    if not _all_published(cfg, state, table, ledger):
        LOGGER.warning("%s holds a finished session whose public events are not all published: resumed to "
                       "publish them; restart again to start the configured session", path)
        return table
    table.close()
    kept = _set_aside(path, state.session.start_s)
    LOGGER.info("the finished session (%s) is kept in %s; a new session starts from the config",
                _session_of(state), kept, extra={"archived": str(kept)})
    return JournaledTable(path, start)
