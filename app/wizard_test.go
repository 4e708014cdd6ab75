package app

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/units"
)

const gib = 1 << 30

// testMachine is a CPU-only machine with total and available bytes of RAM
// and a measured bandwidth, plus the GPUs given.
func testMachine(total, avail uint64, gpus ...hardware.GPU) hardware.Machine {
	m := hardware.Machine{CPU: hardware.CPU{Model: "Test CPU", Cores: 8, Threads: 16, Arch: "amd64",
		Features: []string{"avx2", "fma"}}, Memory: hardware.Memory{Total: total, Available: avail},
		Bandwidth: 50e9, GPUs: gpus}
	if len(gpus) == 0 {
		m.Notes = []string{"no NVIDIA driver (libnvidia-ml.so.1 not found)"}
	}
	return m
}

func pickTitles(picks []modelPick) []string {
	var out []string
	for _, p := range picks {
		out = append(out, p.Candidate.Title+" "+p.Level)
	}
	return out
}

func hasTitle(picks []modelPick, title string) bool {
	for _, p := range picks {
		if p.Candidate.Title == title {
			return true
		}
	}
	return false
}

// TestRecommendModels checks the picks per machine and use.
func TestRecommendModels(t *testing.T) {
	gpu := hardware.GPU{Vendor: "nvidia", Name: "Test GPU", Total: 8 * gib, Free: 7 * gib}
	tests := []struct {
		name    string
		m       hardware.Machine
		use     useCase
		want    []string // titles that must be picked
		notWant []string // titles that must not
		maxSize int64    // the largest file a pick may have (0: any)
		kinds   []fit.VerdictKind
	}{
		{"chat on 24 GB", testMachine(24*gib, 18*gib), useChat,
			[]string{"Qwen2.5 7B Instruct", "Gemma 3 12B Instruct", "Llama 3.2 3B Instruct"}, []string{"Llama 3.3 70B Instruct"}, 0,
			[]fit.VerdictKind{fit.CPUOnly}},
		{"chat on 4 GB", testMachine(4*gib, 3*gib), useChat,
			[]string{"Qwen2.5 0.5B Instruct", "Llama 3.2 1B Instruct"}, []string{"Qwen2.5 7B Instruct", "Gemma 3 12B Instruct", "Llama 3.3 70B Instruct"},
			3 * gib, []fit.VerdictKind{fit.CPUOnly}},
		{"coding on 24 GB", testMachine(24*gib, 18*gib), useCoding,
			[]string{"Qwen2.5 Coder 7B Instruct", "Qwen2.5 Coder 14B Instruct"}, []string{"Qwen2.5 7B Instruct"}, 0, nil},
		{"long documents on 8 GB", testMachine(8*gib, 6*gib), useLong,
			[]string{"Qwen2.5 1.5B Instruct"}, []string{"Gemma 3 12B Instruct"}, 6 * gib, nil},
		{"GPU machine", testMachine(32*gib, 24*gib, gpu), useChat,
			[]string{"Qwen2.5 7B Instruct", "Qwen2.5 0.5B Instruct"}, []string{"Llama 3.3 70B Instruct"}, 0,
			[]fit.VerdictKind{fit.FullGPU, fit.PartialGPU}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			picks, _ := recommendModels(tt.m, tt.use)
			for _, w := range tt.want {
				if !hasTitle(picks, w) {
					t.Errorf("no %s in %v", w, pickTitles(picks))
				}
			}
			for _, w := range tt.notWant {
				if hasTitle(picks, w) {
					t.Errorf("%s in %v", w, pickTitles(picks))
				}
			}
			kinds := map[fit.VerdictKind]bool{}
			for _, p := range picks {
				kinds[p.Plan.Verdict.Kind] = true
				if tt.maxSize > 0 && p.Plan.Model.FileSize > tt.maxSize {
					t.Errorf("%s %s (%d bytes) on a small machine", p.Candidate.Title, p.Level, p.Plan.Model.FileSize)
				}
				if p.Plan.Request.Context != useCases[tt.use].context {
					t.Errorf("%s planned for %d tokens", p.Candidate.Title, p.Plan.Request.Context)
				}
				lines := strings.Join(p.Plan.Explain(), "\n")
				if !strings.Contains(lines, "Weights:") || !strings.Contains(lines, "KV cache") || !strings.Contains(lines, "Verdict:") {
					t.Errorf("%s breakdown %q", p.Candidate.Title, lines)
				}
				text, _ := verdictLine(p.Plan)
				if text == "won't fit" || text == "" {
					t.Errorf("%s verdict %q", p.Candidate.Title, text)
				}
			}
			for _, k := range tt.kinds {
				if !kinds[k] {
					t.Errorf("no pick is %v: %v", k, pickTitles(picks))
				}
			}
		})
	}
}

// TestCandidateShapes checks that the built-in shapes add up to the
// published file sizes.
func TestCandidateShapes(t *testing.T) {
	for _, c := range candidates {
		for _, q := range c.quants() {
			level := q.Name
			s := c.shape(level)
			w := s.WeightBytes()
			if w <= 0 || w > s.FileSize || float64(w) < 0.95*float64(s.FileSize) {
				t.Errorf("%s %s: weights %d of a %d-byte file", c.Title, level, w, s.FileSize)
			}
			if len(s.LayerBytes) != c.Layers || len(s.KVHeads) != c.Layers || s.LayerBytes[0] <= 0 {
				t.Errorf("%s %s: shape %+v", c.Title, level, s)
			}
		}
	}
}

func TestVerdictLine(t *testing.T) {
	const gb = 1_000_000_000
	p := fit.Plan{Model: fit.ModelShape{Layers: 32}, MaxContext: 32768,
		Machine:   hardware.Machine{Memory: hardware.Memory{Total: 24 * gb, Available: 20 * gb}},
		Breakdown: fit.Breakdown{RAM: 5 * gb, Total: 5 * gb}}
	tests := []struct {
		v    fit.Verdict
		tps  float64
		want string
		imp  widget.Importance
	}{
		{fit.Verdict{Kind: fit.CPUOnly}, 12, "Fits: about 12 tokens/s, 5.0 GB of 20 GB free.", widget.SuccessImportance},
		{fit.Verdict{Kind: fit.CPUOnly}, 1.5, "Runs, slowly: about 1.5 tokens/s, 5.0 GB of 20 GB free.", widget.WarningImportance},
		{fit.Verdict{Kind: fit.CPUOnly, Tight: true}, 12, "Tight: needs 5.0 GB, 20 GB free; close other programs first.", widget.WarningImportance},
		{fit.Verdict{Kind: fit.PartialGPU, GPULayers: 20}, 0, "Fits partly on the GPU (20 of 32 layers): 5.0 GB of 20 GB free.", widget.SuccessImportance},
		{fit.Verdict{Kind: fit.WontFit}, 0, "Too big: needs 5.0 GB, this computer has 24 GB.", widget.DangerImportance},
	}
	for _, tt := range tests {
		p.Verdict, p.DecodeTokensPerSec = tt.v, tt.tps
		if got, imp := verdictLine(p); got != tt.want || imp != tt.imp {
			t.Errorf("%v at %v tokens/s: %q (%v), want %q (%v)", tt.v, tt.tps, got, imp, tt.want, tt.imp)
		}
	}
	// Past the trained context, the verdict stays one sentence; the
	// details say it.
	p.Verdict, p.DecodeTokensPerSec, p.Model.ContextTrain, p.MaxContext, p.Request.Context = fit.Verdict{Kind: fit.CPUOnly}, 12, 4096, 4096, 8192
	want := "Fits: about 12 tokens/s, 5.0 GB of 20 GB free."
	if got, _ := verdictLine(p); got != want {
		t.Errorf("past the trained context: %q, want %q", got, want)
	}
}

// TestWizard opens the wizard on an injected machine and switches uses.
func TestWizard(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.core.detect = func(context.Context) (hardware.Machine, error) { return testMachine(24*gib, 18*gib), nil }
	w := u.showWizard()
	waitFor(t, "the machine", func() bool { return w.snapshot().Known })
	s := w.snapshot()
	for _, want := range []string{"Test CPU, 8 cores (16 threads)", units.Bytes(int64(24 * gib)), "GPU: none that Saji can use", "50 GB/s"} {
		if !strings.Contains(s.Machine, want) {
			t.Errorf("machine text %q lacks %q", s.Machine, want)
		}
	}
	// The CPU's instruction sets and the detection's notes are details,
	// behind Technical details.
	for _, notWant := range []string{"AVX2", "libnvidia-ml", "NVIDIA driver"} {
		if strings.Contains(s.Machine, notWant) {
			t.Errorf("machine text %q says %q", s.Machine, notWant)
		}
	}
	if d := w.techText.Text; !strings.Contains(d, "AVX2") || !strings.Contains(d, "no NVIDIA driver") || !w.tech.Visible() || w.tech.Items[0].Open {
		t.Errorf("technical details %q (shown %v)", d, w.tech.Visible())
	}
	check := func(use string, want, notWant string) {
		t.Helper()
		s := w.snapshot()
		if s.Use != use || len(s.Picks) == 0 {
			t.Fatalf("use %q picks %+v", s.Use, s.Picks)
		}
		found := false
		for _, p := range s.Picks {
			found = found || p.Title == want
			if p.Title == notWant {
				t.Errorf("%s recommended for %s", notWant, use)
			}
			if !strings.Contains(p.Breakdown, "Weights:") || !strings.Contains(p.Breakdown, "Largest context that fits") {
				t.Errorf("%s breakdown %q", p.Title, p.Breakdown)
			}
			if !findLabel(w.picks, p.Verdict) {
				t.Errorf("the verdict %q is not shown", p.Verdict)
			}
		}
		if !found {
			t.Errorf("%s not recommended for %s: %+v", want, use, s.Picks)
		}
	}
	check("Chat", "Qwen2.5 7B Instruct", "Llama 3.3 70B Instruct")
	w.use.SetSelected("Coding")
	check("Coding", "Qwen2.5 Coder 7B Instruct", "Qwen2.5 7B Instruct")
	w.use.SetSelected("Long documents")
	check("Long documents", "Qwen2.5 3B Instruct", "Qwen2.5 Coder 7B Instruct")
}

// TestWizardOpenInDiscover opens a pick's repository in Discover.
func TestWizardOpenInDiscover(t *testing.T) {
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	u.discover.locked(func() { u.openInDiscover(tinyRepo) })
	waitFor(t, "the repository", func() bool { s := u.discover.snapshot(); return s.Repo == tinyRepo && s.RepoLoaded })
	if u.tabs.SelectedIndex() != tabDiscover || u.discover.query.Text != tinyRepo {
		t.Errorf("tab %d query %q", u.tabs.SelectedIndex(), u.discover.query.Text)
	}
}

// TestDiscoverPlannerVerdicts checks that the quant table's verdicts come
// from the planner for a level whose header is a real model (read over
// Range requests), and from the RAM check for the others.
func TestDiscoverPlannerVerdicts(t *testing.T) {
	_, q4 := discoverHub(t)
	u := newDiscoverUI(t, "", q4)
	u.core.detect = func(context.Context) (hardware.Machine, error) { return testMachine(16*gib, 8*gib), nil }
	v := u.discover
	showDiscover(t, u)
	openDiscoverRepo(t, v, tinyRepo)
	waitFor(t, "the plan of Q4_K_M", func() bool {
		s := v.snapshot()
		return len(s.Levels) == 4 && s.Levels[1].Plan != nil
	})
	v.wait()
	s := v.snapshot()
	q := s.Levels[1]
	if q.Name != "Q4_K_M" || !strings.HasPrefix(q.Fit, "Fits · ") || !strings.Contains(q.Fit, "tok/s") {
		t.Errorf("Q4_K_M: %+v", q)
	}
	if q.Plan.Model.FileSize != q4 || q.Plan.Machine.Memory != fakeMemoryValue(q4) {
		t.Errorf("plan of %d bytes on %+v", q.Plan.Model.FileSize, q.Plan.Machine.Memory)
	}
	if ex := strings.Join(q.Plan.Explain(), "\n"); !strings.Contains(ex, "Weights:") || !strings.Contains(ex, "KV cache") {
		t.Errorf("breakdown %q", ex)
	}
	for _, i := range []int{0, 2, 3} { // random bytes: no header, the RAM check stays
		if s.Levels[i].Plan != nil || s.Levels[i].Fit != "" {
			t.Errorf("level %s planned: %+v", s.Levels[i].Name, s.Levels[i])
		}
	}
	v.locked(func() {
		if !findLabel(v.quantTable, q.Fit) || !findLabel(v.quantTable, "Tight") {
			t.Errorf("the quant table does not show %q and the RAM checks", q.Fit)
		}
		// The recommendation says why, in one sentence.
		if !strings.HasPrefix(v.recommend.Text, "Recommended: Q4_K_M: the usual best balance of size and quality, and it fits the ") || !v.recommend.Visible() {
			t.Errorf("the sentence above the quant table does not say why Q4_K_M is recommended: %q", v.recommend.Text)
		}
		c := v.fitCells[1]
		if c == nil || !c.details.Visible() || c.plan == nil {
			t.Fatal("no details button for Q4_K_M")
		}
		test.Tap(c.details)
	})
}

// fakeMemoryValue is fakeMemory(q4)'s memory.
func fakeMemoryValue(q4 int64) hardware.Memory {
	m, _ := fakeMemory(q4)()
	return m
}

// recordHandler keeps the records logged through it.
type recordHandler struct {
	mu      sync.Mutex
	records []slog.Record
}

func (h *recordHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *recordHandler) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, r.Clone())
	return nil
}
func (h *recordHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *recordHandler) WithGroup(string) slog.Handler      { return h }

// find returns the attributes of the first record with message msg.
func (h *recordHandler) find(msg string) (map[string]slog.Value, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.records {
		if r.Message != msg {
			continue
		}
		attrs := map[string]slog.Value{}
		r.Attrs(func(a slog.Attr) bool { attrs[a.Key] = a.Value; return true })
		return attrs, true
	}
	return nil, false
}

// TestFitCheckAfterLoad loads the tiny model through the chat's path and
// checks that its first reply logs and returns the comparison, and the
// second does not.
func TestFitCheckAfterLoad(t *testing.T) {
	c := newTestCore(t)
	h := &recordHandler{}
	c.log = slog.New(h)
	c.detect = func(context.Context) (hardware.Machine, error) { return testMachine(16*gib, 8*gib), nil }
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := ReplyRequest{Model: e.Name, Messages: []chat.Message{{Role: "user", Content: "Hello there"}},
		Settings: store.Settings{MaxTokens: 16}}
	stats, err := c.Generate(context.Background(), req, func(Update) {})
	if err != nil {
		t.Fatal(err)
	}
	m := stats.Fit
	if m == nil {
		t.Fatal("no fit check after the first reply")
	}
	if m.Tokens <= stats.Tokens || m.Predicted <= 0 || m.Baseline <= 0 || m.PredictedTokensPerSec <= 0 || m.DecodeTokensPerSec <= 0 {
		t.Errorf("fit check %+v", m)
	}
	// The tiny model is a few megabytes: what the process gained is small.
	if m.RSS > 2<<30 || m.RSS < -(256<<20) || m.Predicted > 256<<20 {
		t.Errorf("implausible figures for the tiny model: %+v", m)
	}
	attrs, ok := h.find("app: fit check")
	if !ok {
		t.Fatal("no 'app: fit check' record")
	}
	for _, k := range []string{"predicted_mb", "measured_mb", "predicted_tps", "measured_tps"} {
		if _, ok := attrs[k]; !ok {
			t.Errorf("the record lacks %s: %v", k, attrs)
		}
	}
	if attrs["predicted_tps"].Float64() <= 0 || attrs["measured_tps"].Float64() <= 0 {
		t.Errorf("speeds %v", attrs)
	}
	if txt := fitCheckText(m); !strings.HasPrefix(txt, "This model ") || !strings.Contains(txt, "tokens/s") || strings.Contains(txt, "predicted") {
		t.Errorf("line %q", txt)
	}
	stats, err = c.Generate(context.Background(), req, func(Update) {})
	if err != nil || stats.Fit != nil {
		t.Errorf("second reply: fit %+v, err %v", stats.Fit, err)
	}
}
