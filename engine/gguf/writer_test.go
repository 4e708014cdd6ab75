package gguf

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"saji/kernels/quant"
)

func TestWriteOpenRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name      string
		version   uint32
		alignment uint32
	}{
		{"v3 default alignment", 3, 0},
		{"v3 alignment 64", 3, 64},
		{"v2 alignment 8", 2, 8},
		{"v3 alignment 1", 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kvs := sinkKVs(t)
			w := buildWriter(t, kvs, sinkTensors)
			if err := w.SetVersion(tc.version); err != nil {
				t.Fatal(err)
			}
			align := uint32(DefaultAlignment)
			if tc.alignment != 0 {
				if err := w.SetAlignment(tc.alignment); err != nil {
					t.Fatal(err)
				}
				kvs = append(kvs, KV{KeyAlignment, NewUint32(tc.alignment)})
				align = tc.alignment
			}
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := w.WriteFile(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			st, err := os.Stat(path)
			if err != nil || st.Size() != w.Size() {
				t.Fatalf("file is %v bytes (%v), Size() says %d", st, err, w.Size())
			}
			f, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Version() != tc.version || f.Alignment() != align {
				t.Errorf("version %d alignment %d, want %d %d", f.Version(), f.Alignment(), tc.version, align)
			}
			if got := f.KVs(); !reflect.DeepEqual(got, kvs) {
				t.Errorf("metadata differs:\n got %v\nwant %v", got, kvs)
			}
			got := f.Tensors()
			if len(got) != len(sinkTensors) {
				t.Fatalf("%d tensors, want %d", len(got), len(sinkTensors))
			}
			if f.DataOffset(0)%int64(align) != 0 {
				t.Errorf("data section at %d is not aligned to %d", f.DataOffset(0), align)
			}
			var off uint64
			for i, tt := range sinkTensors {
				ti := got[i]
				size, _ := tensorBytes(tt.typ, tt.shape)
				shape := tt.shape
				if shape == nil {
					shape = []int64{}
				}
				if ti.Name != tt.name || ti.Type != tt.typ || !reflect.DeepEqual(ti.Shape, shape) || ti.Size != size || ti.Shard != 0 {
					t.Errorf("tensor %d = %+v, want %+v (%d bytes)", i, ti, tt, size)
				}
				if ti.Offset != off {
					t.Errorf("tensor %q at offset %d, want %d (llama.cpp's consecutive layout)", ti.Name, ti.Offset, off)
				}
				off += alignUp(uint64(size), uint64(align))
				d, err := f.TensorData(tt.name)
				if err != nil || !bytes.Equal(d, patterned(int64(i), size)) {
					t.Errorf("tensor %q data differs (%v)", tt.name, err)
				}
				if cap(d) != len(d) {
					t.Errorf("tensor %q view has spare capacity %d", tt.name, cap(d)-len(d))
				}
			}
			// Padding between tensors is zeros.
			raw, _ := os.ReadFile(path)
			for i, ti := range got {
				end := f.DataOffset(0) + int64(ti.Offset) + ti.Size
				next := int64(len(raw))
				if i+1 < len(got) {
					next = f.DataOffset(0) + int64(got[i+1].Offset)
				}
				if bytes.Count(raw[end:next], []byte{0}) != int(next-end) {
					t.Errorf("padding after %q is not zeros", ti.Name)
				}
			}
			// Re-encoding what was read reproduces the file.
			rw, _ := rewriter(t, f)
			if again := encode(t, rw); !bytes.Equal(again, raw) {
				t.Errorf("re-encoding differs from the written file")
			}
		})
	}
}

func TestWriterSetKeepsOrder(t *testing.T) {
	w := NewWriter()
	for _, k := range []string{"a", "b", "c"} {
		if err := w.Set(k, uint32(1)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Set("a", "replaced"); err != nil {
		t.Fatal(err)
	}
	w.Delete("b")
	w.Delete("missing")
	if err := w.Set("d", []float32{1}); err != nil {
		t.Fatal(err)
	}
	f, err := OpenBytes(encode(t, w))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, kv := range f.KVs() {
		keys = append(keys, kv.Key)
	}
	if strings.Join(keys, ",") != "a,c,d" {
		t.Errorf("keys %v, want a,c,d", keys)
	}
	if s, err := f.String("a"); err != nil || s != "replaced" {
		t.Errorf("a = %q, %v", s, err)
	}
}

func TestWriterErrors(t *testing.T) {
	f32 := quant.TypeF32
	tests := []struct {
		name string
		do   func(w *Writer) error
		want string
	}{
		{"empty key", func(w *Writer) error { return w.Set("", uint8(1)) }, "empty metadata key"},
		{"int", func(w *Writer) error { return w.Set("k", 5) }, "cannot make an array of int"},
		{"bad Value", func(w *Writer) error { return w.Set("k", Value{}) }, "invalid value"},
		{"array of non-arrays", func(w *Writer) error { _, err := NewArray([]Value{NewUint8(1)}); return err }, "not an array"},
		{"too deep", func(w *Writer) error {
			v, _ := NewArray([]uint8{})
			for range maxDepth {
				var err error
				if v, err = NewArray([]Value{v}); err != nil {
					return err
				}
			}
			return nil
		}, "nested deeper than 8"},
		{"alignment type", func(w *Writer) error { return w.Set(KeyAlignment, uint64(32)) }, "must be a uint32"},
		{"alignment value", func(w *Writer) error { return w.SetAlignment(24) }, "not a non-zero power of two"},
		{"version", func(w *Writer) error { return w.SetVersion(1) }, "cannot write version 1"},
		{"empty name", func(w *Writer) error { return w.AddTensor("", f32, []int64{1}, make([]byte, 4)) }, "empty tensor name"},
		{"long name", func(w *Writer) error {
			return w.AddTensor(strings.Repeat("n", 64), f32, []int64{1}, make([]byte, 4))
		}, "longer than 63 bytes"},
		{"duplicate", func(w *Writer) error {
			_ = w.AddTensor("t", f32, []int64{1}, make([]byte, 4))
			return w.AddTensor("t", f32, []int64{1}, make([]byte, 4))
		}, "duplicate tensor name"},
		{"unknown type", func(w *Writer) error { return w.AddTensor("t", 4, []int64{32}, nil) }, "unknown type 4"},
		{"five dims", func(w *Writer) error { return w.AddTensor("t", f32, []int64{1, 1, 1, 1, 1}, make([]byte, 4)) }, "5 dimensions"},
		{"negative", func(w *Writer) error { return w.AddTensor("t", f32, []int64{-1}, nil) }, "negative dimension"},
		{"too many elements", func(w *Writer) error {
			return w.AddTensor("t", quant.TypeI8, []int64{math.MaxInt64, 2}, nil)
		}, "too many elements"},
		{"partial block", func(w *Writer) error { return w.AddTensor("t", quant.TypeQ8_0, []int64{16}, nil) }, "whole number of Q8_0 blocks"},
		{"wrong size", func(w *Writer) error { return w.AddTensor("t", f32, []int64{2}, make([]byte, 4)) }, "4 bytes of data, want 8"},
		{"nil fill", func(w *Writer) error { return w.AddTensorFunc("t", f32, []int64{2}, nil) }, "nil fill"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.do(NewWriter())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
		})
	}
}

func TestWriterTensorFunc(t *testing.T) {
	data := patterned(1, 4096*4)
	w := NewWriter()
	if err := w.AddTensorFunc("big", quant.TypeF32, []int64{4096}, func(out io.Writer) error {
		for p := data; len(p) > 0; p = p[1000:] {
			if _, err := out.Write(p[:min(len(p), 1000)]); err != nil {
				return err
			}
			if len(p) <= 1000 {
				break
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	var calls int
	w.Progress = func(done, total int64) {
		calls++
		if done != total || total != w.Size() {
			t.Errorf("progress %d/%d, size %d", done, total, w.Size())
		}
	}
	f, err := OpenBytes(encode(t, w))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := f.TensorData("big"); !bytes.Equal(d, data) {
		t.Error("streamed tensor differs")
	}
	if calls != 1 {
		t.Errorf("progress called %d times, want 1", calls)
	}

	for name, fill := range map[string]func(io.Writer) error{
		"short":  func(out io.Writer) error { _, err := out.Write(make([]byte, 3)); return err },
		"long":   func(out io.Writer) error { _, err := out.Write(make([]byte, 9)); return err },
		"failed": func(io.Writer) error { return errors.New("disk on fire") },
	} {
		w := NewWriter()
		if err := w.AddTensorFunc("t", quant.TypeF32, []int64{2}, fill); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Encode(context.Background(), io.Discard); err == nil {
			t.Errorf("%s fill: Encode succeeded", name)
		}
	}
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "model.gguf")
	if err := os.WriteFile(path, []byte("old contents"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := buildWriter(t, sinkKVs(t), sinkTensors)

	// A cancelled write leaves the old file and no temporary file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.WriteFile(ctx, path); !errors.Is(err, context.Canceled) {
		t.Fatalf("WriteFile with a cancelled context: %v", err)
	}
	// A failing tensor source mid-way does the same.
	bad := buildWriter(t, sinkKVs(t), sinkTensors)
	if err := bad.AddTensorFunc("late", quant.TypeF32, []int64{1}, func(io.Writer) error {
		return errors.New("source vanished")
	}); err != nil {
		t.Fatal(err)
	}
	if err := bad.WriteFile(context.Background(), path); err == nil || !strings.Contains(err.Error(), "source vanished") {
		t.Fatalf("WriteFile with a failing tensor: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old contents" {
		t.Errorf("failed writes changed the file: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("failed writes left files behind: %v", ents)
	}

	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %v", ents)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()

	if err := w.WriteFile(context.Background(), filepath.Join(dir, "missing", "x.gguf")); err == nil {
		t.Error("WriteFile into a missing directory succeeded")
	}
}

// cancelWriter cancels a context once n bytes have passed through.
type cancelWriter struct {
	n      int
	cancel func()
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	c.n -= len(p)
	if c.n <= 0 {
		c.cancel()
	}
	return len(p), nil
}

func TestEncodeCancelMidTensor(t *testing.T) {
	w := NewWriter()
	big := make([]byte, 3*chunk)
	if err := w.AddTensor("big", quant.TypeI8, []int64{int64(len(big))}, big); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := w.Encode(ctx, &cancelWriter{n: chunk / 2, cancel: cancel}); !errors.Is(err, context.Canceled) {
		t.Errorf("Encode = %v, want context.Canceled", err)
	}
}
