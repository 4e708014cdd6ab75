package synth

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
)

// TestWriteVisionPair writes the tiny Gemma 3 that can see and its
// projector: a gemma3 model and a clip file projecting to its width; a
// shape without a projector is an error.
func TestWriteVisionPair(t *testing.T) {
	dir := t.TempDir()
	path, proj := filepath.Join(dir, "m.gguf"), filepath.Join(dir, "mmproj-m.gguf")
	if err := WriteVisionPair(context.Background(), path, proj, "tiny-gemma3-vision", gguf.FileTypeMostlyQ8_0, 1); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{path: "gemma3", proj: "clip"} {
		f, err := gguf.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		if arch, _ := f.Architecture(); arch != want {
			t.Errorf("%s: architecture %q, want %q", filepath.Base(file), arch, want)
		}
		f.Close()
	}
	err := WriteVisionPair(context.Background(), path, proj, "tiny", gguf.FileTypeMostlyQ8_0, 1)
	if err == nil || !strings.Contains(err.Error(), "no vision projector") {
		t.Errorf("a shape without a projector: %v", err)
	}
}
