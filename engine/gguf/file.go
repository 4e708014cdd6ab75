package gguf

import (
	"errors"
	"fmt"
	"os"
	"slices"

	"saji/kernels/quant"
)

// TensorInfo describes one tensor of a GGUF file.
type TensorInfo struct {
	// Name is the tensor's name, such as "blk.0.attn_q.weight".
	Name string
	// Type is the element type (F32, Q4_K, ...).
	Type quant.Type
	// Shape holds the dimensions in ggml order: Shape[0] (ne0) is the row
	// length, the fastest-varying dimension. It has as many entries as the
	// file declares (0 to 4).
	Shape []int64
	// Offset is the tensor data's offset from the start of its shard's data
	// section.
	Offset uint64
	// Size is the tensor data's size in bytes.
	Size int64
	// Shard is the index of the file holding the data: 0 except in split
	// models.
	Shard int
}

// Elements returns the number of elements (the product of the shape; 1
// for a tensor with no dimensions).
func (t TensorInfo) Elements() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// KV is one metadata entry.
type KV struct {
	Key   string
	Value Value
}

// shard is one mapped (or read) GGUF file.
type shard struct {
	path  string
	data  []byte
	unmap func() error
	hdr   *header
}

// File is an open GGUF model: the metadata and tensor table of one file, or
// of all shards of a split model, with the tensor data mapped into memory.
//
// A File is safe for concurrent use by readers. Close unmaps the data: the
// slices returned by TensorData must not be used after it, and Close must
// not run concurrently with other methods.
type File struct {
	shards      []*shard
	tensors     []TensorInfo
	tensorIndex map[string]int
	closed      bool
}

// Open opens the GGUF file at path, mapping it into memory. If the file is
// the first shard of a split model (<prefix>-00001-of-0000N.gguf with a
// split.count key above 1), Open also opens the other shards from the same
// directory and presents one merged tensor table; opening any other shard
// of a split model fails with an error naming the first shard (use
// OpenSingle to inspect one shard by itself).
func Open(path string) (*File, error) {
	s, err := openShard(path)
	if err != nil {
		return nil, err
	}
	count, no, err := splitKeys(s.hdr)
	if err != nil {
		_ = s.close()
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	if count <= 1 {
		return newFile([]*shard{s})
	}
	if no != 0 {
		_ = s.close()
		first := "the first shard"
		if prefix, ok := splitPrefix(path, int(no), int(count)); ok {
			first = SplitPath(prefix, 0, int(count))
		}
		return nil, fmt.Errorf("gguf: %s is shard %d of %d of a split model: open %s instead", path, no+1, count, first)
	}
	return openSplit(s, int(count))
}

// OpenSingle opens exactly the file at path, like Open, but never follows
// the split keys: a shard of a split model is presented by itself.
func OpenSingle(path string) (*File, error) {
	s, err := openShard(path)
	if err != nil {
		return nil, err
	}
	return newFile([]*shard{s})
}

// OpenBytes parses a GGUF file held in memory. The File's tensor data views
// point into b, which must not be modified while they are in use. Split
// keys are not followed.
func OpenBytes(b []byte) (*File, error) {
	h, err := parse(b)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	return newFile([]*shard{{data: b, hdr: h}})
}

// openShard maps and parses one file.
func openShard(path string) (*shard, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("gguf: %s is not a regular file", path)
	}
	size := st.Size()
	if int64(int(size)) != size || size < 0 {
		return nil, fmt.Errorf("gguf: %s: file of %d bytes is too large for this platform", path, size)
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		return nil, fmt.Errorf("gguf: map %s: %w", path, err)
	}
	h, err := parse(data)
	if err != nil {
		if unmap != nil {
			_ = unmap()
		}
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	return &shard{path: path, data: data, unmap: unmap, hdr: h}, nil
}

func (s *shard) close() error {
	if s.unmap == nil {
		s.data = nil
		return nil
	}
	err := s.unmap()
	s.unmap, s.data = nil, nil
	return err
}

// newFile builds the merged tensor table of the shards, which are closed
// if that fails.
func newFile(shards []*shard) (*File, error) {
	f := &File{shards: shards, tensorIndex: make(map[string]int)}
	for i, s := range shards {
		for _, t := range s.hdr.tensors {
			if _, dup := f.tensorIndex[t.Name]; dup {
				f.Close()
				return nil, fmt.Errorf("gguf: %s: %w: tensor %q appears in more than one shard", s.path, ErrFormat, t.Name)
			}
			t.Shard = i
			f.tensorIndex[t.Name] = len(f.tensors)
			f.tensors = append(f.tensors, t)
		}
	}
	return f, nil
}

// Close unmaps the file (all shards of a split model). It is safe to call
// more than once.
func (f *File) Close() error {
	if f.closed {
		return nil
	}
	f.closed = true
	var errs []error
	for _, s := range f.shards {
		if err := s.close(); err != nil {
			errs = append(errs, fmt.Errorf("gguf: unmap %s: %w", s.path, err))
		}
	}
	return errors.Join(errs...)
}

// Version returns the GGUF version of the (first) file: 2 or 3.
func (f *File) Version() uint32 { return f.shards[0].hdr.version }

// Alignment returns the data alignment of the (first) file.
func (f *File) Alignment() uint32 { return uint32(f.shards[0].hdr.alignment) }

// Path returns the path the file was opened from ("" for OpenBytes).
func (f *File) Path() string { return f.shards[0].path }

// Paths returns the paths of all shards, in order.
func (f *File) Paths() []string {
	p := make([]string, len(f.shards))
	for i, s := range f.shards {
		p[i] = s.path
	}
	return p
}

// Shards returns the number of files: 1, or the split count of a split
// model.
func (f *File) Shards() int { return len(f.shards) }

// DataOffset returns the offset of shard i's data section from the start of
// that file.
func (f *File) DataOffset(i int) int64 {
	if i < 0 || i >= len(f.shards) {
		return 0
	}
	return f.shards[i].hdr.dataOffset
}

// FileSize returns the total size in bytes of all shards.
func (f *File) FileSize() int64 {
	var n int64
	for _, s := range f.shards {
		n += int64(len(s.data))
	}
	return n
}

// Tensors returns the tensor table in file order (shard by shard for a
// split model). The returned slice is a copy; the Shape slices are shared
// and must not be modified.
func (f *File) Tensors() []TensorInfo { return slices.Clone(f.tensors) }

// Tensor returns the tensor named name.
func (f *File) Tensor(name string) (TensorInfo, bool) {
	i, ok := f.tensorIndex[name]
	if !ok {
		return TensorInfo{}, false
	}
	return f.tensors[i], true
}

// TensorData returns the bytes of the tensor named name: a read-only view
// into the mapped file (no copy), valid until Close. It must not be
// modified: the mapping is read-only, and writing to it faults.
func (f *File) TensorData(name string) ([]byte, error) {
	t, ok := f.Tensor(name)
	if !ok {
		return nil, fmt.Errorf("gguf: no tensor named %q", name)
	}
	return f.Data(t)
}

// Data returns the bytes of tensor t, as TensorData does, given its info.
func (f *File) Data(t TensorInfo) ([]byte, error) {
	if f.closed {
		return nil, errors.New("gguf: file is closed")
	}
	if t.Shard < 0 || t.Shard >= len(f.shards) {
		return nil, fmt.Errorf("gguf: tensor %q: no shard %d", t.Name, t.Shard)
	}
	s := f.shards[t.Shard]
	avail := uint64(len(s.data)) - uint64(s.hdr.dataOffset)
	if t.Size < 0 || t.Offset > avail || uint64(t.Size) > avail-t.Offset {
		return nil, fmt.Errorf("gguf: tensor %q lies outside its file", t.Name)
	}
	lo := s.hdr.dataOffset + int64(t.Offset)
	hi := lo + t.Size
	return s.data[lo:hi:hi], nil
}

// KVs returns the metadata in file order (of the first shard, for a split
// model). The returned slice is a copy; the values share storage with the
// File and must not be modified.
func (f *File) KVs() []KV { return slices.Clone(f.shards[0].hdr.kvs) }

// Value returns the metadata value under key.
func (f *File) Value(key string) (Value, bool) {
	h := f.shards[0].hdr
	i, ok := h.kvIndex[key]
	if !ok {
		return Value{}, false
	}
	return h.kvs[i].Value, true
}

// ParameterCount returns the total number of tensor elements.
func (f *File) ParameterCount() int64 {
	var n int64
	for _, t := range f.tensors {
		n += t.Elements()
	}
	return n
}
