//go:build darwin

package metal

import (
	"errors"
	"fmt"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"

	"saji/kernels/gpu"
)

// This file is the thin binding: the Objective-C classes, selectors and C
// functions the device uses, each wrapper one message of Apple's API.

// The frameworks the device loads. A command-line program gets no Metal
// device unless CoreGraphics is loaded too; Foundation provides
// NSAutoreleasePool and NSString (Metal would load it anyway).
const (
	foundationFramework   = "/System/Library/Frameworks/Foundation.framework/Foundation"
	coreGraphicsFramework = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"
	metalFramework        = "/System/Library/Frameworks/Metal.framework/Metal"
)

// Metal constants.
const (
	// MTLResourceStorageModeShared: memory that the CPU and GPU share.
	resourceStorageModeShared = 0 << 4
	// MTLCommandBufferStatusCompleted and MTLCommandBufferStatusError: a
	// command buffer has run, successfully or not.
	commandBufferStatusCompleted = 4
	commandBufferStatusError     = 5
)

// Selectors, registered once (sel_registerName needs no framework).
var (
	selAlloc                 = objc.RegisterName("alloc")
	selInit                  = objc.RegisterName("init")
	selRelease               = objc.RegisterName("release")
	selRetain                = objc.RegisterName("retain")
	selDrain                 = objc.RegisterName("drain")
	selInitWithUTF8String    = objc.RegisterName("initWithUTF8String:")
	selUTF8String            = objc.RegisterName("UTF8String")
	selLocalizedDescription  = objc.RegisterName("localizedDescription")
	selName                  = objc.RegisterName("name")
	selSetLanguageVersion    = objc.RegisterName("setLanguageVersion:")
	selSetFastMathEnabled    = objc.RegisterName("setFastMathEnabled:")
	selNewLibraryWithSource  = objc.RegisterName("newLibraryWithSource:options:error:")
	selNewFunctionWithName   = objc.RegisterName("newFunctionWithName:")
	selNewComputePipeline    = objc.RegisterName("newComputePipelineStateWithFunction:error:")
	selMaxTotalThreads       = objc.RegisterName("maxTotalThreadsPerThreadgroup")
	selThreadExecutionWidth  = objc.RegisterName("threadExecutionWidth")
	selNewCommandQueue       = objc.RegisterName("newCommandQueue")
	selCommandBuffer         = objc.RegisterName("commandBuffer")
	selComputeCommandEncoder = objc.RegisterName("computeCommandEncoder")
	selSetComputePipeline    = objc.RegisterName("setComputePipelineState:")
	selSetBuffer             = objc.RegisterName("setBuffer:offset:atIndex:")
	selSetBytes              = objc.RegisterName("setBytes:length:atIndex:")
	selDispatchThreadgroups  = objc.RegisterName("dispatchThreadgroups:threadsPerThreadgroup:")
	selEndEncoding           = objc.RegisterName("endEncoding")
	selBlitCommandEncoder    = objc.RegisterName("blitCommandEncoder")
	selFillBuffer            = objc.RegisterName("fillBuffer:range:value:")
	selCopyFromBuffer        = objc.RegisterName("copyFromBuffer:sourceOffset:toBuffer:destinationOffset:size:")
	selNewBufferWithBytes    = objc.RegisterName("newBufferWithBytes:length:options:")
	selCommit                = objc.RegisterName("commit")
	selWaitUntilCompleted    = objc.RegisterName("waitUntilCompleted")
	selStatus                = objc.RegisterName("status")
	selError                 = objc.RegisterName("error")
	selNewBufferWithLength   = objc.RegisterName("newBufferWithLength:options:")
	selNewBufferWithBytesNC  = objc.RegisterName("newBufferWithBytesNoCopy:length:options:deallocator:")
	selContents              = objc.RegisterName("contents")
	selMaxBufferLength       = objc.RegisterName("maxBufferLength")
	selRecommendedMaxWorking = objc.RegisterName("recommendedMaxWorkingSetSize")
	selCurrentAllocatedSize  = objc.RegisterName("currentAllocatedSize")
)

// mtlSize is MTLSize: three NSUIntegers, passed by value.
type mtlSize struct {
	Width, Height, Depth uint64
}

// nsRange is NSRange: a location and a length, NSUIntegers.
type nsRange struct {
	Location, Length uint64
}

func sizeOf(d gpu.Dim3) mtlSize {
	return mtlSize{uint64(d.X), uint64(d.Y), uint64(d.Z)}
}

// runtimeLib is what loading the frameworks provides: the classes (which
// exist only once their framework is loaded) and MTLCreateSystemDefaultDevice.
type runtimeLib struct {
	nsAutoreleasePool objc.Class
	nsString          objc.Class
	mtlCompileOptions objc.Class
	createDevice      func() objc.ID
}

// loadRuntime loads Foundation, CoreGraphics and Metal and looks up what
// the device needs from them.
func loadRuntime() (*runtimeLib, error) {
	for _, fw := range []string{foundationFramework, coreGraphicsFramework} {
		if _, err := purego.Dlopen(fw, purego.RTLD_NOW|purego.RTLD_GLOBAL); err != nil {
			return nil, fmt.Errorf("metal: loading %s: %w", fw, err)
		}
	}
	lib, err := purego.Dlopen(metalFramework, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return nil, fmt.Errorf("metal: loading the Metal framework: %w", err)
	}
	sym, err := purego.Dlsym(lib, "MTLCreateSystemDefaultDevice")
	if err != nil {
		return nil, fmt.Errorf("metal: %w", err)
	}
	rt := &runtimeLib{
		nsAutoreleasePool: objc.GetClass("NSAutoreleasePool"),
		nsString:          objc.GetClass("NSString"),
		mtlCompileOptions: objc.GetClass("MTLCompileOptions"),
	}
	for name, c := range map[string]objc.Class{
		"NSAutoreleasePool": rt.nsAutoreleasePool, "NSString": rt.nsString, "MTLCompileOptions": rt.mtlCompileOptions,
	} {
		if c == 0 {
			return nil, fmt.Errorf("metal: the Objective-C class %s is missing", name)
		}
	}
	purego.RegisterFunc(&rt.createDevice, sym)
	return rt, nil
}

// newPool returns a new NSAutoreleasePool; drain it with drainPool.
func (rt *runtimeLib) newPool() objc.ID {
	return objc.ID(rt.nsAutoreleasePool).Send(selAlloc).Send(selInit)
}

func drainPool(pool objc.ID) {
	if pool != 0 {
		pool.Send(selDrain)
	}
}

// newString returns a new NSString holding s (release it).
func (rt *runtimeLib) newString(s string) objc.ID {
	// purego passes s NUL-terminated; initWithUTF8String copies it.
	return objc.ID(rt.nsString).Send(selAlloc).Send(selInitWithUTF8String, s)
}

// goString returns the text of an NSString ("" for nil).
func goString(ns objc.ID) string {
	if ns == 0 {
		return ""
	}
	return objc.Send[string](ns, selUTF8String)
}

// errorText returns an NSError's localizedDescription.
func errorText(nsErr objc.ID) string {
	if nsErr == 0 {
		return "no error description"
	}
	if s := goString(nsErr.Send(selLocalizedDescription)); s != "" {
		return s
	}
	return "no error description"
}

func release(id objc.ID) {
	if id != 0 {
		id.Send(selRelease)
	}
}

func retain(id objc.ID) objc.ID {
	if id != 0 {
		id.Send(selRetain)
	}
	return id
}

// newCompileOptions returns MTLCompileOptions with the language version
// set and fast math off (release it).
func (rt *runtimeLib) newCompileOptions(version uint64) objc.ID {
	opts := objc.ID(rt.mtlCompileOptions).Send(selAlloc).Send(selInit)
	opts.Send(selSetLanguageVersion, version)
	opts.Send(selSetFastMathEnabled, false)
	return opts
}

// newLibrary compiles MSL source (newLibraryWithSource:options:error:).
func (rt *runtimeLib) newLibrary(dev objc.ID, source string, opts objc.ID) (objc.ID, error) {
	src := rt.newString(source)
	defer release(src)
	var nsErr objc.ID
	lib := dev.Send(selNewLibraryWithSource, src, opts, unsafe.Pointer(&nsErr))
	if lib == 0 {
		return 0, fmt.Errorf("metal: compiling kernels.metal: %s", errorText(nsErr))
	}
	return lib, nil
}

// newPipeline builds the compute pipeline of the library's function name
// and returns it with its maxTotalThreadsPerThreadgroup and
// threadExecutionWidth.
func (rt *runtimeLib) newPipeline(dev, lib objc.ID, name string) (p objc.ID, maxThreads, width uint64, err error) {
	ns := rt.newString(name)
	fn := lib.Send(selNewFunctionWithName, ns)
	release(ns)
	if fn == 0 {
		return 0, 0, 0, fmt.Errorf("metal: kernels.metal has no kernel %s", name)
	}
	defer release(fn)
	var nsErr objc.ID
	p = dev.Send(selNewComputePipeline, fn, unsafe.Pointer(&nsErr))
	if p == 0 {
		return 0, 0, 0, fmt.Errorf("metal: building the pipeline of %s: %s", name, errorText(nsErr))
	}
	return p, objc.Send[uint64](p, selMaxTotalThreads), objc.Send[uint64](p, selThreadExecutionWidth), nil
}

// newBuffer allocates a shared buffer of n bytes (newBufferWithLength).
func newBuffer(dev objc.ID, n int) objc.ID {
	return dev.Send(selNewBufferWithLength, uint64(n), uint64(resourceStorageModeShared))
}

// newBufferNoCopy wraps n bytes of host memory at the page-aligned addr
// (newBufferWithBytesNoCopy, no deallocator: the memory stays the caller's).
func newBufferNoCopy(dev objc.ID, addr uintptr, n int) objc.ID {
	return dev.Send(selNewBufferWithBytesNC, addr, uint64(n), uint64(resourceStorageModeShared), uintptr(0))
}

// newBufferCopy returns a new shared buffer holding a copy of data (not
// empty), made now (newBufferWithBytes).
func newBufferCopy(dev objc.ID, data []byte) objc.ID {
	return dev.Send(selNewBufferWithBytes, unsafe.Pointer(unsafe.SliceData(data)), uint64(len(data)), uint64(resourceStorageModeShared))
}

// contents returns a shared buffer's memory as n bytes.
func contents(buf objc.ID, n int) []byte {
	p := objc.Send[unsafe.Pointer](buf, selContents)
	if p == nil || n == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(p), n)
}

// setBuffer binds buf at byte off to argument index idx of a compute encoder.
func setBuffer(enc, buf objc.ID, off, idx int) {
	enc.Send(selSetBuffer, buf, uint64(off), uint64(idx))
}

// setBytes sets argument index idx of a compute encoder to 4 bytes.
func setBytes(enc objc.ID, bits uint32, idx int) {
	enc.Send(selSetBytes, unsafe.Pointer(&bits), uint64(4), uint64(idx))
}

// dispatch encodes grid thread groups of block threads.
func dispatch(enc objc.ID, grid, block mtlSize) {
	enc.Send(selDispatchThreadgroups, grid, block)
}

// blitCopy encodes into command buffer cb a copy of n bytes from src to
// byte off of dst.
func blitCopy(cb, src, dst objc.ID, off, n int) error {
	blit := cb.Send(selBlitCommandEncoder)
	if blit == 0 {
		return errors.New("metal: the command buffer gave no blit encoder")
	}
	blit.Send(selCopyFromBuffer, src, uint64(0), dst, uint64(off), uint64(n))
	blit.Send(selEndEncoding)
	return nil
}

// blitZero encodes into command buffer cb the zeroing of n bytes of buf
// from byte off.
func blitZero(cb, buf objc.ID, off, n int) error {
	blit := cb.Send(selBlitCommandEncoder)
	if blit == 0 {
		return errors.New("metal: the command buffer gave no blit encoder")
	}
	blit.Send(selFillBuffer, buf, nsRange{uint64(off), uint64(n)}, uint8(0))
	blit.Send(selEndEncoding)
	return nil
}

// commandBufferStatus returns a command buffer's MTLCommandBufferStatus.
func commandBufferStatus(cb objc.ID) uint64 { return objc.Send[uint64](cb, selStatus) }

// commandBufferError returns the error of a completed command buffer, or
// nil when it succeeded.
func commandBufferError(cb objc.ID) error {
	if commandBufferStatus(cb) != commandBufferStatusError {
		return nil
	}
	return fmt.Errorf("metal: a kernel failed: %s", errorText(cb.Send(selError)))
}

// deviceName returns the GPU's name.
func deviceName(dev objc.ID) string { return goString(dev.Send(selName)) }
