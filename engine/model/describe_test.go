package model

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
)

// TestDescribeMatchesLoad checks that Describe reads what Load reads, for
// every reference model (the shared data's files, and the synthetic models
// of the project's own figures, written from their recipes), the tiny
// Phi-3 and the hand-written mixtures of experts: the same Config, windows
// and KV groups, and that every architecture has a file among them.
func TestDescribeMatchesLoad(t *testing.T) {
	if testing.Short() && runtime.GOARCH != "amd64" {
		t.Skip("-short under emulation: reading a file's description has nothing architecture-specific")
	}
	paths, err := filepath.Glob(filepath.Join(refdata.Dir(t), "models", "*.gguf"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no reference models: %v", err)
	}
	files := map[string]*gguf.File{"tiny-phi3": newTinyPhi3().file(t, "phi3"),
		"qwen2moe": moeFile{arch: "qwen2moe"}.file(t), "qwen3moe": moeFile{arch: "qwen3moe"}.file(t),
		// Qwen3-VL's experts: heads of 16, IMRoPE over sections of 3, 2, 2
		// pairs and one of 1, one deepstack layer.
		"qwen3vlmoe": moeFile{arch: "qwen3vlmoe", keys: map[string]any{
			"rope.dimension_sections": []int32{3, 2, 2, 1}, "n_deepstack_layers": uint32(1)}}.file(t)}
	for _, p := range paths {
		f, err := gguf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		files[filepath.Base(p)] = f
	}
	for name, path := range synthRefFiles(t) {
		files[name] = openFile(t, path)
	}
	seen := map[string]bool{}
	for name, f := range files {
		t.Run(name, func(t *testing.T) {
			d, err := Describe(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Load(context.Background(), f, Options{Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			seen[d.Arch] = true
			if d.Config != m.Config() {
				t.Errorf("Describe %+v, Load %+v", d.Config, m.Config())
			}
			if d.FFN == 0 {
				t.Error("no feed-forward length")
			}
			if !reflect.DeepEqual(d.KVGroups, m.KVGroups()) {
				t.Errorf("KV groups %+v, Load %+v", d.KVGroups, m.KVGroups())
			}
			if len(d.Windows) != d.Layers {
				t.Fatalf("%d windows for %d layers", len(d.Windows), d.Layers)
			}
			for _, g := range m.KVGroups() {
				for _, l := range g.Layers {
					if d.Windows[l] != g.Window {
						t.Errorf("layer %d: window %d, Load %d", l, d.Windows[l], g.Window)
					}
				}
			}
		})
	}
	for _, a := range Architectures() {
		if !seen[a] {
			t.Errorf("no model of architecture %s was described", a)
		}
	}
}

// TestDescribeErrors checks that Describe fails where Load does: an
// unknown architecture, and a tensor of the wrong shape.
func TestDescribeErrors(t *testing.T) {
	tm := newTinyPhi3()
	if _, err := Describe(tm.file(t, "mamba")); !errors.Is(err, ErrUnknownArch) {
		t.Errorf("unknown architecture: %v", err)
	}
	// A llama-family loader on phi3 tensors misses attn_q.
	if _, err := Describe(tm.file(t, "llama")); err == nil {
		t.Error("a llama without attn_q was described")
	}
}

// synthRefFiles writes the synthetic models of the project's reference
// figures (testdata/ref) from their recipes and returns their paths by
// name: the architectures the shared data lacks.
func synthRefFiles(t *testing.T) map[string]string {
	paths, err := filepath.Glob(filepath.Join(projectRefDir(t), "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	files, shapes := map[string]string{}, map[string]bool{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var ref refModel
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		r := ref.Model.Synth
		if r == nil || ((testing.Short() || raceEnabled) && shapes[r.Shape]) {
			continue // one file per shape is enough to check the shape
		}
		shapes[r.Shape] = true
		files[r.Name()] = synthModel(t, *r, ref.Model.SHA256)
	}
	return files
}
