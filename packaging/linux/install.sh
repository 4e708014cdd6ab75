#!/bin/sh
# Installs Saji from this unpacked saji-linux-amd64.tar.xz for one user, in
# ~/.local: the program in bin, its menu entry (which opens .gguf files),
# icon and MIME type under share. --uninstall removes the same files. The
# models and settings (~/.local/share/saji, ~/.config/saji) stay either way.
#
# Usage: ./install.sh [--uninstall]; PREFIX=/usr/local (as root) installs
# for every user instead.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
prefix=${PREFIX:-$HOME/.local}

# refresh rebuilds the desktop's caches of menu entries, MIME types and
# icons, where the tools that do it are installed.
refresh() {
	if command -v update-desktop-database >/dev/null; then update-desktop-database -q "$prefix/share/applications" || true; fi
	if command -v update-mime-database >/dev/null; then update-mime-database "$prefix/share/mime" || true; fi
	if [ -f "$prefix/share/icons/hicolor/index.theme" ] && command -v gtk-update-icon-cache >/dev/null; then
		gtk-update-icon-cache -q -t "$prefix/share/icons/hicolor" || true
	else
		touch "$prefix/share/icons/hicolor" 2>/dev/null || true
	fi
}

files=$(cd "$here" && find share -type f | sort)
case ${1:-} in
--uninstall)
	rm -f "$prefix/bin/saji"
	for f in $files; do rm -f "$prefix/$f"; done
	refresh
	echo "Saji removed from $prefix"
	;;
'')
	install -Dm755 "$here/bin/saji" "$prefix/bin/saji"
	for f in $files; do install -Dm644 "$here/$f" "$prefix/$f"; done
	# The menu runs the program by its full path: ~/.local/bin is not on
	# every desktop session's PATH.
	sed -i "s|^Exec=saji |Exec=\"$prefix/bin/saji\" |" "$prefix/share/applications/io.saji.Saji.desktop"
	refresh
	echo "Saji installed in $prefix (run $prefix/bin/saji, or Saji in the menu)"
	;;
*)
	echo "usage: $0 [--uninstall]" >&2
	exit 2
	;;
esac
