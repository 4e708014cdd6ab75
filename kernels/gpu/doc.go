// Package gpu is the device-independent half of Saji's GPU backends: a
// kernels.Backend whose tensors live in device memory and whose operations
// are kernel launches, over a Device that a driver binding provides
// (kernels/cuda for NVIDIA GPUs through the CUDA driver API, kernels/metal
// for Apple GPUs). It validates shapes, keeps weights uploaded once, pools
// activation buffers, and turns each operation into launches of the
// kernels listed in Kernels, whose names, parameters and launch geometry
// both bindings implement identically.
package gpu
