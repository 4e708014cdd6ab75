package gguf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSplit writes sinkTensors as a model split into count shards the way
// gguf-split lays them out: the first shard holds all metadata, every shard
// its split keys. edit may change a shard's Writer before it is written.
func writeSplit(t *testing.T, dir string, count int, edit func(no int, w *Writer)) string {
	t.Helper()
	prefix := filepath.Join(dir, "model")
	per := (len(sinkTensors) + count - 1) / count
	for no := range count {
		var kvs []KV
		if no == 0 {
			kvs = sinkKVs(t)
		}
		lo, hi := min(no*per, len(sinkTensors)), min((no+1)*per, len(sinkTensors))
		w := NewWriter()
		for _, kv := range kvs {
			if err := w.Set(kv.Key, kv.Value); err != nil {
				t.Fatal(err)
			}
		}
		for _, kv := range []KV{
			{KeySplitNo, NewUint16(uint16(no))},
			{KeySplitCount, NewUint16(uint16(count))},
			{KeySplitTensorsCount, NewInt32(int32(len(sinkTensors)))},
		} {
			if err := w.Set(kv.Key, kv.Value); err != nil {
				t.Fatal(err)
			}
		}
		for i := lo; i < hi; i++ {
			tt := sinkTensors[i]
			size, _ := tensorBytes(tt.typ, tt.shape)
			if err := w.AddTensor(tt.name, tt.typ, tt.shape, patterned(int64(i), size)); err != nil {
				t.Fatal(err)
			}
		}
		if edit != nil {
			edit(no, w)
		}
		if err := w.WriteFile(context.Background(), SplitPath(prefix, no, count)); err != nil {
			t.Fatal(err)
		}
	}
	return prefix
}

func TestSplitModel(t *testing.T) {
	dir := t.TempDir()
	prefix := writeSplit(t, dir, 3, nil)
	first := prefix + "-00001-of-00003.gguf"
	if SplitPath(prefix, 0, 3) != first {
		t.Fatalf("SplitPath = %s", SplitPath(prefix, 0, 3))
	}
	f, err := Open(first)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Shards() != 3 || len(f.Paths()) != 3 || f.Paths()[2] != SplitPath(prefix, 2, 3) {
		t.Errorf("shards %d, paths %v", f.Shards(), f.Paths())
	}
	if arch, err := f.Architecture(); err != nil || arch != "llama" {
		t.Errorf("Architecture = %q, %v (metadata must come from the first shard)", arch, err)
	}
	ts := f.Tensors()
	if len(ts) != len(sinkTensors) {
		t.Fatalf("%d tensors, want %d", len(ts), len(sinkTensors))
	}
	per := 3 // ceil(7/3)
	for i, tt := range sinkTensors {
		ti := ts[i]
		if ti.Name != tt.name || ti.Shard != i/per {
			t.Errorf("tensor %d = %s in shard %d, want %s in %d", i, ti.Name, ti.Shard, tt.name, i/per)
		}
		size, _ := tensorBytes(tt.typ, tt.shape)
		d, err := f.TensorData(tt.name)
		if err != nil || !bytes.Equal(d, patterned(int64(i), size)) {
			t.Errorf("tensor %q data differs (%v)", tt.name, err)
		}
	}
	var sum int64
	for _, p := range f.Paths() {
		st, _ := os.Stat(p)
		sum += st.Size()
	}
	if f.FileSize() != sum {
		t.Errorf("FileSize %d, want %d", f.FileSize(), sum)
	}

	// A later shard: Open points at the first one, OpenSingle opens it.
	second := SplitPath(prefix, 1, 3)
	if _, err := Open(second); err == nil || !strings.Contains(err.Error(), "shard 2 of 3") || !strings.Contains(err.Error(), first) {
		t.Errorf("Open(second shard) = %v, want an error naming %s", err, first)
	}
	g, err := OpenSingle(second)
	if err != nil {
		t.Fatal(err)
	}
	if g.Shards() != 1 || len(g.Tensors()) != per {
		t.Errorf("OpenSingle: %d shards, %d tensors", g.Shards(), len(g.Tensors()))
	}
	g.Close()
}

func TestSplitModelErrors(t *testing.T) {
	tests := []struct {
		name string
		edit func(no int, w *Writer)
		drop int // shard to delete after writing, or -1
		want string
	}{
		{"missing shard", nil, 2, "shard 3 of 3"},
		{"wrong split.no", func(no int, w *Writer) {
			if no == 2 {
				_ = w.Set(KeySplitNo, uint16(1))
			}
		}, -1, "split keys say shard 2 of 3, want 3 of 3"},
		{"wrong split.count", func(no int, w *Writer) {
			if no == 1 {
				_ = w.Set(KeySplitCount, uint16(4))
			}
		}, -1, "split keys say shard 2 of 4, want 2 of 3"},
		{"no split.no", func(no int, w *Writer) {
			if no == 1 {
				w.Delete(KeySplitNo)
			}
		}, -1, `without a "split.no" key`},
		{"tensor count", func(no int, w *Writer) {
			if no == 0 {
				_ = w.Set(KeySplitTensorsCount, int32(99))
			}
		}, -1, "says 99 tensors"},
		{"no tensor count", func(no int, w *Writer) {
			if no == 0 {
				w.Delete(KeySplitTensorsCount)
			}
		}, -1, `without a "split.tensors.count" key`},
		{"negative split.count", func(no int, w *Writer) {
			if no == 0 {
				_ = w.Set(KeySplitCount, int16(-3))
			}
		}, -1, "negative"},
		{"duplicate across shards", func(no int, w *Writer) {
			if no == 2 {
				_ = w.AddTensor("token_embd.weight", 0, []int64{1}, make([]byte, 4))
			}
		}, -1, "more than one shard"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			prefix := writeSplit(t, dir, 3, tc.edit)
			if tc.drop >= 0 {
				if err := os.Remove(SplitPath(prefix, tc.drop, 3)); err != nil {
					t.Fatal(err)
				}
			}
			f, err := Open(SplitPath(prefix, 0, 3))
			if err == nil {
				f.Close()
				t.Fatalf("Open succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Errorf("error %q, want one containing %q", err, tc.want)
			}
		})
	}

	// A first shard whose name does not follow the pattern.
	dir := t.TempDir()
	prefix := writeSplit(t, dir, 2, nil)
	odd := filepath.Join(dir, "renamed.gguf")
	if err := os.Rename(SplitPath(prefix, 0, 2), odd); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(odd); err == nil || !strings.Contains(err.Error(), "does not end in") {
		t.Errorf("Open(renamed first shard) = %v", err)
	}
}
