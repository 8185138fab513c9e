"""``mjtable recorder``: store every table's games from a broker (SQLite, or PostgreSQL by URL)."""

from mjtable.recorder.recorder import Recorder
from mjtable.recorder.store import EventStore, SqlEventStore, StoreError

__all__ = ["EventStore", "Recorder", "SqlEventStore", "StoreError"]
