"""Demo run directories: two demos started in the same second never share one."""

from pathlib import Path

from mjtable.demo import fresh_run_dir


def test_same_second_runs_get_distinct_directories(tmp_path: Path) -> None:
    made = [fresh_run_dir(tmp_path / "runs") for _ in range(3)]
    assert len({p.name for p in made}) == 3
    assert all(p.is_dir() and p.parent == tmp_path / "runs" for p in made)
    stamps = {p.name.split("-")[0] for p in made}
    assert len(stamps) <= 2  # the same UTC second, unless the clock ticked between calls
    assert any(p.name.endswith("-2") for p in made) or len(stamps) == 2
