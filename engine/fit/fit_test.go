package fit

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/model"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// testModels returns the reference models' paths (skipping without them).
func testModels(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(refdata.Dir(t), "models", "*.gguf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no reference models: %v", err)
	}
	return paths
}

// describeAndLoad returns the shape of the model at path and the model
// loaded on one thread; the file stays open until t ends.
func describeAndLoad(t *testing.T, path string) (ModelShape, model.Model) {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	s, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Load(context.Background(), f, model.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return s, m
}

// TestKVMatchesEngine checks the KV formula against what the engine
// allocates: the cell sizes of model.KVGroups and the pool the scheduler
// builds, for every reference model.
func TestKVMatchesEngine(t *testing.T) {
	paths := testModels(t)
	// Gemma 4's layers have cells of different lengths, and some none.
	g4 := filepath.Join(t.TempDir(), "tiny-gemma4.gguf")
	if err := synth.WriteShape(context.Background(), g4, "tiny-gemma4", "q8_0", 1); err != nil {
		t.Fatal(err)
	}
	for _, path := range append(paths, g4) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, m := describeAndLoad(t, path)
			groups := m.KVGroups()
			cfg := m.Config()
			if s.Layers != cfg.Layers || s.Vocab != cfg.Vocab || s.HeadDim != cfg.HeadDim || s.ValueDim != cfg.ValueDim || s.KVHeads[0] != cfg.KVHeads {
				t.Errorf("shape %+v, engine %+v", s, cfg)
			}
			for _, kv := range []string{"f16", "f32", "q8_0"} {
				typ, _ := kvType(kv)
				if typ == quant.TypeQ8_0 && (cfg.KVHeads*cfg.HeadDim)%32 != 0 {
					continue
				}
				cb := s.poolGroups(typ)
				if len(cb) != len(groups) {
					t.Fatalf("%d KV groups, engine %d", len(cb), len(groups))
				}
				for i, g := range groups {
					if cb[i].CellBytes != int64(g.CellBytes(typ)) {
						t.Errorf("%s group %d: %d bytes a cell, engine %d", kv, i, cb[i].CellBytes, g.CellBytes(typ))
					}
				}
				for _, tc := range []struct{ ctx, parallel int }{{256, 0}, {100, 1}, {512, 3}} {
					p, err := PlanFor(s, hardware.Machine{}, Request{Context: tc.ctx, KVType: kv, Parallel: tc.parallel})
					if err != nil {
						t.Fatal(err)
					}
					// The scheduler sizes the pool of the profile itself.
					sc, err := scheduler.New(m, scheduler.Config{Context: tc.ctx, KVType: kv, Parallel: tc.parallel})
					if err != nil {
						t.Fatal(err)
					}
					st := sc.Stats().KV
					scfg := sc.Config()
					sc.Close()
					var engine int64
					for i, g := range groups {
						cells := st.Groups[i].Total * kvBlock
						engine += int64(cells) * int64(g.CellBytes(typ))
						if cells != p.Breakdown.KVGroups[i].Cells {
							t.Errorf("%s ctx %d parallel %d group %d: %d cells, scheduler %d", kv, tc.ctx, tc.parallel, i, p.Breakdown.KVGroups[i].Cells, cells)
						}
					}
					if engine != p.Breakdown.KV {
						t.Errorf("%s ctx %d parallel %d: KV %d bytes, scheduler %d", kv, tc.ctx, tc.parallel, p.Breakdown.KV, engine)
					}
					want := tc.parallel * tc.ctx
					if tc.parallel == 1 {
						want = tc.ctx + scheduler.ReserveTokens
					}
					if tc.parallel > 0 && p.Breakdown.KVTokens != want/kvBlock*kvBlock {
						t.Errorf("profile %d, contexts of %d: pool of %d tokens, want %d", tc.parallel, tc.ctx, p.Breakdown.KVTokens, want)
					}
					if p.MaxSeqs != scfg.MaxSeqs {
						t.Errorf("profile %d: %d sequences at once, scheduler %d", tc.parallel, p.MaxSeqs, scfg.MaxSeqs)
					}
				}
			}
		})
	}
}

const kvBlock = 16

// shape is a llama-1b-like model for the planner's table tests.
func shape() ModelShape {
	s := ModelShape{Arch: "llama", Layers: 16, Heads: 32, HeadDim: 64, ValueDim: 64, Embd: 2048, FFN: 8192,
		Vocab: 128256, ContextTrain: 131072, EmbdBytes: 262 << 20, OutputBytes: 8 << 10, TiedOutput: true, TokenizerEntries: 400000}
	for range s.Layers {
		s.KVHeads = append(s.KVHeads, 8)
		s.LayerBytes = append(s.LayerBytes, 34<<20)
	}
	return s
}

func TestPlanVerdicts(t *testing.T) {
	const gb = 1 << 30
	ram := func(total, avail uint64) hardware.Machine {
		return hardware.Machine{Memory: hardware.Memory{Total: total, Available: avail}, Bandwidth: 20e9}
	}
	gpu := func(free uint64, unified bool) hardware.Machine {
		m := ram(16*gb, 12*gb)
		m.GPUs = []hardware.GPU{{Name: "test", Total: free, Free: free, Unified: unified}}
		return m
	}
	for _, tc := range []struct {
		name  string
		m     hardware.Machine
		req   Request
		want  VerdictKind
		tight bool
	}{
		{"ram", ram(16*gb, 12*gb), Request{Context: 8192}, CPUOnly, false},
		{"tight", ram(2*gb, gb*9/10), Request{Context: 2048, Parallel: 1}, CPUOnly, true},
		{"too small", ram(gb/2, gb/2), Request{Context: 2048}, WontFit, false},
		{"gpu", gpu(8*gb, false), Request{Context: 8192, GPULayers: -1}, FullGPU, false},
		{"gpu not asked", gpu(8*gb, false), Request{Context: 8192}, CPUOnly, false},
		{"small gpu", gpu(gb/2, false), Request{Context: 8192, Parallel: 1, GPULayers: -1}, PartialGPU, false},
		{"forced layers", gpu(8*gb, false), Request{Context: 8192, GPULayers: 4}, PartialGPU, false},
		{"unified", gpu(10*gb, true), Request{Context: 8192, GPULayers: -1}, FullGPU, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanFor(shape(), tc.m, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if p.Verdict.Kind != tc.want || p.Verdict.Tight != tc.tight {
				t.Fatalf("verdict %+v, want kind %d tight %v\n%s", p.Verdict, tc.want, tc.tight, strings.Join(p.Explain(), "\n"))
			}
			b := p.Breakdown
			if b.Total != b.Weights+b.KV+b.Activations+b.Logits+b.Overhead {
				t.Errorf("total %d is not the sum of its parts", b.Total)
			}
			if tc.want == PartialGPU && (p.Verdict.GPULayers <= 0 || p.Verdict.GPULayers >= 16) {
				t.Errorf("partial with %d layers", p.Verdict.GPULayers)
			}
			if tc.name == "forced layers" && p.Verdict.GPULayers != 4 {
				t.Errorf("%d layers on the GPU, asked 4", p.Verdict.GPULayers)
			}
			if p.MaxContext > 0 {
				q, _ := PlanFor(shape(), tc.m, Request{Context: p.MaxContext, KVType: tc.req.KVType, Parallel: tc.req.Parallel, GPULayers: tc.req.GPULayers})
				if q.Verdict.Kind == WontFit {
					t.Errorf("the largest context %d does not fit", p.MaxContext)
				}
				if p.MaxContext < p.Model.ContextTrain {
					q, _ = PlanFor(shape(), tc.m, Request{Context: p.MaxContext + 16, KVType: tc.req.KVType, Parallel: tc.req.Parallel, GPULayers: tc.req.GPULayers})
					if q.Verdict.Kind != WontFit {
						t.Errorf("a context of %d fits too, past the largest %d", p.MaxContext+16, p.MaxContext)
					}
				}
			}
		})
	}
}

func TestPlanNumbers(t *testing.T) {
	m := hardware.Machine{Memory: hardware.Memory{Total: 64 << 30, Available: 60 << 30}, Bandwidth: 20e9}
	p, err := PlanFor(shape(), m, Request{Context: 8192, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	// One context (2 x 16 layers x 8 KV heads x 64 x 8192 x 2 B) and the
	// desktop's reserve.
	ctxKV := int64(2 * 16 * 8 * 64 * 8192 * 2)
	if want := ctxKV / 8192 * (8192 + scheduler.ReserveTokens); p.Breakdown.KV != want {
		t.Errorf("KV %d, want %d", p.Breakdown.KV, want)
	}
	q, _ := PlanFor(shape(), m, Request{Context: 8192, Parallel: 1, KVType: "q8_0"})
	if want := int64(2*16*8*64*(8192+scheduler.ReserveTokens)) / 32 * 34; q.Breakdown.KV != want {
		t.Errorf("q8_0 KV %d, want %d", q.Breakdown.KV, want)
	}
	d, _ := PlanFor(shape(), m, Request{Context: 8192})
	if d.Breakdown.KV != 4*ctxKV || d.MaxSeqs != scheduler.DefaultMaxSeqs {
		t.Errorf("the default pool is %d bytes for %d sequences, want four contexts (%d)", d.Breakdown.KV, d.MaxSeqs, 4*ctxKV)
	}
	wantBytes := 16*(34<<20) + int64(262<<20) + 8<<10 + ctxKV
	if p.DecodeBytes != wantBytes {
		t.Errorf("decode reads %d bytes, want %d", p.DecodeBytes, wantBytes)
	}
	if got := 20e9 / float64(wantBytes); p.DecodeTokensPerSec != got {
		t.Errorf("decode %.2f tokens/s, want %.2f", p.DecodeTokensPerSec, got)
	}
	lines := strings.Join(p.Explain(), "\n")
	for _, want := range []string{"Weights: ", "16 layers x 36 MB", "KV cache at 8192 tokens, f16: 285 MB (2 x 16 layers x 8 KV heads x 64 x 8704 cells x 2 B", "KV cache: 1 conversation of 8192 tokens + a reserve of 512", "Verdict: fits in RAM", "tokens/s"} {
		if !strings.Contains(lines, want) {
			t.Errorf("the explanation lacks %q:\n%s", want, lines)
		}
	}
	if _, err := PlanFor(shape(), m, Request{KVType: "q4_0"}); err == nil {
		t.Error("a q4_0 KV cache was accepted")
	}
}

func TestSlidingWindowShape(t *testing.T) {
	s := shape()
	s.Arch, s.SlidingWindow = "gemma3", 512
	s.SWA = make([]bool, s.Layers)
	for i := range s.SWA {
		s.SWA[i] = i%6 < 5
	}
	m := hardware.Machine{Memory: hardware.Memory{Total: 64 << 30, Available: 60 << 30}}
	p, err := PlanFor(s, m, Request{Context: 32768, Parallel: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Breakdown.KVGroups) != 2 {
		t.Fatalf("groups %+v", p.Breakdown.KVGroups)
	}
	slide := p.Breakdown.KVGroups[0]
	// For each of the desktop's sequences at once, the window, a step's
	// tokens and a block, in blocks of 16.
	if slide.Window != 512 || slide.Layers != 14 || slide.Cells != scheduler.DesktopMaxSeqs*(512+128+16) {
		t.Errorf("sliding group %+v", slide)
	}
	if full := p.Breakdown.KVGroups[1]; full.Cells != 32768+scheduler.ReserveTokens || full.Layers != 2 {
		t.Errorf("full group %+v", full)
	}
}

// rangeServer serves b with Range support, counting the bytes sent.
func rangeServer(t *testing.T, b []byte) (*httptest.Server, *atomic.Int64) {
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		cw := &countWriter{ResponseWriter: w, n: &sent}
		http.ServeContent(cw, r, "model.gguf", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(srv.Close)
	return srv, &sent
}

type countWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	return c.ResponseWriter.Write(p)
}

func TestDescribeURL(t *testing.T) {
	// A model with a real header and 48 MiB of (zero) weights.
	path := refdata.Path(t, "models/tiny-llama3-bpe-q8_0.gguf")
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	local, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	w := gguf.NewWriter()
	for _, kv := range f.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range f.Tensors() {
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, make([]byte, ti.Size)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.AddTensor("blk.0.padding", quant.TypeF32, []int64{12 << 20}, make([]byte, 48<<20)); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	srv, sent := rangeServer(t, buf.Bytes())
	h := http.Header{"Authorization": {"Bearer tok"}}
	got, err := DescribeURL(context.Background(), srv.Client(), srv.URL+"/m.gguf", h)
	if err != nil {
		t.Fatal(err)
	}
	if got.FileSize != int64(buf.Len()) {
		t.Errorf("file size %d, want %d", got.FileSize, buf.Len())
	}
	if got.Vocab != local.Vocab || got.Layers != local.Layers || got.LayerBytes[1] != local.LayerBytes[1] || got.LayerBytes[0] != local.LayerBytes[0]+48<<20 {
		t.Errorf("remote shape %+v, local %+v", got, local)
	}
	if n := sent.Load(); n > 4<<20 || n*10 > int64(buf.Len()) {
		t.Errorf("fetched %d bytes of a %d-byte file", n, buf.Len())
	}
	t.Logf("header of a %d-byte file read in %d bytes", buf.Len(), sent.Load())
	// The first of shards of 1 GB more in all: the rest spread over the
	// layers.
	total := int64(buf.Len()) + int64(got.Layers)<<30
	split, err := DescribeSplitURL(context.Background(), srv.Client(), srv.URL+"/m.gguf", h, total)
	if err != nil {
		t.Fatal(err)
	}
	if split.FileSize != total || split.LayerBytes[1] != got.LayerBytes[1]+1<<30 {
		t.Errorf("split shape: file %d bytes, layer 1 %d bytes", split.FileSize, split.LayerBytes[1])
	}
	if one, _ := DescribeSplitURL(context.Background(), srv.Client(), srv.URL+"/m.gguf", h, 0); one.FileSize != got.FileSize || one.LayerBytes[1] != got.LayerBytes[1] {
		t.Errorf("one file: %+v", one)
	}

	if _, err := DescribeURL(context.Background(), srv.Client(), srv.URL+"/m.gguf", nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("no token: error %v", err)
	}
	noRange := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(buf.Bytes()[:1000]) }))
	defer noRange.Close()
	if _, err := DescribeURL(context.Background(), noRange.Client(), noRange.URL, nil); err == nil || !strings.Contains(err.Error(), "range") {
		t.Errorf("a server without ranges: error %v", err)
	}
	cut, _ := rangeServer(t, buf.Bytes()[:2000])
	if _, err := DescribeURL(context.Background(), cut.Client(), cut.URL, h); err == nil {
		t.Error("a truncated file was described")
	}
}
