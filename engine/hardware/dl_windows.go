package hardware

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// nvmlLibrary is the NVML library's name as the driver installs it.
const nvmlLibrary = "nvml.dll"

// openNVML opens the NVML library that comes with the NVIDIA driver:
// current drivers put it in System32, older ones in NVSMI under Program
// Files. Only those folders are searched, never the current one.
func openNVML() (uintptr, string, error) {
	h, err := windows.LoadLibraryEx(nvmlLibrary, 0, windows.LOAD_LIBRARY_SEARCH_SYSTEM32)
	if err == nil {
		return uintptr(h), nvmlLibrary, nil
	}
	first := err
	pf := os.Getenv("ProgramW6432")
	if pf == "" {
		pf = os.Getenv("ProgramFiles")
	}
	if pf != "" {
		path := filepath.Join(pf, "NVIDIA Corporation", "NVSMI", nvmlLibrary)
		if h, err := windows.LoadLibraryEx(path, 0, windows.LOAD_WITH_ALTERED_SEARCH_PATH); err == nil {
			return uintptr(h), path, nil
		}
	}
	return 0, nvmlLibrary, fmt.Errorf("hardware: no NVIDIA driver (%s not found): %w", nvmlLibrary, first)
}

// librarySymbol is the address of a library's exported function.
func librarySymbol(lib uintptr, name string) (uintptr, error) {
	sym, err := windows.GetProcAddress(windows.Handle(lib), name)
	if err != nil {
		return 0, fmt.Errorf("hardware: %s: %w", name, err)
	}
	return sym, nil
}
