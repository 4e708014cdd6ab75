package gguf

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"saji/kernels/quant"
)

// Writer builds a GGUF file: metadata in the order it was set, then tensors
// in the order they were added, laid out exactly as llama.cpp's gguf writer
// does (each tensor's data padded with zeros to the alignment, offsets
// consecutive). The alignment is taken from the general.alignment key
// (default 32).
//
// A Writer is not safe for concurrent use.
type Writer struct {
	// Progress, if set, is called after each tensor is written with the
	// bytes written so far and the total size of the file.
	Progress func(done, total int64)

	version uint32
	kvs     []KV
	kvIndex map[string]int
	tensors []wtensor
	names   map[string]bool
}

// wtensor is a tensor waiting to be written: its bytes in data, or
// produced by fill.
type wtensor struct {
	name  string
	typ   quant.Type
	shape []int64
	size  int64
	data  []byte
	fill  func(io.Writer) error
}

// NewWriter returns an empty Writer for a GGUF v3 file.
func NewWriter() *Writer {
	return &Writer{version: Version, kvIndex: make(map[string]int), names: make(map[string]bool)}
}

// SetVersion selects the GGUF version written: 3 (the default) or 2, whose
// layout is the same.
func (w *Writer) SetVersion(v uint32) error {
	if v != 2 && v != 3 {
		return fmt.Errorf("gguf: cannot write version %d (only 2 and 3)", v)
	}
	w.version = v
	return nil
}

// Set sets the metadata key to x, which is a Value or any Go value that
// ValueOf accepts. A new key is appended; an existing key keeps its place.
// general.alignment must be a uint32 that is a non-zero power of two.
func (w *Writer) Set(key string, x any) error {
	if key == "" {
		return errors.New("gguf: empty metadata key")
	}
	v, err := ValueOf(x)
	if err != nil {
		return fmt.Errorf("gguf: key %q: %w", key, err)
	}
	if key == KeyAlignment {
		a, ok := v.data.(uint32)
		if !ok {
			return fmt.Errorf("gguf: key %q must be a uint32, not %s", key, v.typeName())
		}
		if a == 0 || a&(a-1) != 0 {
			return fmt.Errorf("gguf: alignment %d is not a non-zero power of two", a)
		}
	}
	if i, ok := w.kvIndex[key]; ok {
		w.kvs[i].Value = v
		return nil
	}
	w.kvIndex[key] = len(w.kvs)
	w.kvs = append(w.kvs, KV{Key: key, Value: v})
	return nil
}

// SetAlignment sets general.alignment.
func (w *Writer) SetAlignment(a uint32) error { return w.Set(KeyAlignment, a) }

// Delete removes key if present.
func (w *Writer) Delete(key string) {
	i, ok := w.kvIndex[key]
	if !ok {
		return
	}
	w.kvs = slices.Delete(w.kvs, i, i+1)
	delete(w.kvIndex, key)
	for j := i; j < len(w.kvs); j++ {
		w.kvIndex[w.kvs[j].Key] = j
	}
}

// alignment returns the alignment the file will use.
func (w *Writer) alignment() uint64 {
	if i, ok := w.kvIndex[KeyAlignment]; ok {
		if a, ok := w.kvs[i].Value.data.(uint32); ok {
			return uint64(a)
		}
	}
	return DefaultAlignment
}

// AddTensor appends a tensor whose data is in data, which must be exactly
// the tensor's size and is not copied: it must stay unchanged until the
// file is written. shape is in ggml order (shape[0] is the row length) and
// is written with as many dimensions as it has (llama.cpp itself writes
// trailing dimensions of 1 only up to the first).
func (w *Writer) AddTensor(name string, typ quant.Type, shape []int64, data []byte) error {
	t, err := w.newTensor(name, typ, shape)
	if err != nil {
		return err
	}
	if int64(len(data)) != t.size {
		return fmt.Errorf("gguf: tensor %q: %d bytes of data, want %d for %s %v", name, len(data), t.size, typ, shape)
	}
	t.data = data
	w.addTensor(t)
	return nil
}

// AddTensorFunc appends a tensor whose data fill writes when the file is
// encoded, for data too large to hold in memory at once. fill must write
// exactly the tensor's size in bytes.
func (w *Writer) AddTensorFunc(name string, typ quant.Type, shape []int64, fill func(io.Writer) error) error {
	if fill == nil {
		return fmt.Errorf("gguf: tensor %q: nil fill function", name)
	}
	t, err := w.newTensor(name, typ, shape)
	if err != nil {
		return err
	}
	t.fill = fill
	w.addTensor(t)
	return nil
}

func (w *Writer) newTensor(name string, typ quant.Type, shape []int64) (wtensor, error) {
	switch {
	case name == "":
		return wtensor{}, errors.New("gguf: empty tensor name")
	case len(name) > MaxTensorName:
		return wtensor{}, fmt.Errorf("gguf: tensor name %q is longer than %d bytes", name, MaxTensorName)
	case w.names[name]:
		return wtensor{}, fmt.Errorf("gguf: duplicate tensor name %q", name)
	case !typ.Known():
		return wtensor{}, fmt.Errorf("gguf: tensor %q: unknown type %d", name, uint32(typ))
	case len(shape) > MaxDims:
		return wtensor{}, fmt.Errorf("gguf: tensor %q: %d dimensions, more than %d", name, len(shape), MaxDims)
	}
	n := uint64(1)
	for _, d := range shape {
		if d < 0 {
			return wtensor{}, fmt.Errorf("gguf: tensor %q: negative dimension in %v", name, shape)
		}
		if d != 0 && n > math.MaxInt64/uint64(d) {
			return wtensor{}, fmt.Errorf("gguf: tensor %q: shape %v has too many elements", name, shape)
		}
		n *= uint64(d)
	}
	size, err := tensorBytes(typ, shape)
	if err != nil {
		return wtensor{}, fmt.Errorf("gguf: tensor %q: %w", name, err)
	}
	return wtensor{name: name, typ: typ, shape: slices.Clone(shape), size: size}, nil
}

func (w *Writer) addTensor(t wtensor) {
	w.names[t.name] = true
	w.tensors = append(w.tensors, t)
}

// Size returns the size in bytes of the file Encode will write.
func (w *Writer) Size() int64 {
	n, _ := w.headerSize()
	a := w.alignment()
	n = alignUp(n, a)
	for _, t := range w.tensors {
		n += alignUp(uint64(t.size), a)
	}
	return int64(n)
}

// headerSize returns the size of everything before the data section's
// padding, and the offsets of the tensors.
func (w *Writer) headerSize() (uint64, []uint64) {
	n := uint64(4 + 4 + 8 + 8)
	for _, kv := range w.kvs {
		n += 8 + uint64(len(kv.Key)) + 4 + valueSize(kv.Value)
	}
	offsets := make([]uint64, len(w.tensors))
	var off uint64
	a := w.alignment()
	for i, t := range w.tensors {
		n += 8 + uint64(len(t.name)) + 4 + 8*uint64(len(t.shape)) + 4 + 8
		offsets[i] = off
		off += alignUp(uint64(t.size), a)
	}
	return n, offsets
}

// valueSize is the encoded size of v without its type tag.
func valueSize(v Value) uint64 {
	if v.typ != TypeArray {
		if s, ok := v.data.(string); ok {
			return 8 + uint64(len(s))
		}
		return uint64(v.typ.fixedSize())
	}
	n := uint64(4 + 8)
	switch s := v.data.(type) {
	case []string:
		for _, e := range s {
			n += 8 + uint64(len(e))
		}
	case []Value:
		for _, e := range s {
			n += valueSize(e)
		}
	default:
		n += uint64(v.Len()) * uint64(v.elem.fixedSize())
	}
	return n
}

// countingWriter counts bytes and remembers the first error.
type countingWriter struct {
	w   *bufio.Writer
	n   int64
	err error
	buf [8]byte
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

func (c *countingWriter) u8(x uint8) { c.Write([]byte{x}) }

func (c *countingWriter) u16(x uint16) {
	binary.LittleEndian.PutUint16(c.buf[:], x)
	c.Write(c.buf[:2])
}

func (c *countingWriter) u32(x uint32) {
	binary.LittleEndian.PutUint32(c.buf[:], x)
	c.Write(c.buf[:4])
}

func (c *countingWriter) u64(x uint64) {
	binary.LittleEndian.PutUint64(c.buf[:], x)
	c.Write(c.buf[:8])
}

func (c *countingWriter) str(s string) {
	c.u64(uint64(len(s)))
	if c.err != nil {
		return
	}
	n, err := c.w.WriteString(s)
	c.n += int64(n)
	c.err = err
}

var zeros [256]byte

// pad writes zeros up to the next multiple of a.
func (c *countingWriter) pad(a uint64) {
	n := alignUp(uint64(c.n), a) - uint64(c.n)
	for n > 0 {
		k := min(n, uint64(len(zeros)))
		c.Write(zeros[:k])
		n -= k
	}
}

// value writes v without its type tag.
func (c *countingWriter) value(v Value) {
	switch x := v.data.(type) {
	case uint8:
		c.u8(x)
	case int8:
		c.u8(uint8(x))
	case uint16:
		c.u16(x)
	case int16:
		c.u16(uint16(x))
	case uint32:
		c.u32(x)
	case int32:
		c.u32(uint32(x))
	case float32:
		c.u32(math.Float32bits(x))
	case bool:
		if x {
			c.u8(1)
		} else {
			c.u8(0)
		}
	case string:
		c.str(x)
	case uint64:
		c.u64(x)
	case int64:
		c.u64(uint64(x))
	case float64:
		c.u64(math.Float64bits(x))
	case []uint8:
		c.arrayHead(v)
		c.Write(x)
	case []string:
		c.arrayHead(v)
		for _, s := range x {
			c.str(s)
		}
	case []Value:
		c.arrayHead(v)
		for _, e := range x {
			c.value(e)
		}
	default:
		c.arrayHead(v)
		for i := range v.Len() {
			c.value(v.Index(i))
		}
	}
}

func (c *countingWriter) arrayHead(v Value) {
	c.u32(uint32(v.elem))
	c.u64(uint64(v.Len()))
}

// chunk is how much tensor data is written between cancellation checks.
const chunk = 4 << 20

// Encode writes the file to out and returns the number of bytes written.
// It stops with ctx's error if ctx is cancelled, leaving out incomplete.
func (w *Writer) Encode(ctx context.Context, out io.Writer) (int64, error) {
	for _, kv := range w.kvs {
		if err := kv.Value.check(1); err != nil {
			return 0, fmt.Errorf("gguf: key %q: %w", kv.Key, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	a := w.alignment()
	total := w.Size()
	_, offsets := w.headerSize()
	c := &countingWriter{w: bufio.NewWriterSize(out, int(min(max(total, 4096), 1<<20)))}
	c.Write([]byte(Magic))
	c.u32(w.version)
	c.u64(uint64(len(w.tensors)))
	c.u64(uint64(len(w.kvs)))
	for _, kv := range w.kvs {
		c.str(kv.Key)
		c.u32(uint32(kv.Value.typ))
		c.value(kv.Value)
	}
	for i, t := range w.tensors {
		c.str(t.name)
		c.u32(uint32(len(t.shape)))
		for _, d := range t.shape {
			c.u64(uint64(d))
		}
		c.u32(uint32(t.typ))
		c.u64(offsets[i])
	}
	c.pad(a)
	dataStart := c.n
	for i, t := range w.tensors {
		if err := ctx.Err(); err != nil {
			return c.n, err
		}
		if c.err != nil {
			break
		}
		if uint64(c.n-dataStart) != offsets[i] {
			return c.n, fmt.Errorf("gguf: internal error: tensor %q at %d, want %d", t.name, c.n-dataStart, offsets[i])
		}
		if t.fill != nil {
			lw := &limitWriter{w: c, left: t.size}
			if err := t.fill(lw); err != nil {
				return c.n, fmt.Errorf("gguf: tensor %q: %w", t.name, err)
			}
			if lw.left != 0 {
				return c.n, fmt.Errorf("gguf: tensor %q: fill wrote %d bytes, want %d", t.name, t.size-lw.left, t.size)
			}
		} else {
			for p := t.data; len(p) > 0; {
				k := min(len(p), chunk)
				c.Write(p[:k])
				p = p[k:]
				if len(p) > 0 {
					if err := ctx.Err(); err != nil {
						return c.n, err
					}
				}
			}
		}
		c.pad(a)
		if w.Progress != nil && c.err == nil {
			w.Progress(c.n, total)
		}
	}
	if c.err == nil {
		c.err = c.w.Flush()
	}
	if c.err != nil {
		return c.n, fmt.Errorf("gguf: write: %w", c.err)
	}
	if c.n != total {
		return c.n, fmt.Errorf("gguf: internal error: wrote %d bytes, computed %d", c.n, total)
	}
	return c.n, nil
}

// limitWriter passes at most left bytes through and fails beyond that.
type limitWriter struct {
	w    io.Writer
	left int64
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > l.left {
		return 0, fmt.Errorf("fill wrote more than the tensor's size")
	}
	n, err := l.w.Write(p)
	l.left -= int64(n)
	return n, err
}

// WriteFile writes the file to path atomically: it writes a temporary file
// in the same directory, syncs it and renames it over path, so that path
// never holds a partial file. The temporary file is removed on failure or
// cancellation.
func (w *Writer) WriteFile(ctx context.Context, path string) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err = w.Encode(ctx, tmp); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	if err = tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("gguf: %w", err)
	}
	return nil
}
