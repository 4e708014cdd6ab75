package metal

import (
	"fmt"

	"saji/kernels/gpu"
)

// binding is one entry of a compute encoder's argument table: a buffer
// bound with setBuffer:offset:atIndex: (Ptr) or 4 bytes set with
// setBytes:length:atIndex: (I32, F32).
type binding struct {
	// index is the [[buffer(index)]] slot: the parameter's position.
	index int
	kind  gpu.ArgKind
	// buf is a Ptr argument's MTLBuffer (0: none, bind the placeholder)
	// and off its byte offset.
	buf uintptr
	off int
	// bits are an I32 or F32 argument's bytes, little-endian.
	bits uint32
}

// bindArgs checks args against kernel k's parameters (gpu.CheckArgs) and
// returns how they are bound: parameter i at buffer index i, pointers as
// buffers at their offsets, scalars as bytes. A Ptr argument without a
// buffer (Handle 0) is allowed for the nullable parameters (the kernels do
// not read them when their has_* flag is 0); the device binds a
// placeholder buffer there.
func bindArgs(k gpu.Kernel, args []gpu.Arg) ([]binding, error) {
	if err := gpu.CheckArgs(k, args); err != nil {
		return nil, fmt.Errorf("metal: %w", err)
	}
	bs := make([]binding, len(args))
	for i, a := range args {
		b := binding{index: i, kind: a.Kind}
		switch a.Kind {
		case gpu.Ptr:
			b.buf, b.off = a.Buf.Handle, a.Off
		case gpu.I32, gpu.F32:
			b.bits = a.Bits
		default:
			return nil, fmt.Errorf("metal: %s: argument %d (%s) is of unknown kind %v", k.Name, i, k.Params[i].Name, a.Kind)
		}
		bs[i] = b
	}
	return bs, nil
}

// checkLaunch checks the launch geometry of kernel k: a thread group of
// exactly the spec's Block threads (the kernels' reductions rely on it).
// It reports run false for an empty grid, which launches nothing.
func checkLaunch(k gpu.Kernel, grid, block gpu.Dim3) (run bool, err error) {
	threads := uint64(block.X) * uint64(block.Y) * uint64(block.Z)
	if threads != uint64(k.Block) {
		return false, fmt.Errorf("metal: %s runs thread groups of %d threads, not %d×%d×%d",
			k.Name, k.Block, block.X, block.Y, block.Z)
	}
	return grid.X != 0 && grid.Y != 0 && grid.Z != 0, nil
}

// checkPipeline checks that a compute pipeline of kernel k, as Metal built
// it for this GPU, can run the kernel: thread groups of the spec's Block
// threads, and SIMD groups of 32 threads, which the kernels' lane
// arithmetic and reductions assume.
func checkPipeline(k gpu.Kernel, maxThreads, simdWidth uint64) error {
	if maxThreads < uint64(k.Block) {
		return fmt.Errorf("metal: %s: this GPU runs at most %d threads per thread group with it, and the kernel needs %d",
			k.Name, maxThreads, k.Block)
	}
	if simdWidth != 32 {
		return fmt.Errorf("metal: %s: this GPU's SIMD groups are %d threads wide; the kernels need 32", k.Name, simdWidth)
	}
	return nil
}
