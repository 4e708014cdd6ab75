package gguf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync/atomic"
	"testing"
)

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	r *bytes.Reader
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// bigHeaderFile returns a file whose header takes more than headerFirstRead
// bytes (a long string array), with a tensor data section larger still.
func bigHeaderFile(t *testing.T) []byte {
	t.Helper()
	words := make([]string, 60000)
	for i := range words {
		words[i] = fmt.Sprintf("token-%08d-padding", i)
	}
	kvs := append(sinkKVs(t), KV{Key: "test.words", Value: mustArray(t, words)})
	w := buildWriter(t, kvs, sinkTensors)
	if err := w.AddTensor("blk.9.big", 0, []int64{1 << 20}, make([]byte, 4<<20)); err != nil {
		t.Fatal(err)
	}
	return encode(t, w)
}

func mustArray(t *testing.T, x any) Value {
	t.Helper()
	v, err := NewArray(x)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestReadHeader(t *testing.T) {
	small := encode(t, buildWriter(t, sinkKVs(t), sinkTensors))
	big := bigHeaderFile(t)
	for _, tc := range []struct {
		name string
		b    []byte
	}{{"small", small}, {"big header", big}} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := OpenBytes(tc.b)
			if err != nil {
				t.Fatal(err)
			}
			cr := &countingReaderAt{r: bytes.NewReader(tc.b)}
			got, err := ReadHeader(cr, int64(len(tc.b)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Tensors(), want.Tensors()) {
				t.Error("tensor tables differ")
			}
			if len(got.KVs()) != len(want.KVs()) {
				t.Errorf("%d KVs, want %d", len(got.KVs()), len(want.KVs()))
			}
			if got.DataOffset(0) != want.DataOffset(0) {
				t.Errorf("data offset %d, want %d", got.DataOffset(0), want.DataOffset(0))
			}
			hdr := want.DataOffset(0)
			// At most the doubling's overshoot past the header.
			if n := cr.n.Load(); n > max(2*hdr, headerFirstRead) || n < hdr {
				t.Errorf("read %d bytes for a header of %d (file %d)", n, hdr, len(tc.b))
			}
			for _, ti := range got.Tensors() {
				if ti.Size > 0 {
					if _, err := got.Data(ti); err == nil {
						t.Errorf("Data(%s) of a header-only file succeeded", ti.Name)
					}
				}
			}
		})
	}
}

func TestReadHeaderErrors(t *testing.T) {
	b := bigHeaderFile(t)
	f, err := OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	hdr := f.DataOffset(0)
	for _, tc := range []struct {
		name      string
		b         []byte
		size      int64
		truncated bool
	}{
		{"header cut", b[:hdr/2], hdr / 2, true},
		{"tensors past the end", b[:hdr+16], hdr + 16, true},
		{"reader shorter than size", b[:hdr/2], int64(len(b)), true},
		{"not gguf", []byte("hello, world, this is not a model"), 33, false},
		{"empty", nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadHeader(bytes.NewReader(tc.b), tc.size)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrFormat) {
				t.Errorf("error %v is not ErrFormat", err)
			}
			if errors.Is(err, ErrTruncated) != tc.truncated {
				t.Errorf("error %v: truncated %v, want %v", err, !tc.truncated, tc.truncated)
			}
		})
	}
}

// failingReaderAt fails every read.
type failingReaderAt struct{}

func (failingReaderAt) ReadAt([]byte, int64) (int, error) { return 0, io.ErrClosedPipe }

func TestReadHeaderReadError(t *testing.T) {
	_, err := ReadHeader(failingReaderAt{}, 1<<20)
	if !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("error %v, want the reader's", err)
	}
}
