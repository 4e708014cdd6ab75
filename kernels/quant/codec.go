package quant

import "fmt"

// codec holds the reference conversions of one block format. Both work on
// whole blocks: len(dst) (or len(src)) elements, already checked to be a
// multiple of the block size, and a byte slice of exactly the matching size.
// quantize is nil for the formats ggml quantizes only with an importance
// matrix.
type codec struct {
	dequantize func(src []byte, dst []float32)
	quantize   func(src []float32, dst []byte)
}

// codecs lists the formats Saji can convert. Types missing here can still
// be read from and written to GGUF files, but not computed with.
var codecs = map[Type]codec{
	TypeF32:    {dequantizeF32, quantizeF32},
	TypeF16:    {dequantizeF16, quantizeF16},
	TypeBF16:   {dequantizeBF16, quantizeBF16},
	TypeQ4_0:   {dequantizeQ4_0, quantizeQ4_0},
	TypeQ4_1:   {dequantizeQ4_1, quantizeQ4_1},
	TypeQ5_0:   {dequantizeQ5_0, quantizeQ5_0},
	TypeQ5_1:   {dequantizeQ5_1, quantizeQ5_1},
	TypeQ8_0:   {dequantizeQ8_0, quantizeQ8_0},
	TypeQ8_1:   {dequantizeQ8_1, quantizeQ8_1},
	TypeQ2_K:   {dequantizeQ2_K, quantizeQ2_K},
	TypeQ3_K:   {dequantizeQ3_K, quantizeQ3_K},
	TypeQ4_K:   {dequantizeQ4_K, quantizeQ4_K},
	TypeQ5_K:   {dequantizeQ5_K, quantizeQ5_K},
	TypeQ6_K:   {dequantizeQ6_K, quantizeQ6_K},
	TypeQ8_K:   {dequantizeQ8_K, quantizeQ8_K},
	TypeIQ4_NL: {dequantizeIQ4_NL, quantizeIQ4_NL},
	TypeIQ4_XS: {dequantizeIQ4_XS, quantizeIQ4_XS},
	TypeMXFP4:  {dequantizeMXFP4, quantizeMXFP4},
	TypeTQ1_0:  {dequantizeTQ1_0, quantizeTQ1_0},
	TypeTQ2_0:  {dequantizeTQ2_0, quantizeTQ2_0},
	// The IQ formats but IQ3_S are written by ggml only with an importance
	// matrix.
	TypeIQ1_S:   {dequantizeIQ1_S, nil},
	TypeIQ1_M:   {dequantizeIQ1_M, nil},
	TypeIQ2_XXS: {dequantizeIQ(TypeIQ2_XXS), nil},
	TypeIQ2_XS:  {dequantizeIQ(TypeIQ2_XS), nil},
	TypeIQ2_S:   {dequantizeIQ(TypeIQ2_S), nil},
	TypeIQ3_XXS: {dequantizeIQ(TypeIQ3_XXS), nil},
	TypeIQ3_S:   {dequantizeIQ(TypeIQ3_S), quantizeIQ3_S},
}

// Supported reports whether Dequantize handles t (Quantizable says whether
// Quantize does too).
func Supported(t Type) bool {
	_, ok := codecs[t]
	return ok
}

// Quantizable reports whether Quantize handles t.
func Quantizable(t Type) bool { return codecs[t].quantize != nil }

// check validates a conversion of n elements of type t stored in nbytes.
func check(t Type, n, nbytes int) (codec, error) {
	c, ok := codecs[t]
	if !ok {
		return codec{}, fmt.Errorf("quant: no conversion for type %v", t)
	}
	want, err := t.RowSize(int64(n))
	if err != nil {
		return codec{}, err
	}
	if int64(nbytes) != want {
		return codec{}, fmt.Errorf("quant: %d %v elements need %d bytes, have %d", n, t, want, nbytes)
	}
	return c, nil
}

// Dequantize decodes len(dst) elements of type t from src. len(dst) must be
// a whole number of blocks and src exactly their size.
func Dequantize(t Type, src []byte, dst []float32) error {
	c, err := check(t, len(dst), len(src))
	if err != nil {
		return err
	}
	c.dequantize(src, dst)
	return nil
}

// Quantize encodes src as type t into dst with ggml's reference
// (round-to-nearest, no importance matrix) algorithm, so the bytes match
// llama-quantize's. len(src) must be a whole number of blocks and dst exactly
// their size.
func Quantize(t Type, src []float32, dst []byte) error {
	c, err := check(t, len(src), len(dst))
	if err != nil {
		return err
	}
	if c.quantize == nil {
		return errNeedsImatrix(t)
	}
	c.quantize(src, dst)
	return nil
}
