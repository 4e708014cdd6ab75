package cuda

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// result is a CUresult, the status every driver API function returns.
type result uint32

// The CUresult values the binding tells apart (cuda.h).
const (
	cudaSuccess           result = 0
	cudaErrorInvalidValue result = 1
	cudaErrorOutOfMemory  result = 2
	cudaErrorNotFound     result = 500
)

// Device attributes (CUdevice_attribute) the binding reads.
const (
	attrComputeCapabilityMajor = 75
	attrComputeCapabilityMinor = 76
)

// JIT options (CUjit_option) of cuModuleLoadDataEx: the log buffers whose
// text says why a PTX module did not compile.
const (
	jitInfoLogBuffer          = 3
	jitInfoLogBufferSizeBytes = 4
	jitErrorLogBuffer         = 5
	jitErrorLogBufferSize     = 6
)

// ErrOutOfMemory is matched (with errors.Is) by the errors of operations
// that ran out of device memory.
var ErrOutOfMemory = errors.New("cuda: out of device memory")

// Error is a failed CUDA driver call.
type Error struct {
	// Func is the driver function, without its _v2 suffix ("cuMemAlloc").
	Func string
	// Code is the CUresult.
	Code uint32
	// Name and Desc are the driver's name and description of Code
	// ("CUDA_ERROR_OUT_OF_MEMORY", "out of memory").
	Name, Desc string
}

// Error reads "cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("CUDA error %d", e.Code)
	}
	if e.Desc == "" || e.Desc == name {
		return fmt.Sprintf("cuda: %s: %s", e.Func, name)
	}
	return fmt.Sprintf("cuda: %s: %s (%s)", e.Func, name, e.Desc)
}

// Is reports whether e is an out-of-memory error and target ErrOutOfMemory.
func (e *Error) Is(target error) bool {
	return target == ErrOutOfMemory && result(e.Code) == cudaErrorOutOfMemory
}

// driver is the part of the CUDA driver API Saji calls, bound at run time
// (or, in tests, to fakes). Handles (CUcontext, CUmodule, CUfunction,
// CUstream) are uintptr, device addresses (CUdeviceptr) uint64, and
// CUdevice an int32; sizes are size_t, which is 64 bits on every platform
// CUDA supports.
type driver struct {
	lib string // the library the functions came from, for messages

	init               func(flags uint32) result
	driverGetVersion   func(version *int32) result
	deviceGetCount     func(count *int32) result
	deviceGet          func(dev *int32, ordinal int32) result
	deviceGetName      func(name *byte, length int32, dev int32) result
	deviceTotalMem     func(bytes *uint64, dev int32) result
	deviceGetAttribute func(value *int32, attr int32, dev int32) result
	primaryCtxRetain   func(ctx *uintptr, dev int32) result
	primaryCtxRelease  func(dev int32) result
	ctxSetCurrent      func(ctx uintptr) result
	moduleLoadDataEx   func(mod *uintptr, image unsafe.Pointer, n uint32, options *int32, values *uintptr) result
	moduleGetFunction  func(fn *uintptr, mod uintptr, name *byte) result
	moduleUnload       func(mod uintptr) result
	memAlloc           func(ptr *uint64, size uint64) result
	memFree            func(ptr uint64) result
	memcpyHtoDAsync    func(dst uint64, src unsafe.Pointer, size uint64, stream uintptr) result
	memcpyDtoHAsync    func(dst unsafe.Pointer, src uint64, size uint64, stream uintptr) result
	memsetD8Async      func(dst uint64, value uint8, n uint64, stream uintptr) result
	streamCreate       func(stream *uintptr, flags uint32) result
	streamSynchronize  func(stream uintptr) result
	streamDestroy      func(stream uintptr) result
	launchKernel       func(fn uintptr, gx, gy, gz, bx, by, bz, shared uint32, stream uintptr, params *unsafe.Pointer, extra *unsafe.Pointer) result
	memGetInfo         func(free, total *uint64) result
	getErrorName       func(code result, str *unsafe.Pointer) result
	getErrorString     func(code result, str *unsafe.Pointer) result
}

// symbol is one driver function: the exported names to try in order (the
// first is the current one, later ones are older drivers' names) and the
// field to bind.
type symbol struct {
	names []string
	fptr  any
}

// symbols lists the functions of d to bind, each under the names the
// driver exports it by.
func (d *driver) symbols() []symbol {
	one := func(name string, fptr any) symbol { return symbol{[]string{name}, fptr} }
	return []symbol{
		one("cuInit", &d.init),
		one("cuDriverGetVersion", &d.driverGetVersion),
		one("cuDeviceGetCount", &d.deviceGetCount),
		one("cuDeviceGet", &d.deviceGet),
		one("cuDeviceGetName", &d.deviceGetName),
		one("cuDeviceTotalMem_v2", &d.deviceTotalMem),
		one("cuDeviceGetAttribute", &d.deviceGetAttribute),
		one("cuDevicePrimaryCtxRetain", &d.primaryCtxRetain),
		{[]string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}, &d.primaryCtxRelease},
		one("cuCtxSetCurrent", &d.ctxSetCurrent),
		one("cuModuleLoadDataEx", &d.moduleLoadDataEx),
		one("cuModuleGetFunction", &d.moduleGetFunction),
		one("cuModuleUnload", &d.moduleUnload),
		one("cuMemAlloc_v2", &d.memAlloc),
		one("cuMemFree_v2", &d.memFree),
		one("cuMemcpyHtoDAsync_v2", &d.memcpyHtoDAsync),
		one("cuMemcpyDtoHAsync_v2", &d.memcpyDtoHAsync),
		one("cuMemsetD8Async", &d.memsetD8Async),
		one("cuStreamCreate", &d.streamCreate),
		one("cuStreamSynchronize", &d.streamSynchronize),
		one("cuStreamDestroy_v2", &d.streamDestroy),
		one("cuLaunchKernel", &d.launchKernel),
		one("cuMemGetInfo_v2", &d.memGetInfo),
		one("cuGetErrorName", &d.getErrorName),
		one("cuGetErrorString", &d.getErrorString),
	}
}

// bind binds every function of d with lookup (the library's symbol
// table) and register (purego.RegisterFunc); a missing function means a
// driver too old for Saji.
func (d *driver) bind(lookup func(name string) (uintptr, error), register func(fptr any, sym uintptr)) error {
	for _, s := range d.symbols() {
		var sym uintptr
		var err error
		for _, name := range s.names {
			if sym, err = lookup(name); err == nil {
				break
			}
		}
		if err != nil {
			return fmt.Errorf("cuda: the CUDA driver is too old (%s has no %s): %w", d.lib, s.names[0], err)
		}
		register(s.fptr, sym)
	}
	return nil
}

// check turns the status of driver function fn into an error (nil on
// success), with the driver's name and description of the code.
func (d *driver) check(fn string, r result) error {
	if r == cudaSuccess {
		return nil
	}
	e := &Error{Func: strings.TrimSuffix(fn, "_v2"), Code: uint32(r)}
	if d.getErrorName != nil {
		var p unsafe.Pointer
		if d.getErrorName(r, &p) == cudaSuccess {
			e.Name = cString(p)
		}
	}
	if d.getErrorString != nil {
		var p unsafe.Pointer
		if d.getErrorString(r, &p) == cudaSuccess {
			e.Desc = cString(p)
		}
	}
	return e
}

// maxCString bounds the strings read from the driver: its error names
// and descriptions are far shorter.
const maxCString = 4096

// cString copies the NUL-terminated string at p (driver-owned, static
// memory) into a Go string.
func cString(p unsafe.Pointer) string {
	if p == nil {
		return ""
	}
	var b []byte
	for i := range maxCString {
		c := *(*byte)(unsafe.Add(p, i))
		if c == 0 {
			break
		}
		b = append(b, c)
	}
	return string(b)
}

// cBuffer returns the text of a NUL-padded buffer the driver wrote.
func cBuffer(b []byte) string {
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		b = b[:i]
	}
	return strings.TrimSpace(string(b))
}
