package gguf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"saji/kernels/quant"
)

// raw builds GGUF bytes by hand for hostile-input tests.
type raw struct{ bytes.Buffer }

func (r *raw) u8(x uint8) *raw { r.WriteByte(x); return r }

func (r *raw) u32(x uint32) *raw {
	r.Write(binary.LittleEndian.AppendUint32(nil, x))
	return r
}

func (r *raw) u64(x uint64) *raw {
	r.Write(binary.LittleEndian.AppendUint64(nil, x))
	return r
}

func (r *raw) str(s string) *raw { r.u64(uint64(len(s))); r.WriteString(s); return r }

// pad appends zeros up to a multiple of a.
func (r *raw) pad(a int) *raw {
	for r.Len()%a != 0 {
		r.WriteByte(0)
	}
	return r
}

// zeros appends n zero bytes.
func (r *raw) zeros(n int) *raw { r.Write(make([]byte, n)); return r }

// hdr starts a file: magic, version, tensor count, KV count.
func hdr(version uint32, nTensors, nKV uint64) *raw {
	r := &raw{}
	r.WriteString(Magic)
	return r.u32(version).u64(nTensors).u64(nKV)
}

// kvU32 appends a uint32 KV.
func (r *raw) kvU32(key string, x uint32) *raw {
	return r.str(key).u32(uint32(TypeUint32)).u32(x)
}

// tensor appends a tensor info.
func (r *raw) tensor(name string, typ quant.Type, offset uint64, shape ...uint64) *raw {
	r.str(name).u32(uint32(len(shape)))
	for _, d := range shape {
		r.u64(d)
	}
	return r.u32(uint32(typ)).u64(offset)
}

// nested returns a KV whose value is an array of arrays depth levels deep.
func nested(depth int) *raw {
	r := hdr(3, 0, 1).str("deep").u32(uint32(TypeArray))
	for range depth - 1 {
		r.u32(uint32(TypeArray)).u64(1)
	}
	return r.u32(uint32(TypeUint8)).u64(0)
}

func TestParseHostile(t *testing.T) {
	const big = 1 << 62
	tests := []struct {
		name string
		data []byte
		want string // error substring; "" means the file must parse
	}{
		{"empty", nil, "not a GGUF file"},
		{"short magic", []byte("GG"), "not a GGUF file"},
		{"bad magic", []byte("GGMLxxxxxxxxxxxxxxxxxxxx"), "not a GGUF file"},
		{"byte-swapped magic", []byte("FUGG\x00\x00\x00\x03"), "big-endian"},
		{"no version", []byte("GGUF\x03"), "version needs 4 bytes"},
		{"version 0", hdr(0, 0, 0).Bytes(), "version 0"},
		{"version 1", hdr(1, 0, 0).Bytes(), "version 1"},
		{"big-endian v3", (&raw{}).u8('G').u8('G').u8('U').u8('F').u32(0x03000000).Bytes(), "big-endian"},
		{"big-endian v2", (&raw{}).u8('G').u8('G').u8('U').u8('F').u32(0x02000000).Bytes(), "byte-swapped"},
		{"future version", hdr(4, 0, 0).Bytes(), "version 4"},
		{"truncated counts", hdr(3, 0, 0).Bytes()[:12], "tensor count needs 8 bytes"},
		{"minimal v3", hdr(3, 0, 0).Bytes(), ""},
		{"minimal v2", hdr(2, 0, 0).Bytes(), ""},
		{"absurd KV count", hdr(3, 0, big).Bytes(), "metadata count"},
		{"absurd tensor count", hdr(3, big, 0).Bytes(), "tensor count"},
		{"KV count past EOF", hdr(3, 0, 2).kvU32("a", 1).Bytes(), "metadata count 2 is impossible"},
		{"second key past EOF", hdr(3, 0, 2).kvU32("a", 1).u64(100).zeros(10).Bytes(), "metadata key 1 needs 100 bytes"},
		{"key length past EOF", hdr(3, 0, 1).u64(1 << 20).zeros(16).Bytes(), "metadata key 0 needs"},
		{"key over limit", hdr(3, 0, 1).u64(1 << 31).zeros(16).Bytes(), "exceeds the limit"},
		{"empty key", hdr(3, 0, 1).str("").u32(0).u8(0).u8(0).Bytes(), "is empty"},
		{"duplicate key", hdr(3, 0, 2).kvU32("a", 1).kvU32("a", 2).Bytes(), "duplicate metadata key \"a\""},
		{"unknown value type", hdr(3, 0, 1).str("k").u32(13).u64(0).Bytes(), "unknown value type 13"},
		{"huge value type", hdr(3, 0, 1).str("k").u32(0xFFFFFFFF).u64(0).Bytes(), "unknown value type"},
		{"value past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeUint64)).u32(0).Bytes(), "uint64 value needs 8 bytes"},
		{"string past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeString)).u64(100).zeros(10).Bytes(), "string value needs 100 bytes"},
		{"string over limit", hdr(3, 0, 1).str("k").u32(uint32(TypeString)).u64(1 << 60).Bytes(), "exceeds the limit"},
		{"unknown array type", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(77).u64(0).Bytes(), "unknown array element type 77"},
		{"absurd array length", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint8)).u64(big).Bytes(), "exceeds the limit"},
		{"array past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint32)).u64(1000).zeros(40).Bytes(), "array of 1000 uint32 needs 4000 bytes"},
		{"string array past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(1 << 20).zeros(64).Bytes(), "array of 1048576 string needs"},
		{"string in array past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(2).str("ok").u64(1 << 20).Bytes(), "string of array needs 1048576 bytes but only 0 are left in the file (element 1)"},
		{"array of arrays past EOF", hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeArray)).u64(1 << 30).zeros(100).Bytes(), "array of 1073741824 array needs"},
		{"nested arrays ok", nested(maxDepth).Bytes(), ""},
		{"nesting depth bomb", nested(maxDepth + 1).Bytes(), "nested deeper than 8"},
		{"nesting depth bomb deep", nested(10000).Bytes(), "nested deeper than 8"},
		{"alignment not u32", hdr(3, 0, 1).str(KeyAlignment).u32(uint32(TypeUint64)).u64(32).Bytes(), "must be a uint32"},
		{"alignment zero", hdr(3, 0, 1).kvU32(KeyAlignment, 0).Bytes(), "not a non-zero power of two"},
		{"alignment not power of two", hdr(3, 0, 1).kvU32(KeyAlignment, 48).Bytes(), "alignment 48"},
		{"tensor info truncated", hdr(3, 1, 0).str("t").u32(1).u64(4).zeros(4).Bytes(), "offset of tensor \"t\" needs 8 bytes"},
		{"too many dims", hdr(3, 1, 0).tensor("t", quant.TypeF32, 0, 1, 1, 1, 1, 1).pad(32).zeros(32).Bytes(), "5 dimensions"},
		{"negative dim", hdr(3, 1, 0).tensor("t", quant.TypeF32, 0, 1<<63).pad(32).Bytes(), "is negative"},
		{"dims product overflow", hdr(3, 1, 0).tensor("t", quant.TypeF32, 0, 1<<32, 1<<32).pad(32).Bytes(), "more than 2^63 elements"},
		{"dims product overflow 4d", hdr(3, 1, 0).tensor("t", quant.TypeI8, 0, 1<<20, 1<<20, 1<<20, 1<<20).pad(32).Bytes(), "more than 2^63 elements"},
		{"byte size overflow", hdr(3, 1, 0).tensor("t", quant.TypeF64, 0, 1<<60, 4).pad(32).Bytes(), "overflows"},
		{"unknown tensor type", hdr(3, 1, 0).tensor("t", 99, 0, 4).pad(32).zeros(32).Bytes(), "unknown type 99"},
		{"retired tensor type", hdr(3, 1, 0).tensor("t", 4, 0, 32).pad(32).zeros(32).Bytes(), "unknown type 4"},
		{"row not whole blocks", hdr(3, 1, 0).tensor("t", quant.TypeQ4_0, 0, 33).pad(32).zeros(64).Bytes(), "not a multiple of the Q4_0 block size 32"},
		{"unaligned offset", hdr(3, 1, 0).tensor("t", quant.TypeF32, 4, 1).pad(32).zeros(64).Bytes(), "not a multiple of the alignment"},
		{"data past EOF", hdr(3, 1, 0).tensor("t", quant.TypeF32, 0, 16).pad(32).zeros(32).Bytes(), "extends past the end"},
		{"offset past EOF", hdr(3, 1, 0).tensor("t", quant.TypeF32, 1<<63, 1).pad(32).zeros(32).Bytes(), "extends past the end"},
		{"offset near 2^64", hdr(3, 1, 0).tensor("t", quant.TypeF32, ^uint64(31), 8).pad(32).zeros(32).Bytes(), "extends past the end"},
		{"data section past EOF", hdr(3, 1, 0).tensor("t", quant.TypeF32, 0, 0).Bytes(), "data section would start"},
		{"overlapping tensors", hdr(3, 2, 0).tensor("a", quant.TypeF32, 0, 16).tensor("b", quant.TypeF32, 32, 16).pad(32).zeros(128).Bytes(), "overlap"},
		{"overlap reversed", hdr(3, 2, 0).tensor("a", quant.TypeF32, 32, 16).tensor("b", quant.TypeF32, 0, 16).pad(32).zeros(128).Bytes(), "overlap"},
		{"duplicate tensor", hdr(3, 2, 0).tensor("a", quant.TypeF32, 0, 8).tensor("a", quant.TypeF32, 32, 8).pad(32).zeros(64).Bytes(), "duplicate tensor name \"a\""},
		{"tensor name past EOF", hdr(3, 1, 0).u64(1 << 20).zeros(40).Bytes(), "name of tensor 0 needs"},
		{"two tensors ok", hdr(3, 2, 0).tensor("a", quant.TypeF32, 32, 8).tensor("b", quant.TypeF32, 0, 8).pad(32).zeros(64).Bytes(), ""},
		{"zero-size tensors share offset", hdr(3, 2, 0).tensor("a", quant.TypeF32, 0, 0).tensor("b", quant.TypeF32, 0, 8).pad(32).zeros(32).Bytes(), ""},
		{"no dims scalar", hdr(3, 1, 0).tensor("s", quant.TypeF32, 0).pad(32).zeros(32).Bytes(), ""},
		{"no tensors, unpadded end", hdr(3, 0, 1).kvU32("a", 1).Bytes(), ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := OpenBytes(tc.data)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("OpenBytes: %v", err)
				}
				for _, ti := range f.Tensors() {
					d, err := f.Data(ti)
					if err != nil || int64(len(d)) != ti.Size {
						t.Errorf("Data(%s) = %d bytes, %v; want %d", ti.Name, len(d), err, ti.Size)
					}
				}
				return
			}
			if err == nil {
				t.Fatalf("OpenBytes succeeded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "gguf: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrUnsupported) {
				t.Errorf("error %q wraps neither ErrFormat nor ErrUnsupported", err)
			}
		})
	}
}

// TestParseNoHugeAllocation checks that a lying header cannot make the
// parser allocate much more than the file's size.
func TestParseNoHugeAllocation(t *testing.T) {
	cases := map[string][]byte{
		"KVs":     hdr(3, 0, 1<<40).zeros(1 << 10).Bytes(),
		"tensors": hdr(3, 1<<40, 0).zeros(1 << 10).Bytes(),
		"array":   hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeUint64)).u64(1 << 29).zeros(1 << 10).Bytes(),
		"strings": hdr(3, 0, 1).str("k").u32(uint32(TypeArray)).u32(uint32(TypeString)).u64(1 << 29).zeros(1 << 10).Bytes(),
	}
	for name, data := range cases {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := OpenBytes(data)
		runtime.ReadMemStats(&after)
		if err == nil {
			t.Errorf("%s: OpenBytes succeeded", name)
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 64<<10 {
			t.Errorf("%s: %d bytes allocated for a %d-byte file", name, n, len(data))
		}
	}
}

func TestParseNestedValues(t *testing.T) {
	data := hdr(3, 0, 1).str("n").u32(uint32(TypeArray)).
		u32(uint32(TypeArray)).u64(2).
		u32(uint32(TypeString)).u64(2).str("a").str("b").
		u32(uint32(TypeInt16)).u64(3).u32(0xFFFF0001).u32(0xAAAA7FFF)
	// The int16 array is 1, -1, 0x7FFF: six bytes; the last u32 wrote two
	// extra bytes, so fix up by trimming them.
	b := data.Bytes()[:data.Len()-2]
	f, err := OpenBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := f.Value("n")
	arrs, err := v.AsArrays()
	if err != nil || len(arrs) != 2 {
		t.Fatalf("AsArrays = %v, %v", arrs, err)
	}
	if s, err := arrs[0].AsStrings(); err != nil || strings.Join(s, ",") != "a,b" {
		t.Errorf("inner 0 = %v, %v", s, err)
	}
	if n, ok := arrs[1].Interface().([]int16); !ok || len(n) != 3 || n[0] != 1 || n[1] != -1 || n[2] != 0x7FFF {
		t.Errorf("inner 1 = %#v", arrs[1].Interface())
	}
	if got := v.String(); got != `[["a", "b"], [1, -1, 32767]]` {
		t.Errorf("String() = %s", got)
	}
}
