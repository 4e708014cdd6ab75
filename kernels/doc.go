// Package kernels is the home of Saji's compute backends. The backend
// interface (tensors that may live on a device, and the operations a
// transformer needs) arrives with the forward pass; the subpackages hold
// the block formats (quant), the CPU kernels (cpu) and the CUDA kernels
// (cuda). Kernels never import the engine.
package kernels
