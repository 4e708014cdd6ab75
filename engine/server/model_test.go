package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"saji/engine/offload"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
	"saji/kernels/quant"
)

// fakeBackend runs on the CPU as a GPU backend would, failing to
// allocate tensors of type failNew (the KV cache) when it is set.
type fakeBackend struct {
	*cpu.Backend
	failNew quant.Type
	closed  *atomic.Int32
}

func (b fakeBackend) Name() string { return "fake:0" }

func (b fakeBackend) New(typ quant.Type, shape ...int) (kernels.Tensor, error) {
	if typ != quant.TypeF32 && typ == b.failNew {
		return nil, errors.New("fake: out of memory")
	}
	return b.Backend.New(typ, shape...)
}

func (b fakeBackend) Allocated() int64 { return 12345 }

func (b fakeBackend) Close() error { b.closed.Add(1); return nil }

// fakeGPU returns a registry over the fake device whose backends fail to
// allocate failNew tensors (0: none fail), counting opens and closes.
func fakeGPU(failNew quant.Type) (reg *offload.Registry, opens, closed *atomic.Int32) {
	opens, closed = new(atomic.Int32), new(atomic.Int32)
	reg = offload.NewRegistry(offload.Platform{Name: "Fake",
		Open: func() (gpu.Device, error) { opens.Add(1); return gputest.NullDevice{}, nil },
		NewBackend: func(gpu.Device) (offload.Backend, error) {
			return fakeBackend{Backend: cpu.New(1), failNew: failNew, closed: closed}, nil
		}})
	return reg, opens, closed
}

func TestLoadModelOffload(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		layers   int
		failNew  quant.Type
		want     offload.Placement
		noteHas  string
		opens    int32
		closedAt int32 // backend closes before the model's Close
	}{
		{name: "auto", layers: offload.Auto, want: offload.Placement{Device: "fake:0", Layers: 4, Of: 4, Bytes: 12345}, opens: 1},
		{name: "two layers", layers: 2, want: offload.Placement{Device: "fake:0", Layers: 2, Of: 4, Bytes: 12345}, opens: 1},
		{name: "off", layers: 0, want: offload.Placement{Of: 4}, opens: 0},
		{name: "the KV cache does not fit", layers: offload.Auto, failNew: quant.TypeF16, want: offload.Placement{Device: "fake:0", Of: 4},
			noteHas: "setting the model up on fake:0 failed: cache: fake: out of memory", opens: 1, closedAt: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg, opens, closed := fakeGPU(tt.failNew)
			m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "tiny", Threads: 2, GPULayers: tt.layers, GPU: reg,
				Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}})
			if err != nil {
				t.Fatal(err)
			}
			got := m.Info.Offload
			note := got.Note
			got.Note = ""
			if got != tt.want || !strings.Contains(note, tt.noteHas) || tt.noteHas == "" && note != "" {
				t.Errorf("Info.Offload = %+v, note %q; want %+v, note %q", got, note, tt.want, tt.noteHas)
			}
			if opens.Load() != tt.opens || closed.Load() != tt.closedAt {
				t.Errorf("%d opens and %d closes, want %d and %d", opens.Load(), closed.Load(), tt.opens, tt.closedAt)
			}
			res, err := m.Generate(context.Background(), runner.Request{Prompt: "Once upon a time", MaxTokens: 4, Sampling: sample.Greedy()},
				func(runner.Piece) error { return nil })
			if err != nil || res.CompletionTokens == 0 {
				t.Fatalf("generating: %v (%d tokens)", err, res.CompletionTokens)
			}

			s := New(Config{})
			s.Runner().Add(m)
			req, _ := http.NewRequest(http.MethodGet, "/api/ps", nil)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			var ps struct {
				Models []struct {
					SizeVRAM int64 `json:"size_vram"`
				} `json:"models"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &ps); err != nil || len(ps.Models) != 1 {
				t.Fatalf("/api/ps: %v: %s", err, rec.Body.String())
			}
			if ps.Models[0].SizeVRAM != tt.want.Bytes {
				t.Errorf("size_vram = %d, want %d", ps.Models[0].SizeVRAM, tt.want.Bytes)
			}
			s.Close()
			want := tt.closedAt
			if tt.want.Layers > 0 {
				want++
			}
			if closed.Load() != want {
				t.Errorf("the GPU backend was closed %d times after the model's Close, want %d", closed.Load(), want)
			}
		})
	}
}

var errFakeFault = errors.New("fake: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)")

// faultDevice is gputest.NullDevice whose kernel launches fail once on is set.
type faultDevice struct {
	gputest.NullDevice
	on *atomic.Bool
}

func (d faultDevice) Launch(string, gpu.Dim3, gpu.Dim3, ...gpu.Arg) error {
	if d.on.Load() {
		return errFakeFault
	}
	return nil
}

// faultBackend is fakeBackend launching a kernel on its device for every
// RMSNorm, as a GPU backend does.
type faultBackend struct {
	fakeBackend
	dev gpu.Device
}

func (b faultBackend) RMSNorm(dst, x, w kernels.Tensor, eps float32) error {
	if err := b.dev.Launch("rms_norm", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 1, Y: 1, Z: 1}); err != nil {
		return err
	}
	return b.fakeBackend.RMSNorm(dst, x, w, eps)
}

// TestGPUFault serves two models on a GPU that faults: the request that
// meets the fault fails with the GPU's error, and the server loads both
// models again (the idle one too), on the CPU, under their names, saying
// why; requests then succeed.
func TestGPUFault(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	on, closed := new(atomic.Bool), new(atomic.Int32)
	reg := offload.NewRegistry(offload.Platform{Name: "Fake",
		Open: func() (gpu.Device, error) { return faultDevice{on: on}, nil },
		NewBackend: func(dev gpu.Device) (offload.Backend, error) {
			return faultBackend{fakeBackend{Backend: cpu.New(1), closed: closed}, dev}, nil
		}})
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "tiny", Threads: 2, GPULayers: offload.Auto, GPU: reg,
		Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	// A second model on the same GPU, idle when it fails.
	idle, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "idle", Threads: 2, GPULayers: 2, GPU: reg,
		Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.Offload.Layers != 4 || idle.Info.Offload.Layers != 2 {
		t.Fatalf("placements %s and %s", m.Info.Offload, idle.Info.Offload)
	}
	s := New(Config{})
	defer s.Close()
	s.Runner().Add(m)
	s.Runner().Add(idle)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	body := `{"model":"tiny","prompt":"Once upon a time","max_tokens":4}`
	if status, v := post(t, hs.URL+"/v1/completions", body); status != 200 {
		t.Fatalf("before the fault: %d %v", status, v)
	}
	on.Store(true)
	status, v := post(t, hs.URL+"/v1/completions", body)
	if msg, _ := v["error"].(map[string]any)["message"].(string); status != 500 || !strings.Contains(msg, "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Errorf("the request that met the fault: %d %v", status, v)
	}
	deadline := time.Now().Add(30 * time.Second)
	for _, old := range []*runner.Model{m, idle} {
		var again *runner.Model
		for again == nil || again == old {
			if time.Now().After(deadline) {
				t.Fatalf("%s was not loaded again", old.Name)
			}
			time.Sleep(5 * time.Millisecond)
			again, _ = s.Runner().Model(old.Name)
		}
		p := again.Info.Offload
		if p.Layers != 0 || !strings.HasPrefix(p.Note, "the GPU failed: fake:0: ") || !again.Pinned() {
			t.Errorf("%s loaded again: placement %+v, pinned %v", old.Name, p, again.Pinned())
		}
		if status, v := post(t, hs.URL+"/v1/completions", strings.Replace(body, "tiny", old.Name, 1)); status != 200 {
			t.Errorf("%s after the fault: %d %v", old.Name, status, v)
		}
	}
	for closed.Load() != 2 { // the faulted models are closed after their successors serve
		if time.Now().After(deadline) {
			t.Fatalf("the faulted model was not closed: %d GPU backends closed", closed.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// vramDevice is gputest.NullDevice with total bytes of memory, of which each
// backend not yet closed holds per.
type vramDevice struct {
	gputest.NullDevice
	total, per     uint64
	opened, closed *atomic.Int32
}

func (d vramDevice) Memory() (uint64, uint64, error) {
	return d.total - d.per*uint64(d.opened.Load()-d.closed.Load()), d.total, nil
}

// TestGPURoom loads folder models on a GPU with room for one: a second
// model gets the CPU while the first was just used, and the GPU once the
// first is idle, which the server unloads to make room.
func TestGPURoom(t *testing.T) {
	opened, closed := new(atomic.Int32), new(atomic.Int32)
	dev := vramDevice{total: offload.Headroom + 1<<30, per: 1 << 30, opened: opened, closed: closed}
	reg := offload.NewRegistry(offload.Platform{Name: "Fake",
		Open: func() (gpu.Device, error) { return dev, nil },
		NewBackend: func(gpu.Device) (offload.Backend, error) {
			opened.Add(1)
			return fakeBackend{Backend: cpu.New(1), closed: closed}, nil
		}})
	s, hs := newDirServer(t, runner.Config{MaxLoaded: 4, KeepAlive: -1, Available: func() uint64 { return 1 << 40 },
		Load: runner.LoadOptions{GPU: reg, GPULayers: offload.Auto}})
	ask := func(model string) offload.Placement {
		t.Helper()
		status, v := post(t, hs.URL+"/v1/completions", `{"model":"`+model+`","prompt":"the cat","max_tokens":2}`)
		if status != 200 {
			t.Fatalf("%s: %d %v", model, status, v)
		}
		m, err := s.Runner().Model(model)
		if err != nil {
			t.Fatal(err)
		}
		return m.Info.Offload
	}
	if p := ask("a"); p.Layers != 4 {
		t.Fatalf("a: %s", p)
	}
	if p := ask("b"); p.Layers != 0 || !strings.Contains(p.Note, "is free on fake:0") || loadedNames(s) != "a,b" {
		t.Errorf("b while a was just used: %s, loaded %q", p, loadedNames(s))
	}
	s.Runner().Unload("b")
	time.Sleep(runner.Grace + 100*time.Millisecond) // a is no longer "just used"
	if p := ask("b"); p.Layers != 4 || loadedNames(s) != "b" {
		t.Errorf("b once a is idle: %s, loaded %q", p, loadedNames(s))
	}
	if n := opened.Load() - closed.Load(); n != 1 {
		t.Errorf("%d GPU backends open, want 1", n)
	}
}
