package cuda

import _ "embed" // for ptxSource

//go:generate sh gen.sh

// ptxSource is the PTX of every kernel of gpu.Kernels: kernels.cu compiled
// by gen.sh with clang-14 (no CUDA toolkit needed). The driver compiles it
// for the GPU at hand when the module is loaded. To regenerate it after
// editing kernels.cu or prelude.h, run `go generate ./kernels/cuda` (or
// `sh kernels/cuda/gen.sh`) with clang-14 installed; ptx_test.go fails when
// the committed kernels.ptx is not what they produce.
//
//go:embed kernels.ptx
var ptxSource []byte
