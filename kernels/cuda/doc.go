// Package cuda is Saji's NVIDIA GPU backend: the CUDA driver API
// (libcuda.so.1, nvcuda.dll) loaded at run time with purego, without cgo
// and without the CUDA toolkit, running the kernels of kernels.cu compiled
// to PTX that ships inside the binary.
//
// Open returns a Device, the gpu.Device of one GPU: its primary context,
// one stream on which every copy and launch is queued, and the kernels'
// module, which the driver compiles for the GPU when it is loaded (a PTX
// compiler error comes back in the error). gpu.New turns a Device into a
// kernels.Backend. Probe lists the GPUs for messages. Failed driver calls
// are *Error values ("cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of
// memory)"); errors.Is(err, ErrOutOfMemory) tells a GPU that is full.
//
// Tests run all of it, the purego binding included, against a fake
// libcuda that runs kernels.cu on the CPU (kernels/cuda/emu), since the
// machines that build Saji have no GPU. Where the machine has one, the
// kernel and model tests run on it as well, as "cuda:0" subtests beside
// the "emulator" ones (skipped without a driver; SAJI_CUDA_REQUIRE=1
// fails them instead).
package cuda
