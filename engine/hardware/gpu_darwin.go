package hardware

import (
	"context"
	"fmt"

	"github.com/ebitengine/purego"
	"github.com/ebitengine/purego/objc"
)

// driverName names, in notes, the driver the GPU probe queries.
const driverName = "Metal driver"

// The frameworks the Metal probe loads. A command-line program gets no
// Metal device unless CoreGraphics is loaded too.
const (
	metalFramework        = "/System/Library/Frameworks/Metal.framework/Metal"
	coreGraphicsFramework = "/System/Library/Frameworks/CoreGraphics.framework/CoreGraphics"
)

// probeDrivers asks Metal for the system's default GPU and the memory it
// recommends a program's working set stay within.
func probeDrivers(context.Context) ([]GPU, []string) {
	g, err := metalDevice()
	if err != nil {
		return nil, []string{noteOf(err)}
	}
	return []GPU{g}, nil
}

// metalDevice describes MTLCreateSystemDefaultDevice's device.
func metalDevice() (GPU, error) {
	if _, err := purego.Dlopen(coreGraphicsFramework, purego.RTLD_NOW|purego.RTLD_GLOBAL); err != nil {
		return GPU{}, fmt.Errorf("hardware: no Metal (CoreGraphics not loadable): %w", err)
	}
	lib, err := purego.Dlopen(metalFramework, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	if err != nil {
		return GPU{}, fmt.Errorf("hardware: no Metal (the Metal framework not loadable): %w", err)
	}
	sym, err := purego.Dlsym(lib, "MTLCreateSystemDefaultDevice")
	if err != nil {
		return GPU{}, fmt.Errorf("hardware: no Metal: %w", err)
	}
	var createSystemDefaultDevice func() objc.ID
	purego.RegisterFunc(&createSystemDefaultDevice, sym)
	dev := createSystemDefaultDevice()
	if dev == 0 {
		return GPU{}, fmt.Errorf("hardware: no Metal device (MTLCreateSystemDefaultDevice returned nil)")
	}
	defer dev.Send(objc.RegisterName("release"))

	name := "Apple GPU"
	if ns := dev.Send(objc.RegisterName("name")); ns != 0 {
		if s := objc.Send[string](ns, objc.RegisterName("UTF8String")); s != "" {
			name = s
		}
	}
	total := objc.Send[uint64](dev, objc.RegisterName("recommendedMaxWorkingSetSize"))
	used := objc.Send[uint64](dev, objc.RegisterName("currentAllocatedSize"))
	unified := objc.Send[bool](dev, objc.RegisterName("hasUnifiedMemory"))
	if total == 0 {
		return GPU{}, fmt.Errorf("hardware: the Metal device %q reports no working set size", name)
	}
	return GPU{
		Vendor:  "apple",
		Name:    name,
		Total:   total,
		Free:    total - min(used, total),
		Unified: unified,
	}, nil
}
