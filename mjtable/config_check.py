"""The one validation ``mjtable run`` and ``mjtable doctor`` share: a config that passes it starts the service.

:func:`load_config` (:mod:`mjtable.config`) checks the file itself (types, ranges, UTF-8, size and nesting);
:func:`check_runtime` checks what the service will do with it on THIS machine before it touches anything:

* the rules string, with its profile options, starts a session in the engine (``riichi-hkma-2025:division=Z``
  is refused here, not by a traceback in ``run``);
* ``mqtt.password_file`` is a readable, UTF-8, non-empty regular file;
* ``table.data_dir`` is (or can be made) a writable directory, not a file and not under /proc, /sys or /dev.

Every failure is ONE :class:`~mjtable.config.ConfigError` line naming the key and the fix.  Nothing is created
(``doctor`` must not make /var/lib/mjtable).  Pure apart from reading the file system; any thread.
"""

from __future__ import annotations

import os
from pathlib import Path

from mjtable.config import Config, ConfigError, load_config

#: pseudo file systems a data directory must never be on
FORBIDDEN_ROOTS = (Path("/proc"), Path("/sys"), Path("/dev"))
MAX_PASSWORD_BYTES = 4096


def check_runtime(cfg: Config) -> None:
    """Raise :class:`ConfigError` (one line) unless the service can start with ``cfg`` here."""
    _check_rules(cfg)
    _check_password_file(cfg)
    check_data_dir(cfg)


def load_checked(path: str | Path) -> Config:
    """:func:`load_config` then :func:`check_runtime`: what ``run`` and ``doctor`` both call."""
    cfg = load_config(path)
    check_runtime(cfg)
    return cfg


def _check_rules(cfg: Config) -> None:
    from controller.engine.step import start_session
    from mjtable.service import session_start

    try:
        start_session(session_start(cfg, 0.0))
    except Exception as exc:  # the engine's own verdict on the rules, players, timers ...
        raise ConfigError(f"{cfg.source}: table.rules {cfg.table.rules!r} cannot start a session: {exc}") from exc


def _check_password_file(cfg: Config) -> None:
    if not cfg.mqtt.password_file:
        return
    path = Path(cfg.mqtt.password_file)
    where = f"{cfg.source}: mqtt.password_file {str(path)!r}"
    if not path.exists():
        raise ConfigError(f"{where} does not exist (write the table user's broker password there, mode 0600)")
    if not path.is_file():
        raise ConfigError(f"{where} is not a regular file")
    try:
        raw = path.read_bytes()[:MAX_PASSWORD_BYTES + 1]
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read by this user: {exc.strerror}") from exc
    if len(raw) > MAX_PASSWORD_BYTES:
        raise ConfigError(f"{where} is larger than {MAX_PASSWORD_BYTES} bytes: not a password file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where} is not UTF-8 text") from exc
    if not text.strip():
        raise ConfigError(f"{where} is empty")


def check_data_dir(cfg: Config) -> None:
    """Raise :class:`ConfigError` (one line) unless ``table.data_dir`` is a writable directory or can be created
    (nothing is created).  ``doctor``'s data_dir check starts with this one, so both agree."""
    d = cfg.table.data_dir
    where = f"{cfg.source}: table.data_dir {str(d)!r}"
    resolved = Path(os.path.realpath(d))
    for root in FORBIDDEN_ROOTS:
        if resolved == root or root in resolved.parents:
            raise ConfigError(f"{where} is under {root}, a pseudo file system: use e.g. /var/lib/mjtable")
    if d.exists():
        if not d.is_dir():
            raise ConfigError(f"{where} exists and is not a directory")
        if not os.access(d, os.W_OK | os.X_OK):
            raise ConfigError(f"{where} is not writable by this user")
        return
    parent = d.parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ConfigError(f"{where} cannot be created: {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ConfigError(f"{where} does not exist and {parent} is not writable by this user")
