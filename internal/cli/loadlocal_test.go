package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// tinyModelFile writes the synthetic tiny llama with the mini vocabulary.
func tinyModelFile(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	ctx := context.Background()
	vp := filepath.Join(dir, "vocab.gguf")
	if err := synth.WriteMiniVocab(ctx, vp); err != nil {
		t.Fatal(err)
	}
	vocab, err := gguf.Open(vp)
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	shape, _ := synth.LookupShape("tiny")
	ft, _ := synth.ParseFileType("q8_0")
	mp := filepath.Join(dir, "tiny.gguf")
	if err := synth.Write(ctx, mp, synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 1, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	return mp
}

// TestLoadtestLocal drives the in-process scheduler: every request
// completes with the asked lengths, the shared prefix is served from the
// prefix cache, and the KV cache figures are reported.
func TestLoadtestLocal(t *testing.T) {
	path := tinyModelFile(t)
	out, err := runWithInput(t, "", "loadtest", "--model", path, "--requests", "5", "--concurrency", "1",
		"--prompt-len", "8", "--output-len", "6", "--shared-prefix", "40", "--threads", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Completed    int      `json:"completed"`
		Failed       int      `json:"failed"`
		TotalInput   int      `json:"total_input_tokens"`
		TotalOutput  int      `json:"total_output_tokens"`
		Notes        []string `json:"notes"`
		MeanTTFTms   float64  `json:"mean_ttft_ms"`
		Endpoint     string   `json:"endpoint"`
		MaxConcurent *int     `json:"max_concurrency"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if s.Completed != 5 || s.Failed != 0 || s.TotalOutput != 30 {
		t.Errorf("completed %d, failed %d, output tokens %d", s.Completed, s.Failed, s.TotalOutput)
	}
	// BOS + 40 + 8 tokens each: the prefix's first two blocks (32 tokens) come
	// from the cache for the last four.
	if s.TotalInput != 5*49 {
		t.Errorf("input tokens %d, want %d", s.TotalInput, 5*49)
	}
	notes := strings.Join(s.Notes, "\n")
	for _, want := range []string{"128 of 245 prompt tokens served from the cache", "KV cache utilisation", "shared prefix: TTFT of the first request"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}
