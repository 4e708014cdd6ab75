#!/usr/bin/env bash
# Takes a screenshot of Saji's tray menu under Xvfb into
# packaging/screenshots/tray.png: the app runs with the API on and a model
# loaded, in a standalone StatusNotifierItem tray (Debian's
# haskell-gtk-sni-tray-utils, with the watcher of
# haskell-status-notifier-item-utils, on a session bus from dbus-x11). The
# toolkit's tray speaks StatusNotifierItem only, so the XEmbed trays
# (stalonetray, trayer) do not show it.
#
# Usage: packaging/screenshots/tray.sh [BINARY]   (default: bin/saji, built first)
set -euo pipefail
source "$(dirname "$0")/start.sh"
for cmd in gtk-sni-tray-standalone status-notifier-watcher dbus-launch; do
	command -v "$cmd" >/dev/null || { echo "tray.sh: $cmd is missing (apt-get install haskell-gtk-sni-tray-utils haskell-status-notifier-item-utils dbus-x11)"; exit 1; }
done
model=${SAJI_TESTDATA:-$root/../shared/testdata}/models/stories260K.gguf
if [[ ! -f $model ]]; then
	go run ./internal/tools/tinymodel bin/tiny-chat.gguf
	model=$root/bin/tiny-chat.gguf
fi
source "$root/.ci/xapp.sh"
xapp_start_x
eval "$(dbus-launch --sh-syntax)"
status-notifier-watcher >"$XAPP_WORK/watcher.log" 2>&1 &
watcher=$!
sleep 1
gtk-sni-tray-standalone --top --end --size 32 >"$XAPP_WORK/tray.log" 2>&1 &
tray=$!
trap 'kill $tray $watcher $DBUS_SESSION_BUS_PID 2>/dev/null || true; xapp_cleanup' EXIT

mkdir -p "$XAPP_WORK/config/fyne/io.saji.Saji"
echo '{"start_server": true, "api_port": 0}' >"$XAPP_WORK/config/fyne/io.saji.Saji/preferences.json"
xapp_start "$bin" -v --model "$model"
xapp_window
xapp_wait_log "runner: loaded" 60
xapp_wait_log "app: API started" 60
sleep 3 # the tray menu follows the engine every second
# The tray bar, across the top (the tray's other window is a 10x10 one):
# right-click the icon at its right end for the menu (a left click opens
# the window).
WIDTH=0
for w in $(xdotool search --class gtk-sni-tray-standalone); do
	eval "$(xdotool getwindowgeometry --shell "$w")"
	((WIDTH > 100)) && break
done
((WIDTH > 100)) || xapp_fail "no tray bar window"
xdotool mousemove $((X + WIDTH - 16)) $((Y + HEIGHT / 2)) click 3
sleep 2
import -window root -crop 700x300+580+0 "$out/tray.png"
echo "tray.sh: wrote $out/tray.png"
