// Package metal is Saji's Apple GPU driver binding: a gpu.Device that runs
// the kernels of gpu.Kernels with Metal, reached through purego and the
// Objective-C runtime (no cgo). The kernels are Metal Shading Language
// source (kernels.metal, embedded) compiled when the device opens.
//
// All Metal calls run on one goroutine locked to its OS thread, each request
// inside its own autorelease pool; the Device's methods hand closures to it.
// Launches are encoded into a command buffer that is committed when the host
// next needs the results (Download, Sync) or writes memory the kernels use
// (Upload, Zero): buffers are shared (CPU and GPU see the same memory), so
// copies are plain memory copies once the queued work has finished. Weights
// are mapped in place with newBufferWithBytesNoCopy.
//
// The Objective-C binding exists on macOS only; elsewhere Open reports that
// Metal needs macOS. The kernel source, the argument encoding and the
// platform rules (language version, page rounding) are plain Go, tested on
// every platform, and the kernels themselves are checked and run on the CPU
// by the tests through a C++ stand-in for the Metal standard library
// (testdata/msl).
package metal
