// Package kernels defines Saji's compute backends: tensors that live on a
// device, and the operations a transformer needs. Kernels never import the
// engine.
//
// # Design
//
// A Backend (the CPU backend in kernels/cpu, with its SIMD kernels; the GPU
// backend in kernels/gpu, over CUDA through kernels/cuda or Metal through
// kernels/metal) creates Tensors and runs operations on them. Every Tensor
// knows its Backend, so a model keeps, per layer, the backend that holds that layer's
// weights and calls the operations on it; where two consecutive layers live
// on different backends, Move carries the activations across at the
// boundary. Model code is therefore the same wherever a layer runs.
//
// Weights are wrapped, not loaded: Backend.Weight takes the bytes of a tensor
// in its ggml block layout (from engine/gguf's zero-copy views of the mapped
// file). The CPU backend computes on those bytes in place; a device backend
// copies them once to device memory.
//
// Activations are F32 matrices whose rows are tokens, [n_features, n_tokens]
// in ggml order, so every operation works on a batch of tokens at once:
// MatMul multiplies a whole batch by a weight, which is where the prompt's
// speed comes from. Operations write into caller-allocated destinations,
// which keeps allocation (and, later, arenas and device memory pools) in
// the caller's hands.
//
// Numerics follow ggml's CPU backend, so that Saji's logits match
// llama.cpp's: before a quantized MatMul the activations are quantized to
// the weight type's dot-product format (Q8_0, Q8_1 or Q8_K blocks, or F16 for
// F16 weights) and the block dot products are integer sums scaled per block.
//
// Attention reads the keys and values of a layer through a KV view: the cache
// tensors, the number of filled cells and an optional cell-to-row map. A
// contiguous cache passes no map; a paged cache passes its block table
// flattened, so attention needs no change when the cache becomes paged.
//
// The recurrent layers of hybrid models (Mamba-2's selective scan,
// Backend.SSMScan; the gated delta net of Qwen3.5 and Qwen3-Next,
// Backend.GatedDeltaNet) keep a fixed-size state per sequence instead of
// a cache that grows: each call takes a batch's rows with a RecurrentSeq
// per sequence, naming its slot in the layer's states tensor, and
// overwrites the slot with the state after the sequence's last token (what
// llama.cpp's graph does with the op's final state). Prompts and decode
// take the same call; a chunked prompt continues from the state its last
// chunk left.
//
// The subpackages hold the block formats (quant) and the backends (cpu,
// gpu, cuda).
package kernels
