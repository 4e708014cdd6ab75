package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/synth/synthtest"
	"saji/engine/tokenizer"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

func TestLookup(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tokens []int32
		n      int
		want   []int32
	}{
		{"no repeat", []int32{1, 2, 3, 4}, 3, nil},
		{"one token", []int32{7}, 3, nil},
		{"the continuation of a 4-gram", []int32{1, 2, 3, 4, 5, 6, 9, 1, 2, 3, 4}, 2, []int32{5, 6}},
		{"the longest n-gram wins over a later shorter one", []int32{1, 2, 3, 8, 0, 3, 9, 1, 2, 3}, 2, []int32{8, 0}},
		{"the latest occurrence", []int32{5, 1, 5, 2, 5}, 3, []int32{2, 5}},
		{"cut at the end", []int32{1, 2, 1}, 5, []int32{2, 1}},
		{"a run of one token", []int32{4, 4, 4}, 4, []int32{4}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lookup{}.Draft(context.Background(), tc.tokens, tc.n)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Draft(%v, %d) = %v, %v; want %v", tc.tokens, tc.n, got, err, tc.want)
			}
		})
	}
}

func TestPickDraft(t *testing.T) {
	target := DraftCandidate{Path: "8b.gguf", VocabHash: 7, Size: 8000}
	for _, tc := range []struct {
		name   string
		models []DraftCandidate
		want   string
	}{
		{"none", nil, ""},
		{"only itself", []DraftCandidate{target}, ""},
		{"another vocabulary", []DraftCandidate{{"other.gguf", 8, 800}}, ""},
		{"an unknown vocabulary", []DraftCandidate{{"unknown.gguf", 0, 800}}, ""},
		{"too big", []DraftCandidate{{"4b.gguf", 7, 4000}}, ""},
		{"a quarter", []DraftCandidate{{"2b.gguf", 7, 2000}}, "2b.gguf"},
		{"nearest a tenth", []DraftCandidate{{"2b.gguf", 7, 2000}, {"1b.gguf", 7, 900}, {"tiny.gguf", 7, 50}}, "1b.gguf"},
		{"a tenth over a twentieth", []DraftCandidate{{"half.gguf", 7, 400}, {"tenth.gguf", 7, 800}}, "tenth.gguf"},
		{"the smaller of two as near", []DraftCandidate{{"a.gguf", 7, 1600}, {"b.gguf", 7, 400}}, "b.gguf"},
		{"no size", []DraftCandidate{{"empty.gguf", 7, 0}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := PickDraft(target, tc.models)
			if ok != (tc.want != "") || got.Path != tc.want {
				t.Errorf("PickDraft = %q, %v; want %q", got.Path, ok, tc.want)
			}
		})
	}
}

// tokenizerOf reads the tokenizer of the GGUF file at path.
func tokenizerOf(t *testing.T, path string) *tokenizer.Tokenizer {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tk, err := tokenizer.FromGGUF(f)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// TestDraftVocab checks that a draft of another vocabulary is refused,
// with the difference named, at load and by CheckDraftVocab, and that the
// same vocabulary has the same VocabHash.
func TestDraftVocab(t *testing.T) {
	target, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(refdata.Dir(t), "models", "stories260K.gguf")
	a, b := tokenizerOf(t, target), tokenizerOf(t, other)
	if err := CheckDraftVocab(a, a); err != nil {
		t.Errorf("the same vocabulary: %v", err)
	}
	err = CheckDraftVocab(a, b)
	if !errors.Is(err, ErrDraftVocab) || !strings.Contains(err.Error(), "tokens") {
		t.Errorf("another vocabulary: %v", err)
	}
	if VocabHash(a) == VocabHash(b) || VocabHash(a) != VocabHash(tokenizerOf(t, target)) {
		t.Error("VocabHash does not tell the vocabularies apart")
	}
	_, err = Load(context.Background(), target, LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128},
		Speculative: Speculative{Draft: other}})
	if !errors.Is(err, ErrDraftVocab) || !strings.Contains(err.Error(), "stories260K") {
		t.Errorf("load with a draft of another vocabulary: %v", err)
	}
}

// TestSpeculativeRunner generates through the runner with a draft model
// (the target's weights at a smaller type) and with prompt lookup: the
// text is the plain text, and the result counts the drafts.
func TestSpeculativeRunner(t *testing.T) {
	target, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	draft, err := synthtest.Tiny("q4_k_m", 3)
	if err != nil {
		t.Fatal(err)
	}
	prompt := "the cat sat on the mat and the dog sat on the log, the cat sat on the"
	for _, tc := range []struct {
		sp  Speculative
		mem gguf.OpenOptions
	}{
		{Speculative{Draft: draft, DraftMax: 4}, gguf.OpenOptions{}},
		{Speculative{Lookup: true}, gguf.OpenOptions{}},
		{Speculative{Draft: draft, DraftMax: 16, DraftMin: 2}, gguf.OpenOptions{}},
		// Both files read into memory (--no-mmap), as saji bench's speed
		// figures want them.
		{Speculative{Draft: draft, DraftMax: 4}, gguf.OpenOptions{NoMmap: true}},
	} {
		sp := tc.sp
		m, err := Load(context.Background(), target, LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2},
			Speculative: sp, Memory: tc.mem})
		if err != nil {
			t.Fatal(err)
		}
		gen := func(noDraft bool) (string, Result) {
			var sb strings.Builder
			res, err := m.Generate(context.Background(), Request{Prompt: prompt, MaxTokens: 24, IgnoreEOS: true, NoDraft: noDraft},
				func(p Piece) error { sb.WriteString(p.Text); return nil })
			if err != nil {
				t.Fatal(err)
			}
			return sb.String(), res
		}
		plain, pres := gen(true)
		for range 2 { // the second reuses the draft's session
			text, res := gen(false)
			if text != plain || res.CompletionTokens != pres.CompletionTokens {
				t.Errorf("%+v: %q (%d tokens), plain %q (%d)", sp, text, res.CompletionTokens, plain, pres.CompletionTokens)
			}
			if res.DraftTokens == 0 || res.AcceptedTokens > res.DraftTokens || pres.DraftTokens != 0 {
				t.Errorf("%+v: %d of %d draft tokens accepted; plain %d", sp, res.AcceptedTokens, res.DraftTokens, pres.DraftTokens)
			}
			t.Logf("%+v: acceptance %.2f of %d", sp, res.AcceptanceRate(), res.DraftTokens)
		}
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAutoDraft loads a model of a folder that also holds a copy of it at
// a quarter of its size or less, of the same vocabulary: with AutoDraft
// the copy drafts for it, and the reply is the one the model gives alone.
func TestAutoDraft(t *testing.T) {
	big, small := draftPair(t)
	dir := linkFolder(t, map[string]string{"big": big, "small": small})
	var texts []string
	for _, auto := range []bool{false, true} {
		r := New(Config{ModelsDir: dir, AutoDraft: auto,
			Load: LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
		m, err := r.Model("big")
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		res, err := m.Generate(context.Background(), Request{Prompt: "the cat sat on the mat", MaxTokens: 16, IgnoreEOS: true,
			Sampling: sample.Greedy()}, func(p Piece) error { sb.WriteString(p.Text); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if auto != (res.DraftTokens > 0) {
			t.Errorf("AutoDraft %v: %d draft tokens", auto, res.DraftTokens)
		}
		texts = append(texts, sb.String())
		if err := r.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if texts[0] != texts[1] {
		t.Errorf("with the draft %q, alone %q", texts[1], texts[0])
	}
}

// TestAutoDraftFails pairs a model with a small file of its vocabulary
// that cannot run (a weight of a type no kernel computes): the model loads
// without a draft and replies.
func TestAutoDraftFails(t *testing.T) {
	big, small := draftPair(t)
	bad := filepath.Join(t.TempDir(), "bad.gguf")
	if err := synth.WriteEdited(context.Background(), small, bad, synth.Edit{Types: map[string]quant.Type{"blk.0.ffn_up.weight": quant.TypeQ1_0}}); err != nil {
		t.Fatal(err)
	}
	dir := linkFolder(t, map[string]string{"big": big, "bad": bad})
	r := New(Config{ModelsDir: dir, AutoDraft: true,
		Load: LoadOptions{Threads: 2, Scheduler: scheduler.Config{Context: 128, MaxSeqs: 2}}})
	defer r.Close()
	if d := r.pickDraft(mustOpen(t, big), "big"); filepath.Base(d) != "bad.gguf" {
		t.Fatalf("paired with %q, want bad.gguf", d)
	}
	m, err := r.Model("big")
	if err != nil {
		t.Fatal(err)
	}
	res, err := m.Generate(context.Background(), Request{Prompt: "the cat", MaxTokens: 4, IgnoreEOS: true, Sampling: sample.Greedy()},
		func(Piece) error { return nil })
	if err != nil || res.CompletionTokens != 4 || res.DraftTokens != 0 {
		t.Errorf("%d tokens, %d drafted, %v; want 4 tokens alone", res.CompletionTokens, res.DraftTokens, err)
	}
}

// mustOpen opens the model file at path as a load does.
func mustOpen(t *testing.T, path string) *header {
	t.Helper()
	h, err := open(context.Background(), path, gguf.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.f.Close() })
	return h
}

// draftPair returns a tiny model in F32 and its copy in Q4_0, a quarter of
// its size or less: a target and a draft PickDraft pairs.
func draftPair(t *testing.T) (big, small string) {
	t.Helper()
	big, err := synthtest.Tiny("f32", 1)
	if err == nil {
		small, err = synthtest.Tiny("q4_0", 1)
	}
	if err != nil {
		t.Fatal(err)
	}
	return big, small
}

// linkFolder returns a new models folder holding NAME.gguf, a link to
// path, for each name and path of files.
func linkFolder(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, p := range files {
		if err := os.Symlink(p, filepath.Join(dir, name+".gguf")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
