// Package synth writes synthetic models: GGUF files with a real model's
// architecture, shape and vocabulary but random weights, quantized the way
// llama-quantize would quantize the real model (quantize.Mix gives each
// tensor its type). They stand in for downloaded models in tests and in
// benchmarks (internal/tools/synthmodel writes them for saji bench), load
// in Saji and in llama.cpp alike, and produce gibberish. Only tests and dev
// tools import it, never the saji binary.
//
// The model is generated and written one tensor at a time, in row chunks
// spread over the CPUs, so a model much larger than memory can be written.
// The weights come from a seeded generator: the same seed, shape and type
// give the same file, whatever the number of threads.
package synth
