// Command tinymodel writes Saji's self-contained tiny test model (a 4-layer
// llama, 256 wide, random weights, with the mini vocabulary) to a GGUF file,
// for the window smoke test and the screenshot script, which need a model
// the app can load without any download.
//
// Usage: go run ./internal/tools/tinymodel OUT.gguf [TYPE]
package main

import (
	"context"
	"fmt"
	"os"

	"saji/engine/synth"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: tinymodel OUT.gguf [q8_0|q4_k_m|f16...]")
		os.Exit(2)
	}
	ft := "q8_0"
	if len(os.Args) == 3 {
		ft = os.Args[2]
	}
	if err := synth.WriteTiny(context.Background(), os.Args[1], ft, 5); err != nil {
		fmt.Fprintln(os.Stderr, "tinymodel:", err)
		os.Exit(1)
	}
}
