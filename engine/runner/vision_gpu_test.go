//go:build linux

package runner

import (
	"context"
	"slices"
	"strings"
	"testing"

	"saji/engine/imagefile"
	"saji/engine/offload"
	"saji/engine/scheduler"
	"saji/kernels/cuda"
	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
)

// TestVisionOnGPU loads vision models on the CUDA emulator's device (the
// real CUDA binding and GPU backend over kernels.cu built for the host):
// the language model's layers and the projector's encoder both go to the
// GPU, and a prompt with a picture gives llama.cpp's greedy tokens.
func TestVisionOnGPU(t *testing.T) {
	if testing.Short() {
		t.Skip("the emulated GPU runs the kernels one thread at a time")
	}
	lib := emu.Library(t)
	reg := offload.NewRegistry(offload.Platform{Name: "CUDA",
		Open: func() (gpu.Device, error) { return cuda.Open(cuda.Options{Library: lib}) },
		NewBackend: func(d gpu.Device) (offload.Backend, error) {
			b, err := gpu.New(d)
			if err != nil {
				return nil, err
			}
			return b, nil
		}})
	defer reg.Close()
	for _, name := range []string{"tiny-gemma3-vision-f32-64x64", "tiny-qwen3vl-f32-90x50"} {
		t.Run(name, func(t *testing.T) {
			r, path, img := visionModel(t, name)
			m, err := Load(context.Background(), path, LoadOptions{Threads: 2, GPU: reg, GPULayers: offload.Auto,
				Scheduler: scheduler.Config{Context: 512, MaxSeqs: 1}})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			if m.Info.Offload.Layers == 0 || !m.proj.onGPU {
				t.Fatalf("placement %v, projector on the GPU %v", m.Info.Offload, m.proj.onGPU)
			}
			prompt := strings.Replace(r.Case.Prompt, "<__media__>", m.proj.marker(), 1)
			req := Request{Prompt: prompt, Images: []imagefile.Image{img}, MaxTokens: len(r.Greedy), IgnoreEOS: true}
			var got []int32
			if _, err := m.Generate(context.Background(), req, func(p Piece) error {
				for _, tk := range p.Tokens {
					got = append(got, tk.ID)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, r.Greedy) {
				t.Errorf("greedy tokens %v, llama.cpp's %v", got, r.Greedy)
			}
			if !m.proj.onGPU || m.proj.p.Runs() != 1 {
				t.Errorf("the projector moved to the CPU (%v) or ran %d times", !m.proj.onGPU, m.proj.p.Runs())
			}
		})
	}
}
