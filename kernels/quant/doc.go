// Package quant defines ggml's tensor element types and block formats
// (F32, F16, BF16, Q4_0 ... Q8_1, the K-quants Q2_K ... Q8_K, IQ4_NL,
// IQ4_XS, MXFP4, the ternary TQ1_0 and TQ2_0, and the IQ1, IQ2 and IQ3
// formats): their layout, and pure-Go reference Dequantize and Quantize
// functions that produce the same bytes as ggml's reference quantizers.
// The IQ1, IQ2 and IQ3 formats are decoded (Dequantize); of them IQ3_S is
// written by Quantize (llama-quantize makes it without an importance
// matrix), and IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S and IQ3_XXS only by
// QuantizeWeighted, with the importance weights of an imatrix, as ggml
// does. QuantizeWeighted also writes the K-quants, Q4_0 ... Q5_1, IQ4 and
// IQ3_S as llama-quantize --imatrix does. Quantizable and
// QuantizableWeighted tell which types each writes.
//
// The functions here are the oracle that every SIMD and GPU kernel is
// tested against; they favour clarity over speed.
//
// # Round-trip error on N(0,1) data
//
// Quantizing then dequantizing 262144 standard normal values (64 rows of
// 4096, TestRoundTripError) gives these errors, as RMS(error)/RMS(data):
//
//	type    bits/weight  rel-RMS-error
//	F32          32        0
//	F16          16        2.08e-4
//	BF16         16        1.66e-3
//	Q8_0          8.5      5.35e-3
//	Q8_1          9        5.35e-3
//	Q8_K          9.125    6.96e-3
//	Q6_K          6.5625   1.78e-2
//	Q5_0          5.5      4.28e-2
//	Q5_1          6        3.79e-2
//	Q5_K          5.5      3.62e-2
//	Q4_0          4.5      8.61e-2
//	Q4_1          5        7.84e-2
//	Q4_K          4.5      7.16e-2
//	IQ4_NL        4.5      7.63e-2
//	IQ4_XS        4.25     7.68e-2
//	MXFP4         4.25     1.15e-1
//	Q3_K          3.4375   1.51e-1
//	IQ3_S         3.4375   1.66e-1
//	Q2_K          2.625    2.97e-1
//	TQ2_0         2.0625   8.06e-1
//	TQ1_0         1.6875   8.06e-1
//
// The figures are of Quantize, which uses no importance matrix, as
// llama-quantize does without one. The ternary formats are meant for
// models trained ternary: on Gaussian data most values round to zero.
package quant
