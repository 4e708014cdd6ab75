package gguf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOpenWith checks that every way of holding the data presents the same
// file: metadata, tensor table and tensor bytes, for a single file and a
// split model.
func TestOpenWith(t *testing.T) {
	dir := t.TempDir()
	single := filepath.Join(dir, "single.gguf")
	if err := buildWriter(t, sinkKVs(t), sinkTensors).WriteFile(context.Background(), single); err != nil {
		t.Fatal(err)
	}
	split := SplitPath(writeSplit(t, dir, 3, nil), 0, 3)
	for _, path := range []string{single, split} {
		want, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer want.Close()
		for _, opts := range []OpenOptions{{}, {NoMmap: true}, {Lock: true}, {NoMmap: true, Lock: true}} {
			got, err := OpenWith(context.Background(), path, opts)
			if err != nil {
				t.Fatalf("%s %+v: %v", filepath.Base(path), opts, err)
			}
			if got.Shards() != want.Shards() || got.FileSize() != want.FileSize() {
				t.Errorf("%s %+v: %d shards of %d bytes, want %d of %d", filepath.Base(path), opts,
					got.Shards(), got.FileSize(), want.Shards(), want.FileSize())
			}
			if !reflect.DeepEqual(got.KVs(), want.KVs()) || !reflect.DeepEqual(got.Tensors(), want.Tensors()) {
				t.Errorf("%s %+v: metadata or tensor table differs", filepath.Base(path), opts)
			}
			for _, ti := range want.Tensors() {
				a, err1 := got.Data(ti)
				b, err2 := want.Data(ti)
				if err1 != nil || err2 != nil || !bytes.Equal(a, b) {
					t.Errorf("%s %+v: tensor %s differs (%v, %v)", filepath.Base(path), opts, ti.Name, err1, err2)
				}
			}
			if err := got.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
			if _, err := got.Data(want.Tensors()[0]); err == nil {
				t.Error("Data after Close succeeded")
			}
		}
	}
}

// TestOpenWithErrors checks that the no-mmap path reports bad files as
// Open does.
func TestOpenWithErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.gguf")
	if err := os.WriteFile(bad, []byte("GGUF\x03\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "missing.gguf"), dir} {
		if f, err := OpenWith(context.Background(), path, OpenOptions{NoMmap: true}); err == nil {
			f.Close()
			t.Errorf("OpenWith(%s) succeeded", path)
		}
	}
	// A file whose header is fine but whose data is cut short fails the
	// same way in memory as mapped.
	b := encode(t, buildWriter(t, sinkKVs(t), sinkTensors))
	short := filepath.Join(dir, "short.gguf")
	if err := os.WriteFile(short, b[:len(b)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	_, errMap := Open(short)
	_, errMem := OpenWith(context.Background(), short, OpenOptions{NoMmap: true})
	if (errMap == nil) != (errMem == nil) {
		t.Errorf("truncated file: Open says %v, OpenWith %v", errMap, errMem)
	}
}

// errAfter is a context that is done from its n-th look at Err on.
type errAfter struct {
	context.Context
	n, looks int
}

func (c *errAfter) Err() error {
	c.looks++
	if c.looks >= c.n {
		return context.Canceled
	}
	return nil
}

// TestOpenWithCancelled checks that a done context stops OpenWith before
// it opens anything, and a read into memory within a chunk of its end.
func TestOpenWithCancelled(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := buildWriter(t, sinkKVs(t), sinkTensors).WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	for _, opts := range []OpenOptions{{}, {NoMmap: true}} {
		if f, err := OpenWith(done, path, opts); !errors.Is(err, context.Canceled) {
			if f != nil {
				f.Close()
			}
			t.Errorf("%+v, context done: %v, want %v", opts, err, context.Canceled)
		}
	}
	defer func(n int) { readChunk = n }(readChunk)
	readChunk = 64
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &errAfter{Context: context.Background(), n: 3} // OpenWith's look, then two chunks
	if chunks := int(st.Size()) / readChunk; chunks <= ctx.n {
		t.Fatalf("the file is %d chunks, too few to stop within", chunks)
	}
	if f, err := OpenWith(ctx, path, OpenOptions{NoMmap: true}); !errors.Is(err, context.Canceled) {
		if f != nil {
			f.Close()
		}
		t.Fatalf("a read cancelled on its way: %v, want %v", err, context.Canceled)
	}
	if ctx.looks != ctx.n {
		t.Errorf("the read looked at its context %d times, want it stopped at the %d-th", ctx.looks, ctx.n)
	}
}

// shrinkAt is a context that cuts the file at path to size bytes at its
// look-th look at Err, and is never done.
type shrinkAt struct {
	context.Context
	path        string
	size        int64
	look, looks int
	err         error
}

func (c *shrinkAt) Err() error {
	if c.looks++; c.looks == c.look {
		c.err = os.Truncate(c.path, c.size)
	}
	return nil
}

// TestOpenWithShrunk cuts a file being read into memory at a chunk's end:
// the read fails saying the file shrank, as it does when a chunk is cut
// short.
func TestOpenWithShrunk(t *testing.T) {
	defer func(n int) { readChunk = n }(readChunk)
	readChunk = 64
	for _, size := range []int64{64, 100} { // at a chunk's end, within one
		path := filepath.Join(t.TempDir(), "m.gguf")
		if err := buildWriter(t, sinkKVs(t), sinkTensors).WriteFile(context.Background(), path); err != nil {
			t.Fatal(err)
		}
		ctx := &shrinkAt{Context: context.Background(), path: path, size: size, look: 2} // after the first chunk
		f, err := OpenWith(ctx, path, OpenOptions{NoMmap: true})
		if ctx.err != nil {
			t.Fatal(ctx.err)
		}
		if err == nil {
			f.Close()
			t.Fatalf("cut to %d bytes: read", size)
		}
		if !strings.Contains(err.Error(), "file shrank while being read") {
			t.Errorf("cut to %d bytes: %v", size, err)
		}
	}
}
