// Package metal is Saji's Apple GPU driver binding: a gpu.Device that runs
// the kernels of gpu.Kernels with Metal, reached through purego and the
// Objective-C runtime (no cgo). The kernels are Metal Shading Language
// source (kernels.metal, embedded) compiled when the device opens.
//
// All Metal calls run on one goroutine locked to its OS thread, each request
// inside its own autorelease pool; the Device's methods hand closures to it.
// Buffers are shared (the CPU and GPU see the same memory) and weights are
// mapped in place with newBufferWithBytesNoCopy. Launches are encoded into
// a command buffer that is committed every few dozen launches without
// waiting; the host waits only where it reads (Download, Sync). Uploads and
// zeroing keep queue order: written directly when the GPU is idle, queued
// as blits when it is not.
//
// The Objective-C binding exists on macOS only; elsewhere Open reports that
// Metal needs macOS. The kernel source, the argument encoding and the
// platform rules (language version, page rounding) are plain Go, tested on
// every platform, and the kernels themselves are checked and run on the CPU
// by the tests through a C++ stand-in for the Metal standard library
// (testdata/msl).
package metal
