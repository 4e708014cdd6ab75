package vision

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"saji/engine/synth"
	"saji/kernels/cuda"
	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
)

// This file runs the projectors on the CUDA backend, on the emulator of
// kernels.cu and on the machine's GPU where it has one: every encoder's
// operations (products with F16 weights, norms, the ropes, attention over
// an F16 cache, the gated and plain activations) on the GPU kernels, for
// the language model's device to encode its pictures.

// gpuVisionCases are the references run on the GPU: one or two for each
// projector type.
var gpuVisionCases = []string{
	"tiny-gemma3-vision-f32-90x50", "tiny-llava-vision-f32-90x50", "tiny-smolvlm-vision-f32-40x100",
	"tiny-mistral3-vision-f32-90x50", "tiny-qwen25vl-f32-90x50", "tiny-qwen2vl-f32-90x50", "tiny-qwen3vl-f32-90x50",
}

// gpuVisionTolerance bounds the embeddings' difference from llama.cpp's
// and the CPU's on the GPU, relative to their largest magnitude: the
// products round their activations to F16 for F16 weights, as the CPU
// does, but sum in another order, so an activation now and then rounds
// the other way. The emulator measured up to 6.4e-4.
const gpuVisionTolerance = 2e-3

// TestEncodeOnCUDA encodes each case's picture on the CUDA backend and
// compares the embeddings with libmtmd's and with the CPU backend's.
func TestEncodeOnCUDA(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("the emulated GPU runs the kernels one thread at a time")
	}
	refs := references(t)
	open := func(path string) (gpu.Device, error) { return cuda.Open(cuda.Options{Library: path}) }
	var table []string
	emu.Backends(t, open, func(t *testing.T, tg emu.Target) {
		for _, name := range gpuVisionCases {
			r, ok := refs[name+".json"]
			if !ok {
				t.Fatalf("no reference %s", name)
			}
			t.Run(name, func(t *testing.T) {
				f := writeProjector(t, r)
				pic := synth.Picture(r.Case.W, r.Case.H)
				p, err := Load(context.Background(), f, Options{Backend: tg.Backend})
				if err != nil {
					t.Fatal(err)
				}
				got, err := p.Encode(context.Background(), pic)
				if err != nil {
					t.Fatal(err)
				}
				c, err := Load(context.Background(), f, Options{Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				want, err := c.Encode(context.Background(), pic)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(r.Embd) || len(want) != len(r.Embd) {
					t.Fatalf("%d values on the GPU, %d on the CPU, llama.cpp's %d", len(got), len(want), len(r.Embd))
				}
				dRef, dCPU := relDiff(got, r.Embd), relDiff(got, want)
				table = append(table, fmt.Sprintf("%-9s %-32s %9.2e %9.2e", tg.Name, name, dCPU, dRef))
				if dRef > gpuVisionTolerance || dCPU > gpuVisionTolerance {
					t.Errorf("embeddings differ from the CPU's by %.2e and from llama.cpp's by %.2e (tolerance %.0e)", dCPU, dRef, gpuVisionTolerance)
				}
			})
		}
	})
	slices.Sort(table)
	t.Logf("relative difference of the embeddings on the GPU:\n%-9s %-32s %9s %9s\n%s", "device", "case", "vs CPU", "vs ref", strings.Join(table, "\n"))
}
