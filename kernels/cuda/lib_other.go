//go:build !linux && !windows

package cuda

import (
	"fmt"
	"runtime"
)

// defaultLibrary names, in messages, the library CUDA would come in.
const defaultLibrary = "libcuda"

// loadDriver fails: NVIDIA ships the CUDA driver for Linux and Windows only.
func loadDriver(string) (*driver, error) {
	return nil, fmt.Errorf("cuda: CUDA needs Linux or Windows (this is %s)", runtime.GOOS)
}
