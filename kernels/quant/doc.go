// Package quant defines ggml's tensor element types and block formats
// (F32, F16, BF16, Q4_0 ... Q8_1, the K-quants Q2_K ... Q8_K, IQ4_NL and
// IQ4_XS): their layout, and pure-Go reference Dequantize and Quantize
// functions that produce the same bytes as ggml's reference quantizers.
//
// The functions here are the oracle that every SIMD and GPU kernel is
// tested against; they favour clarity over speed.
package quant
