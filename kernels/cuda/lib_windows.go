package cuda

import (
	"fmt"

	"github.com/ebitengine/purego"
	"golang.org/x/sys/windows"
)

// defaultLibrary is the CUDA driver library as the NVIDIA driver installs
// it, in System32.
const defaultLibrary = "nvcuda.dll"

// loadDriver opens the CUDA driver library lib ("" for the installed
// driver's, searched in System32 only, never in the current folder) and
// binds its functions.
func loadDriver(lib string) (*driver, error) {
	name := lib
	var h windows.Handle
	var err error
	if lib == "" {
		name = defaultLibrary
		h, err = windows.LoadLibraryEx(name, 0, windows.LOAD_LIBRARY_SEARCH_SYSTEM32)
	} else {
		h, err = windows.LoadLibraryEx(name, 0, windows.LOAD_WITH_ALTERED_SEARCH_PATH)
	}
	if err != nil {
		if lib == "" {
			return nil, fmt.Errorf("cuda: no NVIDIA driver (%s not found): %w", name, err)
		}
		return nil, fmt.Errorf("cuda: cannot load the CUDA driver library %s: %w", name, err)
	}
	d := &driver{lib: name}
	lookup := func(sym string) (uintptr, error) { return windows.GetProcAddress(h, sym) }
	if err := d.bind(lookup, purego.RegisterFunc); err != nil {
		return nil, err
	}
	return d, nil
}
