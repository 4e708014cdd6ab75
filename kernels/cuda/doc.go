// Package cuda is Saji's NVIDIA GPU backend: the CUDA driver API
// (libcuda.so.1, nvcuda.dll) loaded at run time with purego, without cgo
// and without the CUDA toolkit, running the kernels of kernels.cu compiled
// to PTX that ships inside the binary.
package cuda
