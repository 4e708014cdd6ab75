package cuda

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// defaultLibrary is the CUDA driver library as the NVIDIA driver installs it.
const defaultLibrary = "libcuda.so.1"

// loadDriver opens the CUDA driver library lib ("" for the installed
// driver's) and binds its functions.
func loadDriver(lib string) (*driver, error) {
	name := lib
	if name == "" {
		name = defaultLibrary
	}
	h, err := purego.Dlopen(name, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		if lib == "" {
			return nil, fmt.Errorf("cuda: no NVIDIA driver (%s not found): %w", name, err)
		}
		return nil, fmt.Errorf("cuda: cannot load the CUDA driver library %s: %w", name, err)
	}
	d := &driver{lib: name}
	lookup := func(sym string) (uintptr, error) { return purego.Dlsym(h, sym) }
	if err := d.bind(lookup, purego.RegisterFunc); err != nil {
		return nil, err
	}
	return d, nil
}
