package gguf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/internal/refdata"
)

// seedHeadBytes is how much of a reference model a fuzz seed keeps: the
// start of the header and metadata (enough to hold all of it for the
// smallest files), so that minimizing stays fast.
const seedHeadBytes = 16 << 10

// optionalData lets FuzzOpen use refdata without being skipped when the
// reference data is absent: its Skip only records the fact (Fatal, under
// CI, still fails).
type optionalData struct {
	testing.TB
	absent bool
}

func (o *optionalData) Skip(args ...any) { o.absent = true; o.TB.Log(args...) }

// FuzzOpen feeds arbitrary bytes to the parser. Anything it accepts must be
// readable throughout and must survive a write/read round trip unchanged.
func FuzzOpen(f *testing.F) {
	for _, seed := range syntheticSeeds(f) {
		f.Add(seed)
	}
	o := &optionalData{TB: f}
	dir := refdata.Dir(o)
	if !o.absent {
		for _, sub := range []string{"models", "vocab"} {
			paths, _ := filepath.Glob(filepath.Join(dir, sub, "*.gguf"))
			for _, p := range paths {
				if seed, err := readHead(p, seedHeadBytes); err == nil {
					f.Add(seed)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data)
	})
}

// readHead returns up to n bytes from the start of a file.
func readHead(path string, n int) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b := make([]byte, n)
	k, err := io.ReadFull(fh, b)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return b[:k], nil
}

// checkParse is the fuzz property: errors are clean, accepted files are
// consistent and re-encode to a file that parses to the same thing.
func checkParse(t *testing.T, data []byte) {
	f, err := OpenBytes(data)
	if err != nil {
		if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("error wraps neither ErrFormat nor ErrUnsupported: %v", err)
		}
		if !strings.HasPrefix(err.Error(), "gguf: ") {
			t.Fatalf("error lacks the package prefix: %v", err)
		}
		return
	}
	for _, ti := range f.Tensors() {
		d, err := f.Data(ti)
		if err != nil || int64(len(d)) != ti.Size {
			t.Fatalf("tensor %q: %d bytes, %v; want %d", ti.Name, len(d), err, ti.Size)
		}
		if got, ok := f.Tensor(ti.Name); !ok || got.Offset != ti.Offset {
			t.Fatalf("Tensor(%q) = %v, %v", ti.Name, got, ok)
		}
	}
	for _, kv := range f.KVs() {
		_ = kv.Value.String()
		if v, ok := f.Value(kv.Key); !ok || v.Type() != kv.Value.Type() {
			t.Fatalf("Value(%q) = %v, %v", kv.Key, v, ok)
		}
	}
	_ = f.Summary()

	w, ok := rewriter(t, f)
	if !ok || w.Size() > int64(len(data))+1<<20 {
		// A large general.alignment in a file without tensors makes the
		// Writer pad up to it; skip those to keep the fuzzer fast.
		return
	}
	var buf bytes.Buffer
	if _, err := w.Encode(context.Background(), &buf); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	g, err := OpenBytes(buf.Bytes())
	if err != nil {
		t.Fatalf("re-encoded file does not parse: %v", err)
	}
	if g.Version() != f.Version() || len(g.KVs()) != len(f.KVs()) || len(g.Tensors()) != len(f.Tensors()) {
		t.Fatalf("round trip changed the file: v%d %d KVs %d tensors, was v%d %d %d",
			g.Version(), len(g.KVs()), len(g.Tensors()), f.Version(), len(f.KVs()), len(f.Tensors()))
	}
	w2, _ := rewriter(t, g)
	var buf2 bytes.Buffer
	if _, err := w2.Encode(context.Background(), &buf2); err != nil {
		t.Fatalf("Encode again: %v", err)
	}
	if !bytes.Equal(buf.Bytes(), buf2.Bytes()) {
		t.Fatalf("encoding is not stable across a round trip")
	}
	for _, ti := range f.Tensors() {
		a, _ := f.Data(ti)
		b, err := g.TensorData(ti.Name)
		if err != nil || !bytes.Equal(a, b) {
			t.Fatalf("tensor %q data changed in the round trip (%v)", ti.Name, err)
		}
	}
}

// rewriter copies a parsed file into a Writer. It reports false for the
// files the reader accepts but the Writer refuses to produce (tensor names
// llama.cpp would reject).
func rewriter(t *testing.T, f *File) (*Writer, bool) {
	t.Helper()
	w := NewWriter()
	if err := w.SetVersion(f.Version()); err != nil {
		t.Fatalf("SetVersion(%d): %v", f.Version(), err)
	}
	for _, kv := range f.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatalf("Set(%q): %v", kv.Key, err)
		}
	}
	for _, ti := range f.Tensors() {
		if ti.Name == "" || len(ti.Name) > MaxTensorName {
			return nil, false
		}
		d, err := f.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, d); err != nil {
			t.Fatalf("AddTensor(%q): %v", ti.Name, err)
		}
	}
	return w, true
}

func TestFuzzSeedsParse(t *testing.T) {
	for i, seed := range syntheticSeeds(t) {
		if _, err := OpenBytes(seed); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
		checkParse(t, seed)
	}
}
