#!/usr/bin/env bash
# Takes screenshots of Saji's views in the real window under Xvfb, driven
# with xdotool, into packaging/screenshots/, each in the dark and the light
# theme (VIEW-dark.png, VIEW-light.png) at 1280x800:
#
#   welcome    first run: an empty library, what this computer runs (the
#              planner's verdicts with their speeds), the recommended
#              download and the drop hint
#   wizard     "What can this computer run?" over the first-run page
#   chat       a conversation: a message sent, the reply streamed, its
#              figures (tokens, tokens/s, time to first token)
#   chat-picture  a picture opened with Saji's tiny Gemma 3 that can see
#              (random weights, its projector beside it; as Open with Saji
#              passes it), sent with a question: its thumbnail in the
#              message, and the reply streamed
#   library    the library with the model
#   discover   Discover, searching a local fake hub (internal/tools/fakehub)
#              so no network is needed, with a repository's levels open
#   server     the server panel with the API running and its live figures
#   settings   the settings
#
# and, at the smaller sizes people try, chat-THEME-800x600.png and
# discover-THEME-1100x720.png; and loadtest-report.png, saji loadtest
# --compare's HTML report of two in-process runs of the model (1 and 4
# requests at once), in headless Chromium (skipped where Chromium is not
# installed).
#
# The model is ../shared/testdata/models/stories260K.gguf (a tiny model
# trained on children's stories, so the reply is English), or Saji's own
# random-weight tiny model where the testdata is absent.
#
# SAJI_SHOTS, a space-separated list of welcome, chat, chat-picture and
# loadtest-report, takes only those views (welcome: with the wizard; chat:
# with the library, Discover, the server panel and the settings).
#
# Usage: packaging/screenshots/make.sh [BINARY]   (default: bin/saji, built first)
set -euo pipefail
source "$(dirname "$0")/start.sh"
testdata=${SAJI_TESTDATA:-$root/../shared/testdata}
model=$testdata/models/stories260K.gguf
if [[ ! -f $model ]]; then
	go run ./internal/tools/tinymodel bin/tiny-chat.gguf
	model=$root/bin/tiny-chat.gguf
fi
# want NAME reports whether SAJI_SHOTS asks for the views of NAME.
want() { [[ -z ${SAJI_SHOTS:-} || " $SAJI_SHOTS " == *" $1 "* ]]; }

# The model of chat-picture: Saji's tiny Gemma 3 that can see, its
# projector (mmproj-tiny-vision.gguf) beside it, where the app finds it.
vision=$root/bin/vision/tiny-vision.gguf
if want chat-picture; then
	mkdir -p "$(dirname "$vision")"
	go run ./internal/tools/tinymodel -vision "$vision"
fi
source "$root/.ci/xapp.sh"
xapp_start_x

# A fake Hugging Face hub for the Discover view.
go build -o bin/fakehub ./internal/tools/fakehub
hubport=$((20000 + RANDOM % 20000))
bin/fakehub -addr "127.0.0.1:$hubport" >"$XAPP_WORK/fakehub.log" 2>&1 &
hubpid=$!
trap 'kill $hubpid 2>/dev/null || true; xapp_cleanup' EXIT
export HF_ENDPOINT=http://127.0.0.1:$hubport
for _ in $(seq 100); do grep -q "fake hub on" "$XAPP_WORK/fakehub.log" && break; sleep 0.1; done

prefs=$XAPP_WORK/config/fyne/io.saji.Saji/preferences.json

# The picture of chat-picture: a red sun over a blue-to-yellow sky.
picture=$XAPP_WORK/picture.png
convert -size 480x320 gradient:'#3b6fb6'-'#f3d36b' -fill '#e2543e' -draw 'circle 240,170 240,100' "$picture"

# chat_picture sends the picture with a question and shoots the chat.
chat_picture() {
	rm -rf "$XAPP_WORK/config" "$XAPP_WORK/data"
	mkdir -p "$(dirname "$prefs")"
	echo "{\"theme\": \"$theme\"}" >"$prefs"
	xapp_start "$bin" -v --model "$vision" "$picture"
	xapp_window
	xapp_wait_log "runner: loaded" 60
	xapp_wait_log "hardware: memory bandwidth" 30
	sleep 2
	size 1280 800
	xapp_type "What is in this picture?"
	xapp_key Return
	xapp_wait_log "app: reply finished" 120
	sleep 1
	shot chat-picture
	xapp_stop
}

# size W H resizes the window (once it has settled: a resize as it first
# maps is undone) and waits for it to redraw, asking again until the size
# holds (a loaded machine can be slow to take it), for up to 20 s.
size() {
	for _ in $(seq 10); do
		xdotool windowsize "$XAPP_WIN" "$1" "$2"
		sleep 2
		xdotool getwindowgeometry "$XAPP_WIN" | grep -q "Geometry: $1x$2" && return 0
	done
	xapp_fail "the window did not take $1x$2"
}

# shot NAME [SUFFIX] screenshots the window as NAME-THEME[SUFFIX].png.
shot() { xapp_shot "$out/$1-$theme${2:-}.png"; }

for theme in dark light; do
	if want welcome; then
		# 1. First run, nothing in the library; then the wizard over it
		# (Help > What can this computer run?).
		rm -rf "$XAPP_WORK/config" "$XAPP_WORK/data"
		mkdir -p "$(dirname "$prefs")"
		echo "{\"theme\": \"$theme\"}" >"$prefs"
		xapp_start "$bin" -v
		xapp_window
		sleep 2
		size 1280 800
		xapp_wait_log "hardware: memory bandwidth" 30
		sleep 2
		shot welcome
		xapp_click 124 14
		sleep 1
		xapp_click 204 84
		sleep 4
		shot wizard
		xapp_stop
	fi

	if want chat; then
		# 2. With the model: send a message, then visit each view. The API
		# starts at launch (on a free port) so the server panel shows live
		# figures.
		rm -rf "$XAPP_WORK/config" "$XAPP_WORK/data"
		mkdir -p "$(dirname "$prefs")"
		echo "{\"start_server\": true, \"api_port\": 0, \"theme\": \"$theme\"}" >"$prefs"
		xapp_start "$bin" -v --model "$model"
		xapp_window
		xapp_wait_log "runner: loaded" 60
		sleep 2
		size 1280 800
		xapp_type "Tell me a story about a cat who wanted to fly."
		xapp_key Return
		xapp_wait_log "app: reply finished" 120
		sleep 1
		shot chat
		size 800 600
		shot chat -800x600
		size 1280 800
		xapp_key ctrl+2
		sleep 1
		shot library
		xapp_key ctrl+3
		sleep 3
		xapp_click 250 215 # the first result: its quant table
		sleep 3
		shot discover
		size 1100 720
		shot discover -1100x720
		size 1280 800
		xapp_key ctrl+4
		sleep 2
		shot server
		xapp_key ctrl+5
		sleep 1
		shot settings
		xapp_stop
	fi

	# 3. A picture in the chat.
	if want chat-picture; then
		chat_picture
	fi
done
# Last, the load-test report: two runs compared, drawn by headless Chromium.
browser=$(command -v chromium || command -v chromium-browser || true)
if ! want loadtest-report; then
	:
elif [[ -n $browser ]]; then
	rw=$XAPP_WORK/report
	mkdir -p "$rw"
	for c in 1 4; do
		"$bin" loadtest --model "$model" --requests 48 --concurrency $c --prompt-len 64 --output-len 64 \
			--threads 2 --json >"$rw/c$c.json" 2>"$rw/c$c.log"
	done
	"$bin" loadtest --compare "$rw/c1.json" "$rw/c4.json" --report "$rw/report.html" >/dev/null
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$rw/profile" \
		--window-size=1200,2700 --screenshot="$out/loadtest-report.png" "file://$rw/report.html" 2>/dev/null
	echo "screenshots: $out/loadtest-report.png $(identify -format '%wx%h, %k colours' "$out/loadtest-report.png")"
else
	echo "screenshots: no Chromium (apt-get install chromium): loadtest-report.png not taken"
fi

for f in "$out"/*.png; do
	echo "screenshots: $f $(identify -format '%wx%h, %k colours' "$f")"
done
