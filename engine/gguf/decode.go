package gguf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"sort"
	"unsafe"

	"saji/kernels/quant"
)

// Format constants.
const (
	// Magic is the four bytes every GGUF file starts with.
	Magic = "GGUF"
	// Version is the GGUF version the Writer produces by default.
	Version = 3
	// DefaultAlignment is the data alignment used when a file has no
	// general.alignment key.
	DefaultAlignment = 32
	// MaxDims is the largest number of tensor dimensions (GGML_MAX_DIMS).
	MaxDims = 4
	// MaxTensorName is the longest tensor name, in bytes, that llama.cpp
	// accepts (GGML_MAX_NAME - 1). The reader accepts longer names; the
	// Writer refuses them.
	MaxTensorName = 63

	// KeyAlignment is the metadata key holding the data alignment.
	KeyAlignment = "general.alignment"
)

// Limits on single items, as in llama.cpp; they only matter for files of
// several GiB, since every length is also bounded by the bytes left.
const (
	maxStringLen     = 1 << 30
	maxArrayElements = 1 << 30
)

// ErrFormat is wrapped by every error about a malformed file.
var ErrFormat = errors.New("malformed GGUF")

// ErrTruncated is wrapped (with ErrFormat) by the errors of a file that
// ends too soon: an item, a count or a tensor needs more bytes than the
// file has left, as after an interrupted download or copy.
var ErrTruncated = fmt.Errorf("%w: the file ends too soon", ErrFormat)

// ErrUnsupported is wrapped by the errors about well-formed files this
// package does not read (GGUF v1, big-endian files, future versions).
var ErrUnsupported = errors.New("unsupported GGUF")

// header is the parsed contents of one GGUF file: everything but the
// tensor data, which stays in the byte slice it was parsed from.
type header struct {
	version    uint32
	kvs        []KV
	kvIndex    map[string]int
	tensors    []TensorInfo
	alignment  uint64
	dataOffset int64 // start of the data section, from the start of the file
}

// decoder reads little-endian values from a byte slice, failing cleanly at
// its end.
type decoder struct {
	b   []byte
	off int
}

func (d *decoder) left() int { return len(d.b) - d.off }

func (d *decoder) errf(format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d: %s", ErrFormat, d.off, fmt.Sprintf(format, args...))
}

// truncf is errf for a file that ends too soon.
func (d *decoder) truncf(format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d: %s", ErrTruncated, d.off, fmt.Sprintf(format, args...))
}

// need fails unless n more bytes are available.
func (d *decoder) need(n uint64, what string) error {
	if n > uint64(d.left()) {
		return d.truncf("%s needs %d bytes but only %d are left in the file", what, n, d.left())
	}
	return nil
}

func (d *decoder) u8(what string) (uint8, error) {
	if err := d.need(1, what); err != nil {
		return 0, err
	}
	v := d.b[d.off]
	d.off++
	return v, nil
}

func (d *decoder) u16(what string) (uint16, error) {
	if err := d.need(2, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint16(d.b[d.off:])
	d.off += 2
	return v, nil
}

func (d *decoder) u32(what string) (uint32, error) {
	if err := d.need(4, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint32(d.b[d.off:])
	d.off += 4
	return v, nil
}

func (d *decoder) u64(what string) (uint64, error) {
	if err := d.need(8, what); err != nil {
		return 0, err
	}
	v := binary.LittleEndian.Uint64(d.b[d.off:])
	d.off += 8
	return v, nil
}

// str reads a length-prefixed string, copying it out of the file.
func (d *decoder) str(what string) (string, error) {
	n, err := d.u64(what + " length")
	if err != nil {
		return "", err
	}
	if n > maxStringLen {
		return "", d.errf("%s length %d exceeds the limit of %d", what, n, maxStringLen)
	}
	if err := d.need(n, what); err != nil {
		return "", err
	}
	s := string(d.b[d.off : d.off+int(n)])
	d.off += int(n)
	return s, nil
}

// strings reads an array of n strings into one shared buffer: a vocabulary
// of 128K tokens and 280K merges then costs two allocations instead of
// 400K, and about half the memory.
func (d *decoder) strings(n int) ([]string, error) {
	start, total := d.off, 0
	for i := range n {
		l, err := d.u64("string of array length")
		if err == nil && l > maxStringLen {
			err = d.errf("string of array length %d exceeds the limit of %d", l, maxStringLen)
		}
		if err == nil {
			err = d.need(l, "string of array")
		}
		if err != nil {
			return nil, fmt.Errorf("%w (element %d)", err, i)
		}
		d.off += int(l)
		total += int(l)
	}
	buf := make([]byte, 0, total)
	out := make([]string, n)
	d.off = start
	for i := range out {
		l, _ := d.u64("string of array length")
		at := len(buf)
		buf = append(buf, d.b[d.off:d.off+int(l)]...)
		d.off += int(l)
		if l > 0 {
			out[i] = unsafe.String(&buf[at], int(l))
		}
	}
	return out, nil
}

// value reads one value of type t (the tag already consumed). depth is the
// array nesting level of the value.
func (d *decoder) value(t ValueType, depth int) (Value, error) {
	switch t {
	case TypeUint8:
		x, err := d.u8("uint8 value")
		return NewUint8(x), err
	case TypeInt8:
		x, err := d.u8("int8 value")
		return NewInt8(int8(x)), err
	case TypeUint16:
		x, err := d.u16("uint16 value")
		return NewUint16(x), err
	case TypeInt16:
		x, err := d.u16("int16 value")
		return NewInt16(int16(x)), err
	case TypeUint32:
		x, err := d.u32("uint32 value")
		return NewUint32(x), err
	case TypeInt32:
		x, err := d.u32("int32 value")
		return NewInt32(int32(x)), err
	case TypeFloat32:
		x, err := d.u32("float32 value")
		return NewFloat32(math.Float32frombits(x)), err
	case TypeBool:
		x, err := d.u8("bool value")
		return NewBool(x != 0), err
	case TypeString:
		x, err := d.str("string value")
		return NewString(x), err
	case TypeUint64:
		x, err := d.u64("uint64 value")
		return NewUint64(x), err
	case TypeInt64:
		x, err := d.u64("int64 value")
		return NewInt64(int64(x)), err
	case TypeFloat64:
		x, err := d.u64("float64 value")
		return NewFloat64(math.Float64frombits(x)), err
	case TypeArray:
		return d.array(depth)
	}
	return Value{}, d.errf("unknown value type %d", uint32(t))
}

// array reads an array's element type, count and elements.
func (d *decoder) array(depth int) (Value, error) {
	if depth > maxDepth {
		return Value{}, d.errf("arrays nested deeper than %d", maxDepth)
	}
	et32, err := d.u32("array element type")
	if err != nil {
		return Value{}, err
	}
	et := ValueType(et32)
	if !et.Valid() {
		return Value{}, d.errf("unknown array element type %d", et32)
	}
	n, err := d.u64("array length")
	if err != nil {
		return Value{}, err
	}
	if n > maxArrayElements {
		return Value{}, d.errf("array of %d elements exceeds the limit of %d", n, maxArrayElements)
	}
	// Every element takes at least minSize bytes, so the file must hold
	// n*minSize more bytes; this bounds every allocation below by the size
	// of the file (n <= 2^30 and minSize <= 12, so no overflow).
	if err := d.need(n*uint64(et.minSize()), fmt.Sprintf("array of %d %s", n, et)); err != nil {
		return Value{}, err
	}
	cnt := int(n)
	var data any
	switch et {
	case TypeUint8:
		data = fixedArray(d, cnt, 1, func(b []byte) uint8 { return b[0] })
	case TypeInt8:
		data = fixedArray(d, cnt, 1, func(b []byte) int8 { return int8(b[0]) })
	case TypeBool:
		data = fixedArray(d, cnt, 1, func(b []byte) bool { return b[0] != 0 })
	case TypeUint16:
		data = fixedArray(d, cnt, 2, binary.LittleEndian.Uint16)
	case TypeInt16:
		data = fixedArray(d, cnt, 2, func(b []byte) int16 { return int16(binary.LittleEndian.Uint16(b)) })
	case TypeUint32:
		data = fixedArray(d, cnt, 4, binary.LittleEndian.Uint32)
	case TypeInt32:
		data = fixedArray(d, cnt, 4, func(b []byte) int32 { return int32(binary.LittleEndian.Uint32(b)) })
	case TypeFloat32:
		data = fixedArray(d, cnt, 4, func(b []byte) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(b)) })
	case TypeUint64:
		data = fixedArray(d, cnt, 8, binary.LittleEndian.Uint64)
	case TypeInt64:
		data = fixedArray(d, cnt, 8, func(b []byte) int64 { return int64(binary.LittleEndian.Uint64(b)) })
	case TypeFloat64:
		data = fixedArray(d, cnt, 8, func(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) })
	case TypeString:
		if data, err = d.strings(cnt); err != nil {
			return Value{}, err
		}
	case TypeArray:
		s := make([]Value, cnt)
		for i := range s {
			if s[i], err = d.array(depth + 1); err != nil {
				return Value{}, err
			}
		}
		data = s
	}
	return Value{typ: TypeArray, elem: et, data: data}, nil
}

// fixedArray decodes cnt elements of size bytes each with conv. The caller
// has checked that the bytes are there.
func fixedArray[T any](d *decoder, cnt, size int, conv func([]byte) T) []T {
	s := make([]T, cnt)
	for i := range s {
		s[i] = conv(d.b[d.off+size*i:])
	}
	d.off += size * cnt
	return s
}

// parse reads the header, metadata and tensor infos of a GGUF file held in
// b and checks that every tensor lies inside b. It never panics and never
// allocates much more than len(b) bytes, whatever b holds.
func parse(b []byte) (*header, error) { return parseSized(b, uint64(len(b))) }

// parseSized is parse for a file of size bytes of which b holds the start
// (all of it when len(b) == size): the header must lie in b, the tensors
// within size. A header that runs past b fails with ErrTruncated.
func parseSized(b []byte, size uint64) (*header, error) {
	d := &decoder{b: b}
	if len(b) < 4 || string(b[:4]) != Magic {
		if len(b) >= 4 && string(b[:4]) == "FUGG" {
			return nil, fmt.Errorf("%w: magic is \"FUGG\": a byte-swapped (big-endian) file", ErrUnsupported)
		}
		return nil, fmt.Errorf("%w: not a GGUF file (the magic bytes are %q, want %q)", ErrFormat, b[:min(4, len(b))], Magic)
	}
	d.off = 4
	h := &header{}
	var err error
	if h.version, err = d.u32("version"); err != nil {
		return nil, err
	}
	switch {
	case h.version == 0:
		return nil, fmt.Errorf("%w: version 0 is not a GGUF version", ErrFormat)
	case h.version&0xFFFF == 0:
		return nil, fmt.Errorf("%w: version field 0x%08x looks byte-swapped: a big-endian file (version %d); only little-endian files are supported",
			ErrUnsupported, h.version, bits.ReverseBytes32(h.version))
	case h.version == 1:
		return nil, fmt.Errorf("%w: version 1 (GGUFv1 is no longer supported; convert the model again)", ErrUnsupported)
	case h.version > Version:
		return nil, fmt.Errorf("%w: version %d (this reader supports versions 2 and 3)", ErrUnsupported, h.version)
	}
	nTensors, err := d.u64("tensor count")
	if err != nil {
		return nil, err
	}
	nKV, err := d.u64("metadata count")
	if err != nil {
		return nil, err
	}
	// A KV needs at least a key length, a one-byte key, a type tag and a
	// one-byte value; a tensor info at least a name length, n_dims, type
	// and offset.
	const minKV, minTensor = 8 + 1 + 4 + 1, 8 + 4 + 4 + 8
	if nKV > uint64(d.left())/minKV {
		return nil, d.truncf("metadata count %d is impossible: the file has %d bytes left", nKV, d.left())
	}
	if nTensors > uint64(d.left()-int(nKV)*minKV)/minTensor {
		return nil, d.truncf("tensor count %d is impossible: the file has %d bytes left", nTensors, d.left())
	}

	h.kvs = make([]KV, 0, nKV)
	h.kvIndex = make(map[string]int, nKV)
	for i := range int(nKV) {
		key, err := d.str(fmt.Sprintf("metadata key %d", i))
		if err != nil {
			return nil, err
		}
		if key == "" {
			return nil, d.errf("metadata key %d is empty", i)
		}
		if j, dup := h.kvIndex[key]; dup {
			return nil, d.errf("duplicate metadata key %q (entries %d and %d)", key, j, i)
		}
		t, err := d.u32(fmt.Sprintf("type of key %q", key))
		if err != nil {
			return nil, err
		}
		if !ValueType(t).Valid() {
			return nil, d.errf("key %q has unknown value type %d", key, t)
		}
		v, err := d.value(ValueType(t), 1)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", key, err)
		}
		h.kvIndex[key] = len(h.kvs)
		h.kvs = append(h.kvs, KV{Key: key, Value: v})
	}

	h.alignment = DefaultAlignment
	if i, ok := h.kvIndex[KeyAlignment]; ok {
		v := h.kvs[i].Value
		a, isU32 := v.data.(uint32)
		if !isU32 {
			return nil, fmt.Errorf("%w: key %q must be a uint32, not %s", ErrFormat, KeyAlignment, v.typeName())
		}
		if a == 0 || a&(a-1) != 0 {
			return nil, fmt.Errorf("%w: alignment %d is not a non-zero power of two", ErrFormat, a)
		}
		h.alignment = uint64(a)
	}

	h.tensors = make([]TensorInfo, 0, nTensors)
	names := make(map[string]int, nTensors)
	for i := range int(nTensors) {
		t, err := d.tensorInfo(i, h.alignment)
		if err != nil {
			return nil, err
		}
		if j, dup := names[t.Name]; dup {
			return nil, fmt.Errorf("%w: duplicate tensor name %q (tensors %d and %d)", ErrFormat, t.Name, j, i)
		}
		names[t.Name] = i
		h.tensors = append(h.tensors, t)
	}

	// The data section starts at the next multiple of the alignment. A file
	// without tensors may end before it (llama.cpp does not seek there).
	start := alignUp(uint64(d.off), h.alignment)
	if start > size {
		if nTensors > 0 {
			return nil, fmt.Errorf("%w: the data section would start at %d, past the end of the file (%d bytes)", ErrTruncated, start, size)
		}
		start = size
	}
	h.dataOffset = int64(start)
	avail := size - start
	if err := checkLayout(h.tensors, avail); err != nil {
		return nil, err
	}
	return h, nil
}

// tensorInfo reads the i-th tensor info and computes its size.
func (d *decoder) tensorInfo(i int, alignment uint64) (TensorInfo, error) {
	var t TensorInfo
	var err error
	if t.Name, err = d.str(fmt.Sprintf("name of tensor %d", i)); err != nil {
		return t, err
	}
	nDims, err := d.u32(fmt.Sprintf("dimension count of tensor %q", t.Name))
	if err != nil {
		return t, err
	}
	if nDims > MaxDims {
		return t, d.errf("tensor %q has %d dimensions, more than %d", t.Name, nDims, MaxDims)
	}
	t.Shape = make([]int64, nDims)
	n := int64(1)
	overflow := false
	for j := range t.Shape {
		ne, err := d.u64(fmt.Sprintf("dimension %d of tensor %q", j, t.Name))
		if err != nil {
			return t, err
		}
		if ne > math.MaxInt64 {
			return t, d.errf("tensor %q: dimension %d is negative (%d)", t.Name, j, int64(ne))
		}
		t.Shape[j] = int64(ne)
		hi, lo := bits.Mul64(uint64(n), ne)
		if hi != 0 || lo > math.MaxInt64 {
			overflow = true
		}
		n = int64(lo)
	}
	typ, err := d.u32(fmt.Sprintf("type of tensor %q", t.Name))
	if err != nil {
		return t, err
	}
	t.Type = quant.Type(typ)
	if t.Offset, err = d.u64(fmt.Sprintf("offset of tensor %q", t.Name)); err != nil {
		return t, err
	}
	if overflow && !hasZero(t.Shape) {
		return t, fmt.Errorf("%w: tensor %q: shape %v has more than 2^63 elements", ErrFormat, t.Name, t.Shape)
	}
	if !t.Type.Known() {
		return t, fmt.Errorf("%w: tensor %q has unknown type %d", ErrFormat, t.Name, typ)
	}
	var ne0 int64 = 1
	if len(t.Shape) > 0 {
		ne0 = t.Shape[0]
	}
	if bs := int64(t.Type.BlockSize()); ne0%bs != 0 {
		return t, fmt.Errorf("%w: tensor %q: row length %d is not a multiple of the %s block size %d", ErrFormat, t.Name, ne0, t.Type, bs)
	}
	if t.Size, err = tensorBytes(t.Type, t.Shape); err != nil {
		return t, fmt.Errorf("%w: tensor %q: %w", ErrFormat, t.Name, err)
	}
	if t.Offset%alignment != 0 {
		return t, fmt.Errorf("%w: tensor %q: offset %d is not a multiple of the alignment %d", ErrFormat, t.Name, t.Offset, alignment)
	}
	return t, nil
}

func hasZero(shape []int64) bool {
	for _, n := range shape {
		if n == 0 {
			return true
		}
	}
	return false
}

// tensorBytes returns the size in bytes of a tensor of type typ and shape,
// failing on overflow or a row length that is not a whole number of blocks.
func tensorBytes(typ quant.Type, shape []int64) (int64, error) {
	var ne0 int64 = 1
	if len(shape) > 0 {
		ne0 = shape[0]
	}
	for _, n := range shape {
		if n == 0 {
			return 0, nil
		}
	}
	row, err := typ.RowSize(ne0)
	if err != nil {
		return 0, err
	}
	size := uint64(row)
	for _, n := range shape[min(1, len(shape)):] {
		hi, lo := bits.Mul64(size, uint64(n))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, fmt.Errorf("size of shape %v in %s overflows", shape, typ)
		}
		size = lo
	}
	return int64(size), nil
}

// checkLayout verifies that every tensor lies inside a data section of
// avail bytes and that no two tensors overlap.
func checkLayout(ts []TensorInfo, avail uint64) error {
	idx := make([]int, 0, len(ts))
	for i, t := range ts {
		if t.Offset > avail || uint64(t.Size) > avail-t.Offset {
			return fmt.Errorf("%w: tensor %q (offset %d, %d bytes) extends past the end of the file (data section of %d bytes)",
				ErrTruncated, t.Name, t.Offset, t.Size, avail)
		}
		if t.Size > 0 {
			idx = append(idx, i)
		}
	}
	sort.Slice(idx, func(a, b int) bool { return ts[idx[a]].Offset < ts[idx[b]].Offset })
	for k := 1; k < len(idx); k++ {
		prev, cur := ts[idx[k-1]], ts[idx[k]]
		if prev.Offset+uint64(prev.Size) > cur.Offset {
			return fmt.Errorf("%w: tensors %q (offset %d, %d bytes) and %q (offset %d) overlap",
				ErrFormat, prev.Name, prev.Offset, prev.Size, cur.Name, cur.Offset)
		}
	}
	return nil
}

// alignUp rounds n up to a multiple of a (a power of two), saturating
// instead of wrapping.
func alignUp(n, a uint64) uint64 {
	r := (n + a - 1) &^ (a - 1)
	if r < n {
		return math.MaxUint64
	}
	return r
}
