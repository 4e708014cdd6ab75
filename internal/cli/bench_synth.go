package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/engine/units"
)

// benchSynthFlags are the settings of 'saji bench synth'.
type benchSynthFlags struct {
	shape, typ, vocab, out string
	seed                   uint64
	threads                int
}

// newBenchSynthCmd is 'saji bench synth': write a random-weight model of a
// known shape for benchmarking.
func newBenchSynthCmd() *cobra.Command {
	sf := benchSynthFlags{typ: "q4_k_m", threads: runtime.NumCPU()}
	cmd := &cobra.Command{
		Use:   "synth --shape SHAPE --type TYPE --vocab VOCAB.gguf -o FILE",
		Short: "Write a random-weight model of a real model's shape, for benchmarks",
		Long: "Write a GGUF model with the architecture and size of a real model, random\n" +
			"weights (normal, std 0.02; norms 1) from --seed, and the vocabulary (all\n" +
			"tokenizer.* keys) of --vocab, quantized with llama-quantize's per-tensor mix for\n" +
			"--type. It loads in Saji and in llama.cpp and runs at the real model's speed,\n" +
			"but its output is gibberish. The model is generated tensor by tensor, so it\n" +
			"need not fit in memory.\n\n" +
			"Shapes: llama-1b (Llama-3.2-1B), qwen2-0.5b, llama-8b (Llama-3.1-8B), tiny.",
		Example: "  saji bench synth --shape llama-1b --type q4_k_m --vocab llama3-bpe-full.gguf -o /tmp/llama-1b-q4_k_m.gguf",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runBenchSynth(ctx, &sf, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&sf.shape, "shape", "", "model shape: llama-1b, qwen2-0.5b, llama-8b or tiny")
	f.StringVar(&sf.typ, "type", sf.typ, "quantization: q4_k_m, q8_0, f16, bf16, f32, q4_0, q6_k, q5_k_m, q3_k_m, q2_k, iq4_nl, ...")
	f.StringVar(&sf.vocab, "vocab", "", "GGUF `FILE` whose vocabulary the model takes")
	f.StringVarP(&sf.out, "output", "o", "", "output `FILE`")
	f.Uint64Var(&sf.seed, "seed", 0, "seed of the random weights")
	f.IntVarP(&sf.threads, "threads", "t", sf.threads, "number of threads")
	return cmd
}

func runBenchSynth(ctx context.Context, sf *benchSynthFlags, stderr io.Writer) error {
	if sf.shape == "" || sf.vocab == "" || sf.out == "" {
		return errors.New("bench synth: --shape, --vocab and -o are required")
	}
	shape, err := synth.LookupShape(sf.shape)
	if err != nil {
		return fmt.Errorf("bench synth: %w", err)
	}
	ft, err := synth.ParseFileType(sf.typ)
	if err != nil {
		return fmt.Errorf("bench synth: %w", err)
	}
	vocab, err := gguf.Open(sf.vocab)
	if err != nil {
		return fmt.Errorf("bench synth: %w", err)
	}
	defer vocab.Close()
	start := time.Now()
	lastPct := -1
	var size int64
	progress := func(done, total int64) {
		size = total
		pct := int(done * 100 / max(total, 1))
		if pct/5 != lastPct/5 || done == total {
			lastPct = pct
			fmt.Fprintf(stderr, "saji bench synth: %3d%%  %s of %s  %.1fs\n", pct,
				units.Bytes(done), units.Bytes(total), time.Since(start).Seconds())
		}
	}
	opts := synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: sf.seed, Threads: sf.threads, Progress: progress}
	fmt.Fprintf(stderr, "saji bench synth: writing %s: %s %s, %d threads\n", sf.out, shape.Name, ft, max(sf.threads, 1))
	if err := synth.Write(ctx, sf.out, opts); err != nil {
		return fmt.Errorf("bench synth: %w", err)
	}
	fmt.Fprintf(stderr, "saji bench synth: wrote %s (%s) in %.1fs\n", sf.out, units.Bytes(size), time.Since(start).Seconds())
	return nil
}
