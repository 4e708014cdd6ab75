package offload

import (
	"slices"
	"strings"
	"testing"

	"saji/engine/fit"
	"saji/engine/scheduler"
	"saji/kernels"
	"saji/kernels/cpu"
)

// llama8B is the shape of Llama 3.1 8B in Q4_K_M: 32 layers of about
// 218 MB, 525 MB of embeddings and as much output head.
func llama8B() fit.ModelShape {
	s := fit.ModelShape{Arch: "llama", Layers: 32, Heads: 32, HeadDim: 128, ValueDim: 128, Embd: 4096,
		FFN: 14336, Vocab: 128256, ContextTrain: 131072, EmbdBytes: 525e6, OutputBytes: 525e6,
		TokenizerEntries: 400000}
	for range s.Layers {
		s.KVHeads = append(s.KVHeads, 8)
		s.LayerBytes = append(s.LayerBytes, 218e6)
	}
	return s
}

const gb = 1_000_000_000

func TestPlan(t *testing.T) {
	dev := func(free, total uint64) DeviceMemory {
		return DeviceMemory{Name: "fake:0", Free: free, Total: total}
	}
	tests := []struct {
		name       string
		dev        DeviceMemory
		req        Request
		layers     int    // exact, or the lower bound with most
		most       int    // upper bound (0: layers exactly)
		output     bool   // embeddings and output on the GPU
		noteHas    string // "" for no note
		noteAbsent bool
	}{
		{name: "auto, plenty free", dev: dev(24*gb, 24*gb), req: Request{GPULayers: Auto}, layers: 32, output: true, noteAbsent: true},
		{name: "auto, any negative", dev: dev(24*gb, 24*gb), req: Request{GPULayers: -7}, layers: 32, output: true, noteAbsent: true},
		{name: "auto, part fits", dev: dev(4*gb, 8*gb), req: Request{GPULayers: Auto}, layers: 1, most: 17,
			noteHas: "of the 32 layers fit in the 4.0 GB free on fake:0"},
		{name: "auto, the layers but not the head", dev: dev(10*gb, 12*gb), req: Request{GPULayers: Auto}, layers: 32,
			noteHas: "the output head does not fit in the 10 GB free on fake:0"},
		{name: "auto, headroom only", dev: dev(400e6, 8*gb), req: Request{GPULayers: Auto}, layers: 0,
			noteHas: "only 400 MB is free on fake:0"},
		{name: "auto, less than a layer", dev: dev(Headroom+100e6, 8*gb), req: Request{GPULayers: Auto}, layers: 0,
			noteHas: "not one layer fits"},
		{name: "off", dev: dev(24*gb, 24*gb), req: Request{GPULayers: 0}, layers: 0, noteAbsent: true},
		{name: "ten layers", dev: dev(1*gb, 24*gb), req: Request{GPULayers: 10}, layers: 10, noteAbsent: true},
		{name: "every layer", dev: dev(1*gb, 24*gb), req: Request{GPULayers: 32}, layers: 32, output: true, noteAbsent: true},
		{name: "more than the layers", dev: dev(1*gb, 24*gb), req: Request{GPULayers: 99}, layers: 32, output: true, noteAbsent: true},
		{name: "unified, fits", dev: DeviceMemory{Name: "metal", Free: 20 * gb, Total: 24 * gb, Unified: true},
			req: Request{GPULayers: Auto}, layers: 32, output: true, noteAbsent: true},
		{name: "unified, too big", dev: DeviceMemory{Name: "metal", Free: 4 * gb, Total: 10 * gb, Unified: true},
			req: Request{GPULayers: Auto}, layers: 0, noteHas: "needs more than the 4.0 GB metal can use"},
		{name: "unified, a number", dev: DeviceMemory{Name: "metal", Free: 4 * gb, Total: 10 * gb, Unified: true},
			req: Request{GPULayers: 8}, layers: 8, noteAbsent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Plan(llama8B(), tt.dev, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if s.Of != 32 {
				t.Errorf("Of = %d, want 32", s.Of)
			}
			if tt.most == 0 && s.Layers != tt.layers || tt.most > 0 && (s.Layers < tt.layers || s.Layers > tt.most) {
				t.Errorf("Layers = %d, want %d (up to %d)", s.Layers, tt.layers, tt.most)
			}
			if s.Output != tt.output {
				t.Errorf("Output = %v, want %v", s.Output, tt.output)
			}
			if tt.noteHas != "" && !strings.Contains(s.Note, tt.noteHas) {
				t.Errorf("Note = %q, want it to say %q", s.Note, tt.noteHas)
			}
			if tt.noteAbsent && s.Note != "" {
				t.Errorf("Note = %q, want none", s.Note)
			}
		})
	}
}

// TestPlanAutoGrows checks that automatic plans put more layers on a GPU
// with more free memory, fewer with a longer context, and never more
// weights than the memory less the headroom holds.
func TestPlanAutoGrows(t *testing.T) {
	shape := llama8B()
	prev := 0
	for free := uint64(Headroom); free <= 12*gb; free += 250e6 {
		s, err := Plan(shape, DeviceMemory{Name: "fake:0", Free: free, Total: 12 * gb}, Request{GPULayers: Auto})
		if err != nil {
			t.Fatal(err)
		}
		if s.Layers < prev {
			t.Fatalf("%d MB free: %d layers, fewer than the %d of less memory", free/1e6, s.Layers, prev)
		}
		if w := uint64(s.Layers) * 218e6; s.Layers > 0 && w > free-Headroom {
			t.Fatalf("%d MB free: %d layers take %d MB of weights", free/1e6, s.Layers, w/1e6)
		}
		prev = s.Layers
	}
	if prev != 32 {
		t.Errorf("12 GB free: %d layers, want all 32", prev)
	}
	short, _ := Plan(shape, DeviceMemory{Name: "fake:0", Free: 8 * gb, Total: 8 * gb}, Request{GPULayers: Auto, Context: 4096, Parallel: 1})
	long, _ := Plan(shape, DeviceMemory{Name: "fake:0", Free: 8 * gb, Total: 8 * gb}, Request{GPULayers: Auto, Context: 65536, Parallel: 1})
	if long.Layers >= short.Layers {
		t.Errorf("a 64K context gets %d layers, a 4K one %d: the KV cache should take room", long.Layers, short.Layers)
	}
	budget, _ := Plan(shape, DeviceMemory{Name: "fake:0", Free: 8 * gb, Total: 8 * gb}, Request{GPULayers: Auto, Context: 4096, KVBytes: 16 * 4096 * 131072})
	if budget.Layers >= short.Layers {
		t.Errorf("a KV budget of 16 contexts gets %d layers, one context %d", budget.Layers, short.Layers)
	}
}

func TestPlanErrors(t *testing.T) {
	if _, err := Plan(fit.ModelShape{}, DeviceMemory{Free: 8 * gb}, Request{GPULayers: Auto}); err == nil {
		t.Error("a model without layers planned")
	}
	if _, err := Plan(llama8B(), DeviceMemory{Free: 8 * gb}, Request{GPULayers: Auto, KVType: "q3"}); err == nil {
		t.Error("a KV type q3 planned")
	}
}

func TestServeRequest(t *testing.T) {
	tests := []struct {
		cfg  scheduler.Config
		want Request
	}{
		{scheduler.Config{}, Request{GPULayers: Auto}},
		{scheduler.Config{Context: 8192, KVType: "q8_0"}, Request{GPULayers: Auto, Context: 8192, KVType: "q8_0"}},
		{scheduler.Config{MaxSeqs: scheduler.DefaultMaxSeqs}, Request{GPULayers: Auto, MaxSeqs: scheduler.DefaultMaxSeqs}},
		{scheduler.Config{MaxSeqs: 2}, Request{GPULayers: Auto, MaxSeqs: 2}},
		{scheduler.Config{Parallel: 1}, Request{GPULayers: Auto, Parallel: 1}},
		{scheduler.Config{Parallel: 4, MaxSeqs: 8}, Request{GPULayers: Auto, Parallel: 4, MaxSeqs: 8}},
		{scheduler.Config{MaxSeqs: 64, KVBytes: 1 << 30}, Request{GPULayers: Auto, KVBytes: 1 << 30, MaxSeqs: 64}},
		{scheduler.Config{KVBytes: -1}, Request{GPULayers: Auto}},
	}
	for _, tt := range tests {
		if got := ServeRequest(Auto, tt.cfg); got != tt.want {
			t.Errorf("ServeRequest(%+v) = %+v, want %+v", tt.cfg, got, tt.want)
		}
	}
}

func TestLayerBackends(t *testing.T) {
	g := cpu.New(1)
	tests := []struct {
		n, layers int
		want      []bool // layer on g
	}{
		{0, 4, []bool{false, false, false, false}},
		{1, 4, []bool{false, false, false, true}},
		{3, 4, []bool{false, true, true, true}},
		{4, 4, []bool{true, true, true, true}},
		{9, 4, []bool{true, true, true, true}},
	}
	for _, tt := range tests {
		got := LayerBackends(g, tt.n, tt.layers)
		on := make([]bool, len(got))
		for i, b := range got {
			on[i] = b == kernels.Backend(g)
			if b != nil && !on[i] {
				t.Errorf("n=%d: layer %d on %v", tt.n, i, b)
			}
		}
		if !slices.Equal(on, tt.want) {
			t.Errorf("LayerBackends(%d of %d) puts %v on the GPU, want %v", tt.n, tt.layers, on, tt.want)
		}
	}
}

func TestPlacementString(t *testing.T) {
	tests := []struct {
		p    Placement
		want string
	}{
		{Placement{Device: "cuda:0", Layers: 32, Of: 32}, "GPU: 32/32 layers on cuda:0"},
		{Placement{Device: "cuda:0", Layers: 20, Of: 32, Note: "20 of the 32 layers fit in the 6.0 GB free on cuda:0"},
			"GPU: 20/32 layers on cuda:0, the rest on the CPU (20 of the 32 layers fit in the 6.0 GB free on cuda:0)"},
		{Placement{Of: 32}, "CPU"},
		{Placement{Of: 32, Note: "no NVIDIA driver (libcuda.so.1 not found)"}, "CPU (no NVIDIA driver (libcuda.so.1 not found))"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
