#!/usr/bin/env bash
# Install mjtable on Raspberry Pi OS 64-bit (bookworm) as a systemd service.
#
#   sudo deploy/install.sh               # install or upgrade (idempotent)
#   deploy/install.sh --dry-run          # print every step, change nothing (no root needed)
#
# Steps: apt packages -> service user -> code in $PREFIX with a venv -> config template -> mosquitto config
# -> udev rules -> systemd unit -> enable and start -> mjtable doctor.  An existing /etc/mjtable/table.toml
# is never overwritten.  Environment: PREFIX (default /opt/mjtable), MJT_USER (default mjtable),
# MJT_SKIP_START=1 to install without starting.
set -euo pipefail

DRY_RUN=0
for arg in "$@"; do
  case "$arg" in
    --dry-run|-n) DRY_RUN=1 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option '$arg' (try --help)" >&2; exit 2 ;;
  esac
done

SRC="$(cd "$(dirname "$0")/.." && pwd)"
PREFIX="${PREFIX:-/opt/mjtable}"
MJT_USER="${MJT_USER:-mjtable}"
ETC=/etc/mjtable
STATE=/var/lib/mjtable

log() { printf 'install.sh: %s\n' "$*" >&2; }
run() {
  if [ "$DRY_RUN" = 1 ]; then
    printf 'DRY-RUN:'; printf ' %q' "$@"; printf '\n'
  else
    "$@"
  fi
}

# --- preflight ---------------------------------------------------------------------------------------
ARCH="$(uname -m)"
# shellcheck source=/dev/null
CODENAME="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-unknown}")"
MODEL="not a Raspberry Pi"
if [ -r /proc/device-tree/model ]; then MODEL="$(tr -d '\0' </proc/device-tree/model)"; fi
log "source $SRC -> $PREFIX; $MODEL; $ARCH; $CODENAME"
if [ "$ARCH" != "aarch64" ] && [ "$ARCH" != "x86_64" ]; then
  log "error: $ARCH is not supported: use Raspberry Pi OS 64-bit (no onnxruntime/opencv wheels for armv7l)"
  exit 1
fi
if [ "$CODENAME" != "bookworm" ]; then
  log "warning: tested on bookworm, this is '$CODENAME'"
fi
if [ "$DRY_RUN" = 0 ] && [ "$(id -u)" != 0 ]; then
  log "error: run as root (sudo $0), or use --dry-run"
  exit 1
fi

# Pi 5 (RP1) has no pigpiod: use lgpio there.
GPIO_BACKEND=pigpio
case "$MODEL" in
  *"Raspberry Pi 5"*) GPIO_BACKEND=lgpio ;;
  "not a Raspberry Pi") GPIO_BACKEND=fake ;;
esac
log "GPIO backend: $GPIO_BACKEND"

# --- system packages -----------------------------------------------------------------------------------
APT=(python3 python3-venv python3-pip mosquitto mosquitto-clients)
if [ "$MODEL" != "not a Raspberry Pi" ]; then
  APT+=(python3-picamera2 python3-libcamera)
  if [ "$GPIO_BACKEND" = pigpio ]; then APT+=(pigpiod); else APT+=(python3-lgpio); fi
fi
missing=()
for p in "${APT[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  run apt-get update -qq
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# --- user and directories --------------------------------------------------------------------------------
if ! id "$MJT_USER" >/dev/null 2>&1; then
  run useradd --system --home-dir "$STATE" --shell /usr/sbin/nologin "$MJT_USER"
fi
for g in dialout video gpio; do
  if getent group "$g" >/dev/null; then run usermod -aG "$g" "$MJT_USER"; fi
done
run install -d -m 0755 "$PREFIX" "$ETC"
run install -d -m 0750 -o "$MJT_USER" -g "$MJT_USER" "$STATE"

# --- code and venv (system site packages: picamera2/libcamera come from apt) ---------------------------
if [ "$SRC" != "$PREFIX" ]; then
  run cp -a "$SRC/." "$PREFIX/"
  run rm -rf "$PREFIX/.venv" "$PREFIX/runs"
fi
if [ ! -x "$PREFIX/.venv/bin/python" ] || [ "$DRY_RUN" = 1 ]; then
  run python3 -m venv --system-site-packages "$PREFIX/.venv"
fi
EXTRAS=""
if [ "$MODEL" != "not a Raspberry Pi" ]; then EXTRAS="[pi]"; fi
run "$PREFIX/.venv/bin/pip" install -q --disable-pip-version-check "$PREFIX$EXTRAS"

# --- configuration (never overwrite) ----------------------------------------------------------------------
if [ ! -f "$ETC/table.toml" ]; then
  run install -m 0640 -g "$MJT_USER" "$SRC/deploy/table.toml.example" "$ETC/table.toml"
  run sed -i "s/^backend = \"pigpio\"/backend = \"$GPIO_BACKEND\"/" "$ETC/table.toml"
  log "edit $ETC/table.toml (table id, players, pins), then: systemctl restart mjtable"
else
  log "keeping existing $ETC/table.toml"
fi

# --- broker (deploy/mosquitto, see docs/mqtt.md) ---------------------------------------------------------
run install -m 0644 "$SRC/deploy/mosquitto/mjtable.conf" /etc/mosquitto/conf.d/mjtable.conf
run install -d -m 0750 -o mosquitto -g mosquitto /etc/mosquitto/mjtable
# mosquitto 2 refuses to start (rc 13) without the password and ACL files the config names: create both
# (empty passwd, an ACL that denies everything until users are added) unless they exist.
run "$PREFIX/.venv/bin/python" "$PREFIX/deploy/mosquitto/mjtable-broker-users" --dir /etc/mosquitto/mjtable init
run chown mosquitto:mosquitto /etc/mosquitto/mjtable/passwd /etc/mosquitto/mjtable/acl
run chmod 0640 /etc/mosquitto/mjtable/passwd /etc/mosquitto/mjtable/acl
log "create broker users (README 'Broker users'): sudo $PREFIX/.venv/bin/python \
$PREFIX/deploy/mosquitto/mjtable-broker-users add ROLE USER [TABLE]"

# --- udev and systemd ------------------------------------------------------------------------------------
run install -m 0644 "$SRC/deploy/udev/99-mjtable.rules" /etc/udev/rules.d/99-mjtable.rules
run udevadm control --reload
run udevadm trigger --subsystem-match=tty --subsystem-match=video4linux --subsystem-match=gpio
run install -m 0644 "$SRC/deploy/systemd/mjtable.service" /etc/systemd/system/mjtable.service
run sed -i "s|/opt/mjtable|$PREFIX|g; s|^User=mjtable|User=$MJT_USER|; s|^Group=mjtable|Group=$MJT_USER|" \
  /etc/systemd/system/mjtable.service
run systemctl daemon-reload
if [ "$GPIO_BACKEND" = pigpio ]; then run systemctl enable --now pigpiod; fi
run systemctl enable mosquitto mjtable
if [ "${MJT_SKIP_START:-0}" != 1 ]; then
  run systemctl restart mosquitto
  run systemctl restart mjtable
fi

# --- health check -----------------------------------------------------------------------------------------
log "health check (mjtable doctor):"
if [ "$DRY_RUN" = 1 ]; then
  run "$PREFIX/.venv/bin/mjtable" doctor --config "$ETC/table.toml"
else
  "$PREFIX/.venv/bin/mjtable" doctor --config "$ETC/table.toml" || log "doctor reported problems (see above)"
fi
log "done"
