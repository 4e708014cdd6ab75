// Command tinymodel writes Saji's self-contained tiny test model (a 4-layer
// llama, 256 wide, random weights, with the mini vocabulary) to a GGUF file,
// for the window smoke test and the screenshot script, which need a model
// the app can load without any download. With -vision it writes Saji's tiny
// Gemma 3 that can see (tiny-gemma3-vision, Q8_0, random weights) and its
// projector, mmproj-NAME beside it, where the app pairs them.
//
// Usage: go run ./internal/tools/tinymodel OUT.gguf [TYPE]
//
//	go run ./internal/tools/tinymodel -vision OUT.gguf
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"saji/engine/gguf"
	"saji/engine/synth"
)

func main() {
	var err error
	switch {
	case len(os.Args) == 3 && os.Args[1] == "-vision":
		err = writeVision(context.Background(), os.Args[2])
	case len(os.Args) == 2 || len(os.Args) == 3:
		ft := "q8_0"
		if len(os.Args) == 3 {
			ft = os.Args[2]
		}
		err = synth.WriteTiny(context.Background(), os.Args[1], ft, 5)
	default:
		fmt.Fprintln(os.Stderr, "usage: tinymodel OUT.gguf [q8_0|q4_k_m|f16...]\n       tinymodel -vision OUT.gguf")
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tinymodel:", err)
		os.Exit(1)
	}
}

// writeVision writes the tiny Gemma 3 that can see at path and its
// projector beside it.
func writeVision(ctx context.Context, path string) error {
	proj := filepath.Join(filepath.Dir(path), "mmproj-"+filepath.Base(path))
	return synth.WriteVisionPair(ctx, path, proj, "tiny-gemma3-vision", gguf.FileTypeMostlyQ8_0, 1)
}
