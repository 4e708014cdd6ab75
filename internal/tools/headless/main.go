// Command headless is saji without the desktop app: the same subcommands
// (serve, run, bench, pull, ...), built without cgo and without Fyne, so
// that it runs on machines with no display and no OpenGL libraries, such
// as the GPU machine .ci/gpu-check runs on.
//
//	CGO_ENABLED=0 go build -o bin/saji-headless ./internal/tools/headless
package main

import (
	"os"

	"saji/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{}))
}
