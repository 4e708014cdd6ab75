// Command synthmodel writes a synthetic model for benchmarks: a GGUF file
// with the architecture and size of a real model, random weights (normal,
// std 0.02; norms 1) from -seed and the vocabulary (all tokenizer.* keys)
// of -vocab, quantized with llama-quantize's per-tensor mix for -type. It
// loads in Saji and in llama.cpp and runs at the real model's speed, but
// its output is gibberish. The model is generated tensor by tensor, so it
// need not fit in memory. `saji bench -m FILE` then measures it; .ci/fit-check
// and .ci/gpu-check write their models with it.
//
// Shapes: llama-1b (Llama-3.2-1B), qwen2-0.5b, llama-8b (Llama-3.1-8B),
// qwen3-30b-a3b (Qwen3-30B-A3B, a mixture of experts), gpt-oss-20b, tiny,
// and the tiny conformance shapes of every architecture (-h lists them).
// With -repeat each tensor's first rows are repeated over the rest: a
// speed-test file of a large model written in minutes. A vision shape
// (tiny-gemma3-vision, tiny-mistral3-vision, ...: -h lists them) writes
// its projector too with -mmproj-out.
//
// Usage: go run ./internal/tools/synthmodel -shape SHAPE [-type TYPE] -vocab VOCAB.gguf -o FILE [-seed N] [-t THREADS] [-repeat] [-mmproj-out FILE]
//
//	go run ./internal/tools/synthmodel -shape llama-1b -type q4_k_m -vocab llama3-bpe-full.gguf -o /tmp/llama-1b-q4_k_m.gguf
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/engine/units"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, err)
		}
		os.Exit(2)
	}
}

// run parses the command line args and writes the model, reporting its
// progress to stderr.
func run(ctx context.Context, args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("synthmodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	shapeName := fs.String("shape", "", "model shape: "+strings.Join(synth.ShapeNames(), ", "))
	typ := fs.String("type", "q4_k_m", "quantization: q4_k_m, q8_0, f16, bf16, f32, q4_0, q6_k, q5_k_m, q3_k_m, q2_k, iq4_nl, ...")
	vocabPath := fs.String("vocab", "", "GGUF `FILE` whose vocabulary the model takes")
	out := fs.String("o", "", "output `FILE`")
	seed := fs.Uint64("seed", 0, "seed of the random weights")
	threads := fs.Int("t", 0, "number of threads (0: one per physical core)")
	repeat := fs.Bool("repeat", false, "quantize each tensor's first rows only and repeat them: a speed-test file written in minutes")
	layers := fs.Int("layers", 0, "keep the shape's first `N` blocks (0: all), with the whole model's weights: with -block-scale, a cheap speculative draft of it")
	blockScale := fs.Float64("block-scale", 0, "scale the blocks' random weights by `S` (0: 1): below 1 the model is nearly a bigram model, and a copy at another type agrees with it as a speculative draft (0.05 or so)")
	mmproj := fs.String("mmproj-out", "", "also write the shape's vision projector (an mmproj GGUF, seeded by -seed) to `FILE` (vision shapes: "+strings.Join(synth.VisionShapeNames(), ", ")+")")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *shapeName == "" || *vocabPath == "" || *out == "" || fs.NArg() > 0 {
		return errors.New("synthmodel: -shape, -vocab and -o are required, and nothing else")
	}
	shape, err := synth.LookupShape(*shapeName)
	if err != nil {
		return fmt.Errorf("synthmodel: %w", err)
	}
	vshape, vision := synth.LookupVisionShape(shape.Name)
	if *mmproj != "" && !vision {
		return fmt.Errorf("synthmodel: shape %s has no vision projector", shape.Name)
	}
	ft, err := synth.ParseFileType(*typ)
	if err != nil {
		return fmt.Errorf("synthmodel: %w", err)
	}
	vocab, err := gguf.Open(*vocabPath)
	if err != nil {
		return fmt.Errorf("synthmodel: %w", err)
	}
	defer vocab.Close()
	start := time.Now()
	lastPct := -1
	progress := func(done, total int64) {
		pct := int(done * 100 / max(total, 1))
		if pct/5 != lastPct/5 || done == total {
			lastPct = pct
			fmt.Fprintf(stderr, "synthmodel: %3d%%  %s of %s  %.1fs\n", pct, units.Bytes(done), units.Bytes(total), time.Since(start).Seconds())
		}
	}
	opts := synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: *seed, Threads: *threads, Progress: progress, Repeat: *repeat, BlockScale: *blockScale, Layers: *layers}
	fmt.Fprintf(stderr, "synthmodel: writing %s: %s %s\n", *out, shape.Name, ft)
	if err := synth.Write(ctx, *out, opts); err != nil {
		return fmt.Errorf("synthmodel: %w", err)
	}
	fmt.Fprintf(stderr, "synthmodel: wrote %s in %.1fs\n", *out, time.Since(start).Seconds())
	if *mmproj != "" {
		if err := synth.WriteProjector(ctx, *mmproj, vshape, *seed); err != nil {
			return fmt.Errorf("synthmodel: %w", err)
		}
		fmt.Fprintf(stderr, "synthmodel: wrote the projector %s\n", *mmproj)
	}
	return nil
}
