#!/usr/bin/env bash
# Takes a screenshot of Saji's installed menu entry into
# packaging/screenshots/menu-entry.png: the Linux tarball's files are
# installed with its install.sh into a scratch home, and rofi's application launcher (rofi -show drun), which reads
# the .desktop files and hicolor icons under XDG_DATA_DIRS as a desktop's
# menu does, is searched for "saji" under Xvfb. The scratch home holds the
# only entries besides the system's, so Saji's name, generic name and
# icon are what the picture shows. Not run in CI (Debian's rofi).
#
# Usage: packaging/screenshots/menu-entry.sh [BINARY]   (default: bin/saji, built first)
set -euo pipefail
source "$(dirname "$0")/start.sh"
for cmd in rofi Xvfb xdotool import; do
	command -v "$cmd" >/dev/null || { echo "menu-entry.sh: $cmd is missing (apt-get install rofi xvfb xdotool imagemagick)"; exit 1; }
done
source "$root/.ci/xapp.sh"
xapp_start_x

# The tarball's contents (laid out by .ci/stage-linux with install.sh, as
# .ci/package-linux packs them), installed for a scratch user.
.ci/stage-linux "$bin" "$XAPP_WORK/unpacked/saji"
install -m755 packaging/linux/install.sh "$XAPP_WORK/unpacked/saji/install.sh"
mkdir -p "$XAPP_WORK/home"
export HOME=$XAPP_WORK/home XDG_DATA_HOME=$XAPP_WORK/home/.local/share XDG_CONFIG_HOME=$XAPP_WORK/home/.config \
	XDG_CACHE_HOME=$XAPP_WORK/home/.cache XDG_DATA_DIRS=$XAPP_WORK/home/.local/share:/usr/share
"$XAPP_WORK/unpacked/saji/install.sh"
grep -q '^Exec=.*/home/.local/bin/saji' "$XDG_DATA_HOME/applications/io.saji.Saji.desktop" ||
	xapp_fail "the installed menu entry does not run the installed saji"

# The launcher, searching for the entry, its icon from the installed
# hicolor set; a plain dark theme of rofi's, in the window's font size.
rofi -show drun -filter saji -show-icons -icon-theme hicolor -drun-display-format '{name} — {generic}' \
	-theme-str 'window { width: 560px; } listview { lines: 4; } element-icon { size: 48px; } * { font: "Noto Sans 13"; }' \
	>"$XAPP_WORK/rofi.log" 2>&1 &
launcher=$!
trap 'kill $launcher 2>/dev/null || true; xapp_cleanup' EXIT
win=
for _ in $(seq 50); do
	win=$(xdotool search --class rofi 2>/dev/null | head -n 1) && [[ -n $win ]] && break
	sleep 0.2
done
[[ -n $win ]] || { cat "$XAPP_WORK/rofi.log"; xapp_fail "rofi showed no window"; }
sleep 2
import -window "$win" "$out/menu-entry.png"
echo "menu-entry.sh: wrote $out/menu-entry.png $(identify -format '%wx%h' "$out/menu-entry.png")"
