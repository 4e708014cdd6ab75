// Package metal will be Saji's Apple GPU backend: the kernels backend
// interface implemented with Metal through purego and the Objective-C
// runtime (no cgo), MSL shaders compiled at run time. It is empty until the
// backend interface exists; it is here so that the layout of the repository
// matches the design and the darwin cross-build covers it from the start.
package metal
