"""The organiser's live standings: every table's running scores and the tournament table (``mjtable standings``)."""

from mjtable.standings.compute import live_tables, standings_report, tournament_tables

__all__ = ["live_tables", "standings_report", "tournament_tables"]
