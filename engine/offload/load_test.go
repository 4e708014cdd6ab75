package offload

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/synth/synthtest"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

func TestMain(m *testing.M) { synthtest.Main(m) }

// tinyPath is the tiny llama (mini vocabulary, no chat template: ChatML)
// the tests share.
func tinyPath() (string, error) { return synthtest.Tiny("q8_0", 5) }

// openTiny opens the tiny model for the test.
func openTiny(t *testing.T) *gguf.File {
	t.Helper()
	p, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// logits runs four tokens through m and returns the last one's logits.
func logits(t *testing.T, m model.Model) []float32 {
	t.Helper()
	c, err := m.NewCache(16, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	out, err := m.Forward(context.Background(), []int32{1, 5, 9, 3}, []int32{0, 1, 2, 3}, c, false)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// layerTensors counts the tensors of f in the last n of layers blocks
// (all of f's tensors for n >= layers).
func layerTensors(f *gguf.File, n, layers int) int {
	count := 0
	for _, ti := range f.Tensors() {
		if n >= layers {
			count++
			continue
		}
		for i := layers - n; i < layers; i++ {
			if strings.HasPrefix(ti.Name, fmt.Sprintf("blk.%d.", i)) {
				count++
			}
		}
	}
	return count
}

// discard is a logger that drops everything.
var discard = slog.New(slog.NewTextHandler(&bytes.Buffer{}, &slog.HandlerOptions{Level: slog.LevelError}))

func TestLoad(t *testing.T) {
	f := openTiny(t)
	ref, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(1)})
	if err != nil {
		t.Fatal(err)
	}
	want := logits(t, ref)
	allocCache := func(m model.Model) error {
		_, err := m.NewCache(64, quant.TypeF16)
		return err
	}
	plenty := func() *fakeGPU { return &fakeGPU{dev: &fakeDevice{free: 64 * gb, total: 80 * gb}} }

	tests := []struct {
		name      string
		gpu       func() *fakeGPU
		layers    int
		setup     func(model.Model) error
		onGPU     int    // layers on the GPU
		noteHas   string // in Placement.Note ("" for no note)
		weights   int    // weights given to the fake backend (-1: don't check)
		opens     int    // times the platform opened the device
		backends  int    // backends made
		closedGPU bool   // the backend was closed (fallback)
	}{
		{name: "off", gpu: plenty, layers: 0, opens: 0},
		{name: "auto, all fit", gpu: plenty, layers: Auto, onGPU: 4, weights: -1, opens: 1, backends: 1},
		{name: "two layers", gpu: plenty, layers: 2, onGPU: 2, weights: -1, opens: 1, backends: 1},
		{name: "more than the layers", gpu: plenty, layers: 99, onGPU: 4, weights: -1, opens: 1, backends: 1},
		{name: "two layers with a cache", gpu: plenty, layers: 2, setup: allocCache, onGPU: 2, weights: -1, opens: 1, backends: 1},
		{name: "no driver", layers: Auto, opens: 1,
			gpu: func() *fakeGPU {
				return &fakeGPU{openErr: errors.New("cuda: no NVIDIA driver (libcuda.so.1 not found): libcuda.so.1: cannot open shared object file")}
			},
			noteHas: "no NVIDIA driver (libcuda.so.1 not found)"},
		{name: "no driver, layers asked", layers: 8, opens: 1,
			gpu:     func() *fakeGPU { return &fakeGPU{openErr: errors.New("cuda: CUDA device 0: out of memory")} },
			noteHas: "CUDA device 0: out of memory"},
		{name: "auto, nothing free", layers: Auto, opens: 1,
			gpu:     func() *fakeGPU { return &fakeGPU{dev: &fakeDevice{free: 100e6, total: 8 * gb}} },
			noteHas: "only 100 MB is free on fake:0"},
		{name: "auto, free memory unknown", layers: Auto, opens: 1,
			gpu:     func() *fakeGPU { return &fakeGPU{dev: &fakeDevice{memErr: errors.New("fake: no answer")}} },
			noteHas: "the free memory of fake:0 is unknown"},
		{name: "layers asked, free memory unknown", layers: 3, onGPU: 3, weights: -1, opens: 1, backends: 1,
			gpu: func() *fakeGPU { return &fakeGPU{dev: &fakeDevice{memErr: errors.New("fake: no answer")}} }},
		{name: "the backend does not start", layers: Auto, opens: 1,
			gpu: func() *fakeGPU {
				g := plenty()
				g.newErr = errors.New("gpu: no kernels")
				return g
			},
			noteHas: "starting the GPU backend on fake:0 failed: no kernels"},
		{name: "a weight does not fit", layers: Auto, opens: 1, backends: 1, closedGPU: true, weights: -1,
			gpu: func() *fakeGPU {
				g := plenty()
				g.backendFn = func() *fakeBackend { return &fakeBackend{failWeight: 5} }
				return g
			},
			noteHas: "loading the model on fake:0 failed"},
		{name: "the cache does not fit", layers: 2, setup: allocCache, opens: 1, backends: 1, closedGPU: true, weights: -1,
			gpu: func() *fakeGPU {
				g := plenty()
				g.backendFn = func() *fakeBackend { return &fakeBackend{failNew: quant.TypeF16} }
				return g
			},
			noteHas: "setting the model up on fake:0 failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := tt.gpu()
			reg := NewRegistry(g.platform())
			defer reg.Close()
			setups := 0
			setup := func(m model.Model) error {
				setups++
				if tt.setup != nil {
					return tt.setup(m)
				}
				return nil
			}
			l, err := Load(context.Background(), f, Options{Request: Request{GPULayers: tt.layers, Context: 64},
				Threads: 1, Registry: reg, Logger: discard}, setup)
			if err != nil {
				t.Fatal(err)
			}
			p := l.Placement
			if p.Layers != tt.onGPU || p.Of != 4 {
				t.Errorf("placement %+v: want %d of 4 layers on the GPU", p, tt.onGPU)
			}
			if (p.Device == "fake:0") != (tt.opens > 0 && tt.gpu().openErr == nil) {
				t.Errorf("placement %+v: device %q", p, p.Device)
			}
			if tt.noteHas == "" && p.Note != "" || !strings.Contains(p.Note, tt.noteHas) {
				t.Errorf("note %q, want %q", p.Note, tt.noteHas)
			}
			if g.opens != tt.opens || len(g.backends) != tt.backends {
				t.Errorf("%d opens and %d backends, want %d and %d", g.opens, len(g.backends), tt.opens, tt.backends)
			}
			wantSetups := 1
			if tt.closedGPU {
				wantSetups = 2
				if tt.setup == nil {
					wantSetups = 1 // the model failed before its setup
				}
			}
			if setups != wantSetups {
				t.Errorf("setup ran %d times, want %d", setups, wantSetups)
			}
			if b := g.last(); b != nil {
				if got := int(b.closed.Load()); got != map[bool]int{true: 1, false: 0}[tt.closedGPU] {
					t.Errorf("the backend was closed %d times", got)
				}
				if tt.onGPU > 0 {
					if got, want := int(b.weights.Load()), layerTensors(f, tt.onGPU, 4); got != want {
						t.Errorf("%d weights on the GPU, want %d", got, want)
					}
				}
			}
			if got := logits(t, l.Model); !slices.Equal(got, want) {
				t.Errorf("the logits differ from the CPU's")
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if b := g.last(); b != nil && tt.onGPU > 0 && b.closed.Load() != 1 {
				t.Errorf("Close closed the backend %d times", b.closed.Load())
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestLoadFailsOnTheCPU checks that a setup that fails on the CPU too is
// an error, with the GPU's backend freed.
func TestLoadFailsOnTheCPU(t *testing.T) {
	f := openTiny(t)
	g := &fakeGPU{dev: &fakeDevice{free: 64 * gb, total: 80 * gb}}
	reg := NewRegistry(g.platform())
	defer reg.Close()
	boom := errors.New("scheduler: the budget holds no block")
	_, err := Load(context.Background(), f, Options{Request: Request{GPULayers: Auto}, Threads: 1, Registry: reg, Logger: discard},
		func(model.Model) error { return boom })
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want %v", err, boom)
	}
	if b := g.last(); b == nil || b.closed.Load() != 1 {
		t.Error("the GPU backend was not closed")
	}
}

func TestLoadCancelled(t *testing.T) {
	f := openTiny(t)
	g := &fakeGPU{dev: &fakeDevice{free: 64 * gb, total: 80 * gb}}
	reg := NewRegistry(g.platform())
	defer reg.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, f, Options{Request: Request{GPULayers: Auto}, Registry: reg, Logger: discard}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// Cancelled during the GPU's setup: no retry on the CPU.
	ctx, cancel = context.WithCancel(context.Background())
	_, err := Load(ctx, f, Options{Request: Request{GPULayers: Auto}, Threads: 1, Registry: reg, Logger: discard},
		func(model.Model) error { cancel(); return context.Canceled })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if b := g.last(); b == nil || b.closed.Load() != 1 {
		t.Error("the GPU backend was not closed")
	}
}

// TestLoadNoPlatform checks a system without a GPU backend.
func TestLoadNoPlatform(t *testing.T) {
	f := openTiny(t)
	l, err := Load(context.Background(), f, Options{Request: Request{GPULayers: Auto}, Threads: 1,
		Registry: NewRegistry(Platform{}), Logger: discard}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Placement.Layers != 0 || l.Placement.Note != "no GPU backend on this system" {
		t.Errorf("placement %+v", l.Placement)
	}
}

// TestLoadShared checks that concurrent loads open the device once, each
// with a backend of its own, and that the absence of a GPU is logged once.
func TestLoadShared(t *testing.T) {
	f := openTiny(t)
	g := &fakeGPU{dev: &fakeDevice{free: 64 * gb, total: 80 * gb}}
	reg := NewRegistry(g.platform())
	var wg sync.WaitGroup
	loaded := make([]*Loaded, 4)
	errs := make([]error, 4)
	for i := range loaded {
		wg.Go(func() {
			loaded[i], errs[i] = Load(context.Background(), f, Options{Request: Request{GPULayers: Auto}, Threads: 1,
				Registry: reg, Logger: discard}, nil)
		})
	}
	wg.Wait()
	for i, l := range loaded {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if l.Placement.Layers != 4 {
			t.Errorf("load %d: %+v", i, l.Placement)
		}
		l.Close()
	}
	if g.opens != 1 || len(g.backends) != 4 {
		t.Errorf("%d opens and %d backends, want 1 and 4", g.opens, len(g.backends))
	}
	if err := reg.Close(); err != nil || g.dev.closed.Load() != 1 {
		t.Errorf("Close: %v, the device closed %d times", err, g.dev.closed.Load())
	}

	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	none := NewRegistry((&fakeGPU{openErr: errors.New("metal: no Metal device")}).platform())
	for range 3 {
		if _, err := Load(context.Background(), f, Options{Request: Request{GPULayers: Auto}, Threads: 1, Registry: none, Logger: log}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(buf.String(), "no GPU"); n != 1 {
		t.Errorf("the missing GPU was logged %d times:\n%s", n, buf.String())
	}
}

func TestReason(t *testing.T) {
	tests := []struct{ err, want string }{
		{"cuda: no NVIDIA driver (libcuda.so.1 not found): libcuda.so.1: cannot open shared object file", "no NVIDIA driver (libcuda.so.1 not found)"},
		{"offload: cuda: CUDA device 0: out of memory", "CUDA device 0: out of memory"},
		{"metal: no Metal device", "no Metal device"},
		{"scheduler: model: cache: cuda: CUDA device 0: out of memory", "cache: CUDA device 0: out of memory"},
		{"model: loading llama: gpu: Q4_K weights need kernels", "loading llama: Q4_K weights need kernels"},
		{"gpu", "gpu"},
	}
	for _, tt := range tests {
		if got := Reason(errors.New(tt.err)); got != tt.want {
			t.Errorf("Reason(%q) = %q, want %q", tt.err, got, tt.want)
		}
	}
	if Reason(nil) != "" {
		t.Error("Reason(nil) is not empty")
	}
}

// TestSystem opens this machine's GPU: a device, or a reason in plain
// words.
func TestSystem(t *testing.T) {
	if a, b := System(), System(); a != b {
		t.Fatal("System returned two registries")
	}
	dev, err := System().Open()
	if err != nil {
		r := Reason(err)
		if r == "" || strings.HasPrefix(r, "offload:") || strings.HasPrefix(r, "cuda:") {
			t.Errorf("no GPU, and the reason is %q", r)
		}
		t.Logf("no GPU: %s", r)
		return
	}
	free, total, err := dev.Memory()
	t.Logf("GPU %s: %d of %d MB free (%v)", dev.Name(), free>>20, total>>20, err)
}

// TestLoadUnified loads on a GPU that works in RAM (Metal): the plan is
// held to the RAM available too, which the tiny model fits.
func TestLoadUnified(t *testing.T) {
	f := openTiny(t)
	g := &fakeGPU{dev: &fakeDevice{free: 64 * gb, total: 64 * gb}}
	p := g.platform()
	p.Unified = true
	reg := NewRegistry(p)
	defer reg.Close()
	l, err := Load(context.Background(), f, Options{Request: Request{GPULayers: Auto}, Threads: 1, Registry: reg, Logger: discard}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Placement.Layers != 4 || l.Placement.Note != "" {
		t.Errorf("placement %+v", l.Placement)
	}
}
