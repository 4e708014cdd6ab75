package gguf

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenErrorsAndClose(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "none.gguf")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	empty := filepath.Join(dir, "empty.gguf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty); !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), empty) {
		t.Errorf("empty file: %v", err)
	}
	if _, err := Open(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("directory: %v", err)
	}

	path := filepath.Join(dir, "m.gguf")
	if err := os.WriteFile(path, encode(t, buildWriter(t, sinkKVs(t), sinkTensors)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.Path() != path || f.Shards() != 1 {
		t.Errorf("Path %q, Shards %d", f.Path(), f.Shards())
	}
	if _, err := f.TensorData("no.such.tensor"); err == nil {
		t.Error("TensorData of a missing tensor succeeded")
	}
	if _, ok := f.Tensor("no.such.tensor"); ok {
		t.Error("Tensor found a missing tensor")
	}
	ti, _ := f.Tensor("blk.0.attn_norm.weight")
	bad := ti
	bad.Shard = 5
	if _, err := f.Data(bad); err == nil {
		t.Error("Data with a bad shard succeeded")
	}
	bad = ti
	bad.Offset = 1 << 40
	if _, err := f.Data(bad); err == nil {
		t.Error("Data past the file succeeded")
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := f.TensorData(ti.Name); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("TensorData after Close: %v", err)
	}
	// Metadata stays readable after Close.
	if a, err := f.Architecture(); err != nil || a != "llama" {
		t.Errorf("Architecture after Close = %q, %v", a, err)
	}
}
