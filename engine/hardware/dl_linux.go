package hardware

import (
	"fmt"

	"github.com/ebitengine/purego"
)

// nvmlLibrary is the NVML library's name as the driver installs it.
const nvmlLibrary = "libnvidia-ml.so.1"

// openNVML opens the NVML library that comes with the NVIDIA driver.
func openNVML() (uintptr, string, error) {
	lib, err := purego.Dlopen(nvmlLibrary, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return 0, nvmlLibrary, fmt.Errorf("hardware: no NVIDIA driver (%s not found): %w", nvmlLibrary, err)
	}
	return lib, nvmlLibrary, nil
}

// librarySymbol is the address of a library's exported function.
func librarySymbol(lib uintptr, name string) (uintptr, error) {
	sym, err := purego.Dlsym(lib, name)
	if err != nil {
		return 0, fmt.Errorf("hardware: %w", err)
	}
	return sym, nil
}
