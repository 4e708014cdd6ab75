package server

import (
	"context"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"testing"

	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/tokenizer"
	"saji/internal/refdata"
)

// TestFillInTheMiddle builds the FIM prompt of a model that has the tokens
// (the synthetic tiny model with StarCoder's vocabulary from the reference
// data) and serves suffix requests; a model without them gets a 400.
func TestFillInTheMiddle(t *testing.T) {
	dir := refdata.Dir(t)
	vocab, err := gguf.Open(filepath.Join(dir, "vocab", "ggml-vocab-starcoder.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, _ := synth.LookupShape("tiny")
	ft, _ := synth.ParseFileType("q8_0")
	path := filepath.Join(t.TempDir(), "coder.gguf")
	if err := synth.Write(context.Background(), path, synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 5, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: "coder", Threads: 2, Scheduler: scheduler.Config{Context: 256}})
	if err != nil {
		t.Fatal(err)
	}
	if !m.CanInsert() {
		t.Fatal("the StarCoder vocabulary has FIM tokens, but the model says it cannot insert")
	}
	toks, err := m.Prompt(context.Background(), runner.Request{Prompt: "def f(x):\n    return ", Suffix: "\n\nprint(f(2))"})
	if err != nil {
		t.Fatal(err)
	}
	tk := m.Tokenizer()
	pre, suf, mid := tk.ID(tokenizer.SpecialFIMPre), tk.ID(tokenizer.SpecialFIMSuf), tk.ID(tokenizer.SpecialFIMMid)
	if !slices.Contains(toks, pre) || !slices.Contains(toks, suf) || toks[len(toks)-1] != mid ||
		slices.Index(toks, pre) > slices.Index(toks, suf) {
		t.Errorf("FIM prompt %v (pre %d, suf %d, mid %d)", toks, pre, suf, mid)
	}
	s := New(Config{})
	s.Runner().Add(m)
	hs := httptest.NewServer(s.Handler())
	defer hs.Close()
	defer s.Close()
	status, v := post(t, hs.URL+"/v1/completions", `{"model":"coder","prompt":"def f(x):\n    return ","suffix":"\n","max_tokens":4,"temperature":0}`)
	if status != 200 {
		t.Errorf("suffix: %d %v", status, v)
	}
	status, v = post(t, hs.URL+"/api/generate", `{"model":"coder","prompt":"def f(x):","suffix":"\n","stream":false,"options":{"num_predict":3}}`)
	if status != 200 {
		t.Errorf("ollama suffix: %d %v", status, v)
	}
	_, tiny := newTestServer(t, Config{})
	if status, _ := post(t, tiny.URL+"/v1/completions", `{"model":"tiny","prompt":"a","suffix":"b"}`); status != 400 {
		t.Errorf("a model without FIM tokens: status %d", status)
	}
}
