#!/usr/bin/env bash
# Takes screenshots of Saji's main views in the real window under Xvfb,
# driven with xdotool, into packaging/screenshots/:
#
#   welcome.png   first run: an empty library, the machine's memory, the
#                 recommended download and the drop hint
#   chat.png      a conversation: a message sent, the reply streamed, its
#                 figures (tokens, tokens/s, time to first token)
#   library.png   the library with the model
#   discover.png  Discover, searching a local fake hub (internal/tools/fakehub)
#                 so no network is needed
#   server.png    the server panel with the API running and its live figures
#   settings.png  the settings
#   loadtest-report.png  saji loadtest --compare's HTML report of two in-process
#                 runs of the model (1 and 4 requests at once), in headless
#                 Chromium (skipped where Chromium is not installed)
#
# The model is ../shared/testdata/models/stories260K.gguf (a tiny model
# trained on children's stories, so the reply is English), or Saji's own
# random-weight tiny model where the testdata is absent.
#
# Usage: packaging/screenshots/make.sh [BINARY]   (default: bin/saji, built first)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=$root/packaging/screenshots
bin=${1:-}
if [[ -z $bin ]]; then
	go build -o bin/saji .
	bin=bin/saji
fi
bin=$(realpath "$bin")
testdata=${SAJI_TESTDATA:-$root/../shared/testdata}
model=$testdata/models/stories260K.gguf
if [[ ! -f $model ]]; then
	go run ./internal/tools/tinymodel bin/tiny-chat.gguf
	model=$root/bin/tiny-chat.gguf
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

# 1. First run, nothing in the library.
xapp_start "$bin" -v
xapp_window
sleep 3
xapp_shot "$out/welcome.png"
xapp_stop
rm -rf "$XAPP_WORK/config" "$XAPP_WORK/data"

# 2. With the model: send a message, then visit each view. The API starts
# at launch (on a free port) so the server panel shows live figures.
mkdir -p "$XAPP_WORK/config/fyne/io.saji.Saji"
echo '{"start_server": true, "api_port": 0}' >"$XAPP_WORK/config/fyne/io.saji.Saji/preferences.json"
xapp_start "$bin" -v --model "$model"
xapp_window
xapp_wait_log "runner: loaded" 60
sleep 2
xapp_type "Tell me a story about a cat who wanted to fly."
xapp_key Return
xapp_wait_log "app: reply finished" 120
sleep 1
xapp_shot "$out/chat.png"
xapp_key ctrl+2
sleep 1
xapp_shot "$out/library.png"
xapp_key ctrl+3
sleep 3
xapp_click 250 215 # the first result: its quant table
sleep 3
xapp_shot "$out/discover.png"
xapp_key ctrl+4
sleep 2
xapp_shot "$out/server.png"
xapp_key ctrl+5
sleep 1
xapp_shot "$out/settings.png"
xapp_stop
for f in welcome chat library discover server settings; do
	echo "screenshots: $out/$f.png $(identify -format '%wx%h, %k colours' "$out/$f.png")"
done

# 3. The load-test report: two runs compared, drawn by headless Chromium.
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -n $browser ]]; then
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
