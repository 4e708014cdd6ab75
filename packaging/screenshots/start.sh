# Sourced by the screenshot scripts (make.sh, tray.sh, menu-entry.sh) with
# their arguments: moves to the repository's root and sets root, out (this
# folder) and bin, the binary the script was given or bin/saji, built
# first.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
out=$root/packaging/screenshots
bin=${1:-}
if [[ -z $bin ]]; then
	go build -o bin/saji .
	bin=bin/saji
fi
bin=$(realpath "$bin")
