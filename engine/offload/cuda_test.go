//go:build linux

package offload

import (
	"context"
	"math"
	"testing"

	"saji/engine/model"
	"saji/kernels/cpu"
	"saji/kernels/cuda"
	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
)

// TestLoadCUDAEmulator loads the tiny model through the real CUDA binding
// and GPU backend, over the CUDA emulator (kernels/cuda/emu): every layer,
// then the last two, with the logits of the CPU's to the precision the
// GPU keeps (it multiplies F32 activations where the CPU rounds them to
// 8 bits), and its memory freed on Close.
func TestLoadCUDAEmulator(t *testing.T) {
	lib := emu.Library(t)
	reg := NewRegistry(Platform{Name: "CUDA",
		Open: func() (gpu.Device, error) {
			d, err := cuda.Open(cuda.Options{Library: lib})
			if err != nil {
				return nil, err
			}
			return d, nil
		},
		NewBackend: newGPUBackend})
	defer func() {
		if err := reg.Close(); err != nil {
			t.Error(err)
		}
	}()
	f := openTiny(t)
	ref, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
	if err != nil {
		t.Fatal(err)
	}
	want := logits(t, ref)
	for _, layers := range []int{Auto, 2} {
		l, err := Load(context.Background(), f, Options{Request: Request{GPULayers: layers, Context: 64, Parallel: 1},
			Threads: 2, Registry: reg, Logger: discard}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := l.Placement
		if wantLayers := map[int]int{Auto: 4, 2: 2}[layers]; p.Layers != wantLayers || p.Device != "cuda:0" || p.Note != "" || p.Bytes <= 0 {
			t.Fatalf("GPU layers %d: placement %+v", layers, p)
		}
		t.Logf("GPU layers %d: %s, %d bytes", layers, p, p.Bytes)
		got := logits(t, l.Model)
		scale := 0.0
		for _, v := range want {
			scale = max(scale, math.Abs(float64(v)))
		}
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 0.05*scale || math.IsNaN(float64(got[i])) {
				t.Fatalf("GPU layers %d: logit %d is %v, the CPU's %v", layers, i, got[i], want[i])
			}
		}
		b := l.gpu.(*gpu.Backend)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if n := b.Allocated(); n != 0 {
			t.Errorf("GPU layers %d: %d bytes still allocated after Close", layers, n)
		}
	}
}
