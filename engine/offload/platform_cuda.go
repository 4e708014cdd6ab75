//go:build linux || windows

package offload

import (
	"os"
	"strconv"

	"saji/kernels/cuda"
	"saji/kernels/gpu"
)

// The environment variables that choose the CUDA driver library and
// device, for drivers installed outside the loader's search path (WSL's
// /usr/lib/wsl/lib/libcuda.so.1, a container's mount) and machines with
// several GPUs.
const (
	envCUDALibrary = "SAJI_CUDA_LIBRARY"
	envCUDADevice  = "SAJI_CUDA_DEVICE"
)

// platform is CUDA: the NVIDIA driver's first device (or SAJI_CUDA_DEVICE).
func platform() Platform {
	return Platform{Name: "CUDA", Open: openCUDA, NewBackend: newGPUBackend}
}

// openCUDA opens the CUDA device the environment names (device 0 of the
// driver on the loader's search path by default).
func openCUDA() (gpu.Device, error) {
	opts, err := cudaOptions(os.Getenv)
	if err != nil {
		return nil, err
	}
	d, err := cuda.Open(opts)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// cudaOptions reads SAJI_CUDA_LIBRARY and SAJI_CUDA_DEVICE through getenv.
func cudaOptions(getenv func(string) string) (cuda.Options, error) {
	opts := cuda.Options{Library: getenv(envCUDALibrary)}
	if s := getenv(envCUDADevice); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return opts, &envError{name: envCUDADevice, value: s}
		}
		opts.Ordinal = n
	}
	return opts, nil
}

// envError is a malformed environment variable.
type envError struct{ name, value string }

func (e *envError) Error() string {
	return "offload: " + e.name + "=" + strconv.Quote(e.value) + " is not a device number"
}
