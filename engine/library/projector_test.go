package library

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestPairProjector(t *testing.T) {
	dir := "/m"
	p := func(name string) string { return filepath.Join(dir, name) }
	bart := []string{p("mmproj-google_gemma-3-4b-it-bf16.gguf"), p("mmproj-google_gemma-3-4b-it-f16.gguf"), p("mmproj-Qwen2.5-VL-3B-f16.gguf")}
	tests := []struct {
		name, model string
		candidates  []string
		sources     map[string]Source
		want        string
	}{
		{"none", "gemma-3-4b-it-Q4_K_M.gguf", nil, nil, ""},
		{"the folder's only projector", "gemma-3-4b-it-Q4_K_M.gguf", []string{p("mmproj-F16.gguf")}, nil, p("mmproj-F16.gguf")},
		{"by name, F16 first", "google_gemma-3-4b-it-Q4_K_M.gguf", bart, nil, p("mmproj-google_gemma-3-4b-it-f16.gguf")},
		{"by name, the other model's", "Qwen2.5-VL-3B-Instruct-Q4_K_M.gguf", bart, nil, p("mmproj-Qwen2.5-VL-3B-f16.gguf")},
		{"no name shared among several", "llama-3.2-1b-Q4_K_M.gguf", bart, nil, ""},
		{"downloaded with it", "model-Q4_K_M.gguf", []string{p("mmproj-F16.gguf"), p("mmproj-F32.gguf"), p("mmproj-model-f16.gguf")},
			map[string]Source{"model-Q4_K_M.gguf": {Repo: "unsloth/x-GGUF"}, "mmproj-F32.gguf": {Repo: "unsloth/x-GGUF"},
				"mmproj-model-f16.gguf": {Repo: "other/y-GGUF"}},
			p("mmproj-F32.gguf")},
		{"downloaded, its projector not", "gemma-3-4b-it-Q8_0.gguf", []string{p("mmproj-gemma-3-4b-it-f16.gguf"), p("mmproj-x.gguf")},
			map[string]Source{"gemma-3-4b-it-Q8_0.gguf": {Repo: "a/b"}}, p("mmproj-gemma-3-4b-it-f16.gguf")},
	}
	for _, c := range tests {
		if got := pairProjector(p(c.model), c.candidates, c.sources); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestListPairsProjectors checks that the projectors of the library
// folder, and of a referenced model's folder, are not listed as models
// but paired with theirs.
func TestListPairsProjectors(t *testing.T) {
	l := openLib(t)
	tinyFile(t, l.Dir(), "gemma-3-4b-it-Q4_K_M.gguf")
	tinyFile(t, l.Dir(), "llama-3.2-1b-Q8_0.gguf")
	proj := writeFile(t, l.Dir(), "mmproj-gemma-3-4b-it-f16.gguf", []byte("a projector"))
	writeFile(t, l.Dir(), "mmproj-Qwen2.5-VL-3B-f16.gguf", []byte("another"))
	elsewhere := t.TempDir()
	ref := tinyFile(t, elsewhere, "smolvlm-Q8_0.gguf")
	refProj := writeFile(t, elsewhere, "mmproj-F16.gguf", []byte("its projector"))
	if _, err := l.Import(t.Context(), ref, false, nil); err != nil {
		t.Fatal(err)
	}
	es, err := l.List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range es {
		got[e.Name] = e.Projector
	}
	want := map[string]string{"gemma-3-4b-it-Q4_K_M": proj, "llama-3.2-1b-Q8_0": "", "smolvlm-Q8_0": refProj}
	if len(got) != len(want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: projector %q, want %q", n, got[n], w)
		}
	}
	e, err := l.Get("gemma-3-4b-it-Q4_K_M")
	if err != nil || e.Projector != proj {
		t.Errorf("Get: %+v, %v", e, err)
	}
	if _, err := l.Get("mmproj-gemma-3-4b-it-f16"); err == nil {
		t.Error("a projector is a model of the library")
	}
	if _, err := l.Import(t.Context(), refProj, false, nil); !errors.Is(err, ErrProjector) {
		t.Errorf("importing a projector: %v", err)
	}
}
