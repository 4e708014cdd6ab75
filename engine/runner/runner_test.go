package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"saji/engine/chat"
	"saji/engine/fit"
	"saji/engine/gguf"
	"saji/engine/imagefile"
	"saji/engine/library"
	"saji/engine/offload"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
)

func TestMain(m *testing.M) { synthtest.Main(m) }

// tinyPath is the tiny llama (mini vocabulary, no chat template: ChatML)
// the tests share.
func tinyPath() (string, error) { return synthtest.Tiny("q8_0", 3) }

// tinyRunner is a runner holding the tiny model as "tiny", with a context
// of 128.
func tinyRunner(t *testing.T, cfg Config) *Runner {
	t.Helper()
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load(context.Background(), path, LoadOptions{Name: "tiny", Threads: 2,
		Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	r := New(cfg)
	r.Add(m)
	t.Cleanup(func() { r.Close() })
	return r
}

// TestStartValidates checks that every error in a request comes from
// Start, before anything is generated, with the error a caller reports.
func TestStartValidates(t *testing.T) {
	r := tinyRunner(t, Config{Aliases: map[string]string{"gpt-4o": "tiny"}})
	long := strings.Repeat("the cat sat on the mat ", 60)
	for _, tc := range []struct {
		name string
		req  Request
		want error
	}{
		{"unknown model", Request{Model: "nope", Prompt: "hi"}, ErrModelNotFound},
		{"empty prompt", Request{Model: "tiny", Tokens: []int32{}}, ErrBadRequest},
		{"bad sampling", Request{Model: "tiny", Prompt: "hi", Sampling: sample.Params{TopK: -1, TopP: 1, RepeatPenalty: 1}}, ErrBadRequest},
		{"token outside the vocabulary", Request{Model: "tiny", Tokens: []int32{1 << 30}}, ErrBadRequest},
		{"bad schema", Request{Model: "tiny", Prompt: "hi", JSON: true, JSONSchema: []byte(`{"type": 3}`)}, ErrBadRequest},
		{"bad grammar", Request{Model: "tiny", Prompt: "hi", Grammar: `root ::= "a`}, ErrBadRequest},
		{"grammar and schema", Request{Model: "tiny", Prompt: "hi", Grammar: `root ::= "a"`, JSON: true}, ErrBadRequest},
		{"an image to a model that cannot see", Request{Model: "tiny", Prompt: "what is this?", Images: []imagefile.Image{{Format: "png"}}}, ErrBadRequest},
		{"an image part to a model that cannot see", Request{Model: "tiny", Messages: []chat.Message{{Role: "user", Parts: []chat.ContentPart{{Type: "image", Image: &imagefile.Image{}}}}}}, ErrBadRequest},
		{"empty stop string", Request{Model: "tiny", Prompt: "hi", Stop: []string{""}}, ErrBadRequest},
		{"prompt over the context", Request{Model: "tiny", Prompt: long}, ErrContextLength},
		// Refused by its size, before tokenizing: the bytes of any
		// tokenization that fits are far fewer.
		{"a huge prompt", Request{Model: "tiny", Prompt: strings.Repeat("x", 2<<20)}, ErrContextLength},
		{"a huge chat", Request{Model: "tiny", Messages: []chat.Message{{Role: "user", Content: strings.Repeat("x", 2<<20)}}}, ErrContextLength},
		{"max tokens over the context", Request{Model: "tiny", Prompt: "hi", MaxTokens: 500}, ErrContextLength},
		{"prompt over the request's context", Request{Model: "tiny", Prompt: "the cat sat on the mat", Context: 4, CutAtContext: true}, ErrContextLength},
		{"max tokens over the request's context", Request{Model: "tiny", Prompt: "hi", Context: 16, MaxTokens: 100}, ErrContextLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := r.Start(context.Background(), tc.req)
			if !errors.Is(err, tc.want) {
				if s != nil {
					s.Close()
				}
				t.Fatalf("Start: %v, want %v", err, tc.want)
			}
		})
	}
}

// TestContextOverflowMessage checks that a prompt beyond the context is
// refused saying by how many tokens, and how to raise the context (or
// num_ctx, for a request's own smaller context).
func TestContextOverflowMessage(t *testing.T) {
	r := tinyRunner(t, Config{})
	m, _ := r.Model("tiny")
	ctx := context.Background()
	toks, err := m.Prompt(ctx, Request{Prompt: strings.Repeat("the cat sat on the mat ", 60)})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"the model's context", Request{Tokens: toks}, fmt.Sprintf("%d over the context of 128", len(toks)-127)},
		{"cut at the context", Request{Tokens: toks, MaxTokens: 10, CutAtContext: true}, "saji serve --ctx"},
		{"the request's context", Request{Tokens: toks[:20], Context: 16, CutAtContext: true}, "5 over the request's context of 16 (num_ctx)"},
		{"exactly full", Request{Tokens: toks[:128], CutAtContext: true}, "1 over the context of 128"},
	} {
		s, err := m.Start(ctx, tc.req)
		if s != nil {
			s.Close()
		}
		if !errors.Is(err, ErrContextLength) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want ErrContextLength saying %q", tc.name, err, tc.want)
		}
	}
	// A prompt of 127 tokens leaves room for one.
	res, err := m.Generate(ctx, Request{Tokens: toks[:127], MaxTokens: 50, CutAtContext: true, Sampling: sample.Greedy(), IgnoreEOS: true},
		func(Piece) error { return nil })
	if err != nil || res.CompletionTokens != 1 || res.Finish != "length" {
		t.Errorf("127 prompt tokens: %+v, %v", res, err)
	}
}

// TestStartRuns runs a generation through the runner: an alias and an
// Ollama-style tag resolve, the tokens a caller counted are used as they
// are, a request's own context cuts the generation short, and Close frees
// a stream never read.
func TestStartRuns(t *testing.T) {
	r := tinyRunner(t, Config{Aliases: map[string]string{"gpt-4o": "tiny"}})
	ctx := context.Background()
	for _, name := range []string{"tiny", "gpt-4o", "tiny:latest", ""} {
		m, err := r.Model(name)
		if err != nil || m.Name != "tiny" {
			t.Fatalf("Model(%q): %v, %v", name, m, err)
		}
	}
	m, _ := r.Model("tiny")
	toks, err := m.Prompt(ctx, Request{Messages: nil, Prompt: "the cat"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := r.Start(ctx, Request{Model: "gpt-4o", Tokens: toks, MaxTokens: 3, Sampling: sample.Greedy(), IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	if s.PromptTokens() != len(toks) || s.Model() != m {
		t.Errorf("stream of %d prompt tokens on %v", s.PromptTokens(), s.Model())
	}
	var pieces int
	res, err := s.Run(func(Piece) error { pieces++; return nil })
	if err != nil || res.CompletionTokens != 3 || res.Finish != "length" || res.PromptTokens != len(toks) {
		t.Errorf("Run: %+v, %v", res, err)
	}
	if _, err := s.Run(func(Piece) error { return nil }); err == nil {
		t.Error("a stream ran twice")
	}
	cut, err := m.Generate(ctx, Request{Tokens: toks, Context: len(toks) + 2, CutAtContext: true, MaxTokens: 50,
		Sampling: sample.Greedy(), IgnoreEOS: true}, func(Piece) error { return nil })
	if err != nil || cut.CompletionTokens != 2 {
		t.Errorf("a request's context of %d: %+v, %v", len(toks)+2, cut, err)
	}
	abandoned, err := m.Start(ctx, Request{Tokens: toks, MaxTokens: 50, Sampling: sample.Greedy(), IgnoreEOS: true})
	if err != nil {
		t.Fatal(err)
	}
	abandoned.Close()
	abandoned.Close()
	// The scheduler frees the sequence at its next step.
	for deadline := time.Now().Add(10 * time.Second); m.Busy(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("still busy after Close: %+v", m.Scheduler().Stats())
		}
	}
}

// TestObserve checks that observers hear of every generation's end,
// failed ones too, but not of requests refused as invalid, and that stop
// ends one observer alone.
func TestObserve(t *testing.T) {
	r := tinyRunner(t, Config{})
	var mu sync.Mutex
	var seen, other []error
	stop := r.Observe(func(m *Model, res Result, err error) {
		mu.Lock()
		seen = append(seen, err)
		mu.Unlock()
	})
	r.Observe(func(m *Model, res Result, err error) {
		mu.Lock()
		other = append(other, err)
		mu.Unlock()
	})
	ctx := context.Background()
	if _, err := r.Start(ctx, Request{Model: "tiny", Tokens: []int32{}}); err == nil {
		t.Fatal("an empty prompt started")
	}
	gone, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := r.Generate(gone, Request{Model: "tiny", Prompt: "the cat", MaxTokens: 2}, func(Piece) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	if _, err := r.Generate(ctx, Request{Model: "tiny", Prompt: "the cat", MaxTokens: 2}, func(Piece) error { return nil }); err != nil {
		t.Fatal(err)
	}
	stop()
	if _, err := r.Generate(ctx, Request{Model: "tiny", Prompt: "the cat", MaxTokens: 2}, func(Piece) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 2 || !errors.Is(seen[0], context.Canceled) || seen[1] != nil {
		t.Errorf("observed %v, want a cancellation then a success", seen)
	}
	if len(other) != 3 {
		t.Errorf("the other observer heard %d ends, want 3", len(other))
	}
}

// TestMemoryNeed checks the RAM a load is counted for: the fit planner's
// for the model and the runner's scheduler settings, less the share of the
// layers a GPU of its own holds, and all of it on unified memory.
func TestMemoryNeed(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	h, err := open(context.Background(), path, gguf.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.f.Close()
	discrete := offload.NewRegistry(offload.Platform{Name: "Fake"})
	unified := offload.NewRegistry(offload.Platform{Name: "Fake", Unified: true})
	sc := scheduler.Config{Context: 128, Parallel: 1}
	need := func(reg *offload.Registry, split offload.Split, onGPU bool) int64 {
		r := New(Config{Load: LoadOptions{GPU: reg, Scheduler: sc}})
		defer r.Close()
		return r.memoryNeed(h, split, onGPU)
	}
	all := need(discrete, offload.Split{Of: 4}, false)
	if want := fit.LoadRAM(&h.shape, h.st.Size(), fit.SchedulerRequest(sc, 0), false); all != want || all <= h.st.Size() {
		t.Fatalf("on the CPU: %d bytes, want the plan's %d (more than the file's %d)", all, want, h.st.Size())
	}
	half := need(discrete, offload.Split{Layers: 2, Of: 4}, true)
	whole := need(discrete, offload.Split{Layers: 4, Of: 4, Output: true}, true)
	if !(whole < half && half < all) {
		t.Errorf("all on the GPU %d, half %d, none %d: want less RAM with more layers on the GPU", whole, half, all)
	}
	if got := need(unified, offload.Split{Layers: 4, Of: 4, Output: true}, true); got != all {
		t.Errorf("unified memory: %d bytes, want all %d", got, all)
	}
	if got := need(discrete, offload.Split{Layers: 4, Of: 4}, false); got != all {
		t.Errorf("a split that will not be used: %d bytes, want all %d", got, all)
	}
}

// dirRunner is a runner over a models folder holding the tiny model as
// a.gguf and b.gguf, with a context of 128.
func dirRunner(t *testing.T, cfg Config) *Runner {
	t.Helper()
	cfg.ModelsDir = synthtest.Folder(t, "q8_0", 3, "a", "b")
	cfg.Load = LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}, GPU: cfg.Load.GPU, GPULayers: cfg.Load.GPULayers}
	r := New(cfg)
	t.Cleanup(func() { r.Close() })
	return r
}

// loadedNames lists r's loaded models.
func loadedNames(r *Runner) string {
	var names []string
	for _, m := range r.Models() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ",")
}

// ask runs a two-token generation on the model called name.
func ask(t *testing.T, r *Runner, name string) {
	t.Helper()
	if _, err := r.Generate(context.Background(), Request{Model: name, Prompt: "the cat", MaxTokens: 2}, func(Piece) error { return nil }); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

// TestLifecycle lists a folder's models without loading them, loads one
// on first use, makes room for another under MaxLoaded by unloading the
// least recently used idle one, unloads after a keep-alive, and refuses a
// name it does not have, naming the ones it has.
func TestLifecycle(t *testing.T) {
	r := dirRunner(t, Config{MaxLoaded: 1, KeepAlive: -1})
	if cat := r.Catalog(); len(cat) != 2 || cat[0].Name != "a" || loadedNames(r) != "" {
		t.Fatalf("catalog %v, loaded %q", cat, loadedNames(r))
	}
	ask(t, r, "a")
	if loadedNames(r) != "a" {
		t.Fatalf("loaded %q after a request to a", loadedNames(r))
	}
	time.Sleep(Grace + 100*time.Millisecond) // a is no longer "just used"
	ask(t, r, "b")
	if loadedNames(r) != "b" {
		t.Errorf("loaded %q after a request to b with room for one", loadedNames(r))
	}
	if _, err := r.Model("nope"); !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "a b") {
		t.Errorf("unknown model: %v", err)
	}
	m, _ := r.Model("b")
	m.SetKeepAlive(0)
	r.sweep(time.Now())
	if loadedNames(r) != "" || r.Unload("b") {
		t.Errorf("keep-alive 0: loaded %q", loadedNames(r))
	}
}

// TestClosedLoads checks that a load under way when the runner closes,
// and one asked for after, end with ErrClosed and leave no model loaded
// (the app closes its runner and opens another when its settings change),
// the first stopped by Close rather than run to its end.
func TestClosedLoads(t *testing.T) {
	var r *Runner
	var once sync.Once
	r = dirRunner(t, Config{KeepAlive: -1, Available: func() uint64 {
		once.Do(func() { r.Close() }) // as the load makes room: under way
		return 1 << 40
	}})
	if _, err := r.Model("a"); !errors.Is(err, ErrClosed) || !errors.Is(err, context.Canceled) {
		t.Errorf("a load under way at Close: %v, want it stopped (%v, %v)", err, ErrClosed, context.Canceled)
	}
	if _, err := r.Model("b"); !errors.Is(err, ErrClosed) {
		t.Errorf("a load after Close: %v", err)
	}
	if n := loadedNames(r); n != "" {
		t.Errorf("loaded %q after Close", n)
	}
}

// TestNoMmapReadsAfterRoom checks that a --no-mmap load reads its file
// into memory only once it has made room for it, not with the header it
// makes room by: a file taken away while the room is made (before any
// read, so) fails the load, and the same file put back loads.
func TestNoMmapReadsAfterRoom(t *testing.T) {
	var r *Runner
	var once sync.Once
	var moveErr error
	r = dirRunner(t, Config{KeepAlive: -1, Available: func() uint64 {
		once.Do(func() {
			p := filepath.Join(r.cfg.ModelsDir, "a.gguf")
			moveErr = os.Rename(p, p+".away")
		})
		return 1 << 40
	}})
	r.cfg.Load.Memory = gguf.OpenOptions{NoMmap: true}
	if _, err := r.Model("a"); err == nil || moveErr != nil {
		t.Fatalf("a file taken away as room was made: loaded (%v, moving it: %v)", err, moveErr)
	}
	p := filepath.Join(r.cfg.ModelsDir, "a.gguf")
	if err := os.Rename(p+".away", p); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Model("a"); err != nil || loadedNames(r) != "a" {
		t.Fatalf("loading it put back: %v (loaded %q)", err, loadedNames(r))
	}
}

// TestMemoryEviction unloads an idle model when memory is short of the
// next one, even under MaxLoaded.
func TestMemoryEviction(t *testing.T) {
	var avail atomic.Uint64
	avail.Store(1 << 40)
	r := dirRunner(t, Config{MaxLoaded: 4, KeepAlive: -1, Available: avail.Load})
	ask(t, r, "a")
	time.Sleep(Grace + 100*time.Millisecond)
	avail.Store(1) // nothing left
	ask(t, r, "b")
	if loadedNames(r) != "b" {
		t.Errorf("loaded %q: a should have made room", loadedNames(r))
	}
}

// TestLibrary runs a library holding the tiny model by reference: it is
// listed without loading, and a request naming it loads it.
func TestLibrary(t *testing.T) {
	path, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	lib, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e, err := lib.Import(context.Background(), path, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := New(Config{Library: lib, Load: LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
	defer r.Close()
	cat := r.Catalog()
	if len(cat) != 1 || cat[0].Name != e.Name || cat[0].Path != path || cat[0].Info.Arch == "" {
		t.Fatalf("catalog %+v, want the library's %q", cat, e.Name)
	}
	if loadedNames(r) != "" {
		t.Fatalf("loaded %q before any request", loadedNames(r))
	}
	m, err := r.Model(e.Name)
	if err != nil {
		t.Fatal(err)
	}
	if m.Path != path || loadedNames(r) != e.Name {
		t.Errorf("loaded %q from %s", loadedNames(r), m.Path)
	}
	if _, err := r.Model("missing"); err == nil {
		t.Error("a name the library does not hold loaded")
	}
	if !r.Unload(e.Name) || loadedNames(r) != "" || r.Unload(e.Name) {
		t.Errorf("Unload left %q loaded", loadedNames(r))
	}
	// An alias of the library's (the name a model was pulled as) loads the
	// model under its own name, once for both names.
	const alias = "hf.co/owner/repo-GGUF:Q8_0"
	if err := lib.SetAlias(alias, e.Name); err != nil {
		t.Fatal(err)
	}
	byAlias, err := r.Model(alias)
	if err != nil || byAlias.Name != e.Name || loadedNames(r) != e.Name {
		t.Fatalf("Model(alias): %v, %v; loaded %q", byAlias, err, loadedNames(r))
	}
	if byName, _ := r.Model(e.Name); byName != byAlias {
		t.Error("the alias and the name loaded two models")
	}
	if _, err := r.Model("hf.co/owner/other:Q8_0"); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("an unknown name with a slash: %v", err)
	}
}

// TestGrammarRequest generates under a grammar, four requests at once
// (they share the model's token trie): each text is a sentence of the
// grammar, ended when complete, at any temperature.
func TestGrammarRequest(t *testing.T) {
	r := tinyRunner(t, Config{})
	re := regexp.MustCompile(`^(cat|dog)s? [0-9]{1,3}!$`)
	var wg sync.WaitGroup
	for seed := range int64(4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := sample.Defaults()
			p.Seed, p.Temperature = seed, 1.2
			s, err := r.Start(context.Background(), Request{Model: "tiny", Prompt: "hi", MaxTokens: 40, Sampling: p,
				Grammar: "root ::= animal \"s\"? \" \" [0-9]{1,3} \"!\"\nanimal ::= \"cat\" | \"dog\""})
			if err != nil {
				t.Error(err)
				return
			}
			var text strings.Builder
			res, err := s.Run(func(pc Piece) error { text.WriteString(pc.Text); return nil })
			if err != nil {
				t.Error(err)
				return
			}
			if !re.MatchString(text.String()) || res.Finish != "stop" {
				t.Errorf("seed %d: %q (%s)", seed, text.String(), res.Finish)
			}
		}()
	}
	wg.Wait()
}

// TestPromptBytes checks that a prompt too long for any tokenization to
// fit is refused by its size, before it is tokenized.
func TestPromptBytes(t *testing.T) {
	r := tinyRunner(t, Config{})
	m, err := r.Model("tiny")
	if err != nil {
		t.Fatal(err)
	}
	most := m.promptBytesMost()
	for _, n := range []int{most, most + 1} {
		_, err := m.Prompt(context.Background(), Request{Prompt: strings.Repeat("x", n)})
		bySize := err != nil && strings.Contains(err.Error(), "bytes, more than the context")
		if bySize != (n > most) || (err != nil && !errors.Is(err, ErrContextLength)) {
			t.Errorf("%d bytes (most %d): %v", n, most, err)
		}
	}
}

// TestLoadHostileTemplate checks that a model whose chat template runs
// past its bounds on any chat is refused at load, with the reason, while
// one that merely cannot chat still loads for raw completions.
func TestLoadHostileTemplate(t *testing.T) {
	tests := []struct {
		name, tmpl string
		want       string // "" loads
	}{
		{"loops without end", `{% for i in range(10**12) %}{% for j in range(10**12) %}x{% endfor %}{% endfor %}`, "limit exceeded"},
		{"refuses every chat", `{{ raise_exception("no chat here") }}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := synth.WriteChat(context.Background(), path, "q8_0", tt.tmpl, nil, 1); err != nil {
				t.Fatal(err)
			}
			m, err := Load(context.Background(), path, LoadOptions{Threads: 1})
			if m != nil {
				defer m.Close()
			}
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "chat template")):
				t.Errorf("load: %v, want an error about the chat template with %q", err, tt.want)
			}
		})
	}
}
