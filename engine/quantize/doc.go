// Package quantize re-quantizes a whole GGUF model: an F32, F16 or BF16
// file in, a Q8_0, Q4_K_M, IQ4_NL ... file out, with the per-tensor type
// mix llama-quantize chooses (Mix) and ggml's reference quantizers
// (kernels/quant), so that the output's tensors are byte for byte those
// llama-quantize writes.
//
// With an importance matrix (ReadImatrix: llama-imatrix's GGUF or .dat
// output, averaged as llama-quantize's load_imatrix does; Options.Imatrix)
// the matrices it has weights for are quantized with ggml's weighted
// quantizers, per expert for 3-D tensors, the mix takes its imatrix rules,
// and the targets that need one are written too (Q2_K_S, IQ3_XS, IQ3_XXS,
// IQ2_M, IQ2_S, IQ2_XS, IQ2_XXS, IQ1_M, IQ1_S; ImatrixFileTypes), byte
// for byte as llama-quantize --imatrix writes them.
//
// The model is streamed tensor by tensor: each tensor's rows are cut into
// chunks that a pool of goroutines converts while the chunks before them
// are written, in order, so memory stays bounded by a few chunks per
// thread whatever the model's size. The output is written to a temporary
// file beside the destination and renamed over it at the end: a failed or
// cancelled run leaves nothing behind.
package quantize
