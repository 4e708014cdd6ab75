package fit

import (
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/scheduler"
	"saji/internal/refdata"
)

func TestSizeNeed(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		size, want int64
	}{
		{0, 512 * mib},
		{-5, 512 * mib},
		{1000 * mib, 1200*mib + 512*mib},
		{5 << 30, 6<<30 + 512*mib},
	} {
		if got := SizeNeed(tc.size); got != tc.want {
			t.Errorf("SizeNeed(%d) = %d, want %d", tc.size, got, tc.want)
		}
	}
}

func TestPlanSize(t *testing.T) {
	const gb = 1 << 30
	size := int64(4 * gb) // needs 5.3 GB
	for _, tc := range []struct {
		name        string
		total, free uint64
		want        VerdictKind
		tight       bool
		word        string
	}{
		{"fits", 16 * gb, 8 * gb, CPUOnly, false, "fits"},
		{"tight", 16 * gb, 4 * gb, CPUOnly, true, "tight"},
		{"too big", 4 * gb, 4 * gb, WontFit, false, "too big"},
		{"unknown available", 8 * gb, 0, CPUOnly, false, "fits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PlanSize(size, hardware.Machine{Memory: hardware.Memory{Total: tc.total, Available: tc.free}})
			if p.Verdict.Kind != tc.want || p.Verdict.Tight != tc.tight || p.Verdict.Word() != tc.word {
				t.Errorf("verdict %+v (%s), want kind %d tight %v (%s)", p.Verdict, p.Verdict.Word(), tc.want, tc.tight, tc.word)
			}
			if !p.Fallback || p.Breakdown.RAM != SizeNeed(size) {
				t.Errorf("plan %+v", p)
			}
			if lines := strings.Join(p.Explain(), "\n"); !strings.Contains(lines, "file's size alone") {
				t.Errorf("the explanation does not say it is an estimate:\n%s", lines)
			}
		})
	}
}

// TestLoadRAM checks the RAM a load takes against the plan of the same
// file and settings, the GPU's share left out, and the fallback for a
// file whose header cannot be read.
func TestLoadRAM(t *testing.T) {
	f, err := gguf.Open(filepath.Join(refdata.Dir(t), "models", "tiny-llama3-bpe-q8_0.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	shape, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	const size = 3000 // the fallback's, unused while the header reads
	cfg := scheduler.Config{Context: 256, Parallel: 2}
	req := SchedulerRequest(cfg, -1)
	unlimited := hardware.Machine{Memory: hardware.Memory{Total: 1 << 62, Available: 1 << 62}}
	cpuReq := req
	cpuReq.GPULayers = 0
	cpu, err := PlanFor(shape, unlimited, cpuReq)
	if err != nil {
		t.Fatal(err)
	}
	if got := LoadRAM(&shape, size, SchedulerRequest(cfg, 0), false); got != cpu.Breakdown.RAM || got != cpu.Breakdown.Total {
		t.Errorf("on the CPU: %d bytes, plan %d", got, cpu.Breakdown.RAM)
	}
	if got := LoadRAM(&shape, size, SchedulerRequest(cfg, shape.Layers), true); got != cpu.Breakdown.Total {
		t.Errorf("on a unified GPU: %d bytes, want all of it (%d)", got, cpu.Breakdown.Total)
	}
	half := LoadRAM(&shape, size, SchedulerRequest(cfg, shape.Layers/2), false)
	if half <= 0 || half >= cpu.Breakdown.Total {
		t.Errorf("half the layers on a GPU: %d bytes of %d", half, cpu.Breakdown.Total)
	}
	if all := LoadRAM(&shape, size, SchedulerRequest(cfg, shape.Layers), false); all >= half {
		t.Errorf("every layer on a GPU: %d bytes, half of them %d", all, half)
	}
	if got := LoadRAM(nil, 3000, req, false); got != SizeNeed(3000) {
		t.Errorf("no header: %d bytes, want the fallback %d", got, SizeNeed(3000))
	}
}

// TestProfiles checks the desktop and serving profiles: the pool each
// sizes, how the answer names it, and the scheduler settings behind it.
func TestProfiles(t *testing.T) {
	s := shape()
	m := hardware.Machine{Memory: hardware.Memory{Total: 64 << 30, Available: 60 << 30}}
	perToken := int64(2 * 16 * 8 * 64 * 2)
	for _, tc := range []struct {
		name    string
		req     Request
		tokens  int64
		maxSeqs int
		pool    string
	}{
		{"desktop", Desktop(8192), 8192 + scheduler.ReserveTokens, scheduler.DesktopMaxSeqs, "1 conversation of 8192 tokens + a reserve of 512"},
		{"desktop default context", Desktop(0), scheduler.DefaultContext + scheduler.ReserveTokens, scheduler.DesktopMaxSeqs, "1 conversation of 4096 tokens"},
		{"serve 4", Request{Context: 8192, Parallel: 4}, 4 * 8192, scheduler.DefaultMaxSeqs, "4 parallel sequences of 8192 tokens"},
		{"serve 2, 8 at once", Request{Context: 8192, Parallel: 2, MaxSeqs: 8}, 2 * 8192, 8, "2 parallel sequences of 8192 tokens"},
		{"budget", Request{Context: 8192, KVBytes: 1000 * perToken}, 992, scheduler.DefaultMaxSeqs, "a budget of"},
		{"older default", Request{Context: 8192}, 4 * 8192, scheduler.DefaultMaxSeqs, "the scheduler's default pool for 16 sequences"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PlanFor(s, m, tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if int64(p.Breakdown.KVTokens) != tc.tokens || p.Breakdown.KV != tc.tokens*perToken {
				t.Errorf("pool of %d tokens (%d bytes), want %d", p.Breakdown.KVTokens, p.Breakdown.KV, tc.tokens)
			}
			if p.MaxSeqs != tc.maxSeqs {
				t.Errorf("%d sequences at once, want %d", p.MaxSeqs, tc.maxSeqs)
			}
			if !strings.HasPrefix(p.Pool, tc.pool) {
				t.Errorf("pool %q, want %q", p.Pool, tc.pool)
			}
			if lines := strings.Join(p.Explain(), "\n"); !strings.Contains(lines, "KV cache: "+p.Pool) {
				t.Errorf("the explanation does not name the pool:\n%s", lines)
			}
			// Bytes end to end: the budget, given back as the request's,
			// sizes the same pool.
			q, err := PlanFor(s, m, Request{Context: tc.req.Context, KVBytes: p.Breakdown.KVBudget, MaxSeqs: p.MaxSeqs})
			if err != nil {
				t.Fatal(err)
			}
			if q.Breakdown.KV != p.Breakdown.KV {
				t.Errorf("the budget %d sizes %d bytes, the profile %d", p.Breakdown.KVBudget, q.Breakdown.KV, p.Breakdown.KV)
			}
		})
	}
}

// TestTrainedContext checks that a context beyond the training context
// is warned about, and that the verdict and the largest context agree.
func TestTrainedContext(t *testing.T) {
	s := shape()
	s.ContextTrain = 4096
	m := hardware.Machine{Memory: hardware.Memory{Total: 64 << 30, Available: 60 << 30}}
	for _, tc := range []struct {
		ctx  int
		warn bool
	}{{0, false}, {2048, false}, {4096, false}, {8192, true}} {
		p, err := PlanFor(s, m, Desktop(tc.ctx))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Join(p.Explain(), "\n")
		if got := strings.Contains(lines, "exceeds the 4096 the model was trained with"); got != tc.warn {
			t.Errorf("context %d: warned %v, want %v:\n%s", tc.ctx, got, tc.warn, lines)
		}
		if p.MaxContext != 4096 {
			t.Errorf("context %d: largest context %d", tc.ctx, p.MaxContext)
		}
		if p.Verdict.Kind != WontFit && p.Request.Context > p.MaxContext && len(p.Warnings) == 0 {
			t.Errorf("context %d fits past the largest context %d without a word", p.Request.Context, p.MaxContext)
		}
	}
}
