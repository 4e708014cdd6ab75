package quant

import (
	"fmt"
	"strings"
)

// Type is a ggml tensor element type, numbered exactly as in GGUF files
// (ggml's enum ggml_type). Values that ggml retired are not defined.
type Type uint32

// The ggml tensor types. The numbering is part of the GGUF file format.
const (
	TypeF32     Type = 0
	TypeF16     Type = 1
	TypeQ4_0    Type = 2
	TypeQ4_1    Type = 3
	TypeQ5_0    Type = 6
	TypeQ5_1    Type = 7
	TypeQ8_0    Type = 8
	TypeQ8_1    Type = 9
	TypeQ2_K    Type = 10
	TypeQ3_K    Type = 11
	TypeQ4_K    Type = 12
	TypeQ5_K    Type = 13
	TypeQ6_K    Type = 14
	TypeQ8_K    Type = 15
	TypeIQ2_XXS Type = 16
	TypeIQ2_XS  Type = 17
	TypeIQ3_XXS Type = 18
	TypeIQ1_S   Type = 19
	TypeIQ4_NL  Type = 20
	TypeIQ3_S   Type = 21
	TypeIQ2_S   Type = 22
	TypeIQ4_XS  Type = 23
	TypeI8      Type = 24
	TypeI16     Type = 25
	TypeI32     Type = 26
	TypeI64     Type = 27
	TypeF64     Type = 28
	TypeIQ1_M   Type = 29
	TypeBF16    Type = 30
	TypeTQ1_0   Type = 34
	TypeTQ2_0   Type = 35
	TypeMXFP4   Type = 39
	TypeNVFP4   Type = 40
	TypeQ1_0    Type = 41
	TypeQ2_0    Type = 42
)

// QK_K is the super-block size of the K-quants and the IQ formats.
const QK_K = 256

// traits describes the storage layout of one type.
type traits struct {
	name      string
	blockSize int // elements per block
	typeSize  int // bytes per block
}

// table holds the layout of every type a GGUF file may carry, including the
// ones Saji cannot yet compute with, so that a reader can size any tensor.
// It is an array indexed by type (entries without a name are unknown types)
// because kernels look sizes up in their inner loops.
var table = [...]traits{
	TypeF32:     {"F32", 1, 4},
	TypeF16:     {"F16", 1, 2},
	TypeQ4_0:    {"Q4_0", 32, 18},
	TypeQ4_1:    {"Q4_1", 32, 20},
	TypeQ5_0:    {"Q5_0", 32, 22},
	TypeQ5_1:    {"Q5_1", 32, 24},
	TypeQ8_0:    {"Q8_0", 32, 34},
	TypeQ8_1:    {"Q8_1", 32, 36},
	TypeQ2_K:    {"Q2_K", QK_K, 84},
	TypeQ3_K:    {"Q3_K", QK_K, 110},
	TypeQ4_K:    {"Q4_K", QK_K, 144},
	TypeQ5_K:    {"Q5_K", QK_K, 176},
	TypeQ6_K:    {"Q6_K", QK_K, 210},
	TypeQ8_K:    {"Q8_K", QK_K, 292},
	TypeIQ2_XXS: {"IQ2_XXS", QK_K, 66},
	TypeIQ2_XS:  {"IQ2_XS", QK_K, 74},
	TypeIQ3_XXS: {"IQ3_XXS", QK_K, 98},
	TypeIQ1_S:   {"IQ1_S", QK_K, 50},
	TypeIQ4_NL:  {"IQ4_NL", 32, 18},
	TypeIQ3_S:   {"IQ3_S", QK_K, 110},
	TypeIQ2_S:   {"IQ2_S", QK_K, 82},
	TypeIQ4_XS:  {"IQ4_XS", QK_K, 136},
	TypeI8:      {"I8", 1, 1},
	TypeI16:     {"I16", 1, 2},
	TypeI32:     {"I32", 1, 4},
	TypeI64:     {"I64", 1, 8},
	TypeF64:     {"F64", 1, 8},
	TypeIQ1_M:   {"IQ1_M", QK_K, 56},
	TypeBF16:    {"BF16", 1, 2},
	TypeTQ1_0:   {"TQ1_0", QK_K, 54},
	TypeTQ2_0:   {"TQ2_0", QK_K, 66},
	TypeMXFP4:   {"MXFP4", 32, 17},
	TypeNVFP4:   {"NVFP4", 64, 36},
	TypeQ1_0:    {"Q1_0", 128, 18},
	TypeQ2_0:    {"Q2_0", 64, 18},
}

// Known reports whether t is a type whose storage layout Saji knows.
func (t Type) Known() bool { return t.traits().name != "" }

// traits returns t's entry of table, empty for an unknown type.
func (t Type) traits() traits {
	if uint64(t) >= uint64(len(table)) {
		return traits{}
	}
	return table[t]
}

// String returns ggml's name for the type, such as "Q4_K", or "type(N)" for
// an unknown value.
func (t Type) String() string {
	if tr := t.traits(); tr.name != "" {
		return tr.name
	}
	return fmt.Sprintf("type(%d)", uint32(t))
}

// BlockSize is the number of elements in one block (1 for plain types).
// It is 0 for an unknown type.
func (t Type) BlockSize() int { return t.traits().blockSize }

// TypeSize is the number of bytes one block occupies. It is 0 for an
// unknown type.
func (t Type) TypeSize() int { return t.traits().typeSize }

// RowSize returns the number of bytes that n elements of type t occupy.
// It fails for an unknown type or when n is not a whole number of blocks.
func (t Type) RowSize(n int64) (int64, error) {
	tr := t.traits()
	if tr.name == "" {
		return 0, fmt.Errorf("quant: unknown tensor type %d", uint32(t))
	}
	if n < 0 || n%int64(tr.blockSize) != 0 {
		return 0, fmt.Errorf("quant: %d elements is not a whole number of %s blocks of %d", n, tr.name, tr.blockSize)
	}
	return n / int64(tr.blockSize) * int64(tr.typeSize), nil
}

// ParseType returns the type named s (case-insensitive, as ggml spells it:
// "q4_k", "F16", "iq4_nl").
func ParseType(s string) (Type, error) {
	for t, tr := range table {
		if tr.name != "" && strings.EqualFold(tr.name, s) {
			return Type(t), nil
		}
	}
	return 0, fmt.Errorf("quant: unknown type name %q", s)
}
