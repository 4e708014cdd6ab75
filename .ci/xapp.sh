# Shell functions for driving the real Saji window under Xvfb, sourced by
# .ci/smoke-window and packaging/screenshots/make.sh.
#
# xapp_start_x               start Xvfb on a free display (sets DISPLAY, XAPP_WORK)
# xapp_start BIN ARGS...     start Saji with a fresh HOME/XDG dirs under XAPP_WORK,
#                            logging to $XAPP_WORK/app.log (sets XAPP_PID)
# xapp_window                wait for the window titled Saji (sets XAPP_WIN)
# xapp_wait_log TEXT SECS    wait until the app's log contains TEXT
# xapp_shot FILE             screenshot the window
# xapp_stop                  stop the app
# The EXIT trap stops the app and Xvfb and removes XAPP_WORK.

XAPP_PID=
XAPP_WIN=
XAPP_XVFB=
XAPP_WORK=$(mktemp -d)

xapp_cleanup() {
	[[ -n $XAPP_PID ]] && kill "$XAPP_PID" 2>/dev/null || true
	[[ -n $XAPP_XVFB ]] && kill "$XAPP_XVFB" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$XAPP_WORK"
}
trap xapp_cleanup EXIT

xapp_fail() {
	echo "xapp: FAIL: $*"
	[[ -f $XAPP_WORK/app.log ]] && { echo "--- app log"; tail -n 60 "$XAPP_WORK/app.log"; }
	exit 1
}

xapp_start_x() {
	export DISPLAY=":$((90 + RANDOM % 400))" LIBGL_ALWAYS_SOFTWARE=1
	Xvfb "$DISPLAY" -screen 0 1280x800x24 +extension GLX -nolisten tcp >"$XAPP_WORK/xvfb.log" 2>&1 &
	XAPP_XVFB=$!
	for _ in $(seq 50); do xdpyinfo >/dev/null 2>&1 && return 0; sleep 0.2; done
	cat "$XAPP_WORK/xvfb.log"
	xapp_fail "Xvfb did not start"
}

xapp_start() {
	local bin=$1
	shift
	mkdir -p "$XAPP_WORK/home" "$XAPP_WORK/config" "$XAPP_WORK/data"
	mkdir -p -m 700 "$XAPP_WORK/run"
	# A fresh HOME keeps the run from reading or writing the user's settings,
	# and a runtime folder of its own from handing its files to another
	# Saji running as this user (the app is single-instance).
	HOME=$XAPP_WORK/home XDG_CONFIG_HOME=$XAPP_WORK/config XDG_DATA_HOME=$XAPP_WORK/data XDG_RUNTIME_DIR=$XAPP_WORK/run \
		"$bin" "$@" >"$XAPP_WORK/app.log" 2>&1 &
	XAPP_PID=$!
}

xapp_window() {
	XAPP_WIN=
	for _ in $(seq 120); do
		kill -0 "$XAPP_PID" 2>/dev/null || xapp_fail "saji exited before its window appeared"
		XAPP_WIN=$(xwininfo -root -tree 2>/dev/null | awk '/"Saji"/ {print $1; exit}')
		[[ -n $XAPP_WIN ]] && return 0
		sleep 0.5
	done
	xapp_fail "no window titled Saji after 60 s"
}

xapp_wait_log() {
	local text=$1 secs=${2:-60}
	for _ in $(seq $((secs * 4))); do
		grep -qF -- "$text" "$XAPP_WORK/app.log" 2>/dev/null && return 0
		kill -0 "$XAPP_PID" 2>/dev/null || xapp_fail "saji exited while waiting for '$text'"
		sleep 0.25
	done
	xapp_fail "the log did not say '$text' within $secs s"
}

# xapp_key KEYS... sends key presses to the window (xdotool names: Return,
# ctrl+2, ...); xapp_type TEXT types text into the focused widget.
xapp_key() { xdotool windowfocus --sync "$XAPP_WIN" key --clearmodifiers "$@"; }
xapp_type() { xdotool windowfocus --sync "$XAPP_WIN" type --delay 30 -- "$1"; }

# xapp_click X Y clicks at a point of the window.
xapp_click() { xdotool mousemove --window "$XAPP_WIN" --sync "$1" "$2" click 1; }

xapp_shot() { import -window "$XAPP_WIN" "$1"; }

xapp_stop() {
	[[ -n $XAPP_PID ]] && kill "$XAPP_PID" 2>/dev/null || true
	wait "$XAPP_PID" 2>/dev/null || true
	XAPP_PID=
}
