package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// TestRun writes the tiny shape and checks the refusals of bad arguments.
func TestRun(t *testing.T) {
	dir := t.TempDir()
	vocab := filepath.Join(dir, "vocab.gguf")
	if err := synth.WriteMiniVocab(context.Background(), vocab, "llama"); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tiny-q8_0.gguf")
	for _, tt := range []struct {
		name string
		args []string
		want string // in the error; "" for success
	}{
		{"tiny", []string{"-shape", "tiny", "-type", "q8_0", "-vocab", vocab, "-o", out, "-seed", "3", "-t", "2"}, ""},
		{"missing flags", []string{"-shape", "tiny"}, "required"},
		{"extra argument", []string{"-shape", "tiny", "-vocab", vocab, "-o", out, "more"}, "required"},
		{"unknown shape", []string{"-shape", "huge", "-vocab", vocab, "-o", out}, "unknown shape"},
		{"unknown type", []string{"-shape", "tiny", "-type", "q9", "-vocab", vocab, "-o", out}, "file type"},
		{"missing vocabulary", []string{"-shape", "tiny", "-vocab", filepath.Join(dir, "none.gguf"), "-o", out}, "no such file"},
		{"unknown flag", []string{"-size", "1"}, "not defined"},
		{"a vision model", []string{"-shape", "tiny-gemma3-vision", "-type", "q8_0", "-vocab", vocab, "-o", out, "-mmproj-out", filepath.Join(dir, "mmproj.gguf")}, ""},
		{"no projector", []string{"-shape", "tiny", "-vocab", vocab, "-o", out, "-mmproj-out", filepath.Join(dir, "mmproj.gguf")}, "no vision projector"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			err := run(context.Background(), tt.args, &stderr)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want one containing %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := stderr.String(); !strings.Contains(s, "100%") || !strings.Contains(s, "wrote") {
				t.Errorf("no progress reported: %q", s)
			}
			f, err := gguf.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if ft, err := f.FileType(); err != nil || ft != gguf.FileTypeMostlyQ8_0 {
				t.Errorf("file type %v, %v", ft, err)
			}
		})
	}
	p, err := gguf.Open(filepath.Join(dir, "mmproj.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if arch, _ := p.Architecture(); arch != "clip" {
		t.Errorf("the projector's architecture is %q", arch)
	}
}
