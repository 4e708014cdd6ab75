//go:build linux || windows

package hardware

import (
	"bytes"
	"context"
	"fmt"

	"github.com/ebitengine/purego"
)

// driverName names, in notes, the driver the GPU probe queries.
const driverName = "NVIDIA driver"

// probeDrivers queries NVML for the NVIDIA GPUs.
func probeDrivers(ctx context.Context) ([]GPU, []string) {
	api, err := loadNVML()
	if err != nil {
		return nil, []string{noteOf(err)}
	}
	return api.gpus(ctx)
}

// NVML's return codes (nvmlReturn_t) that the probe tells apart.
const (
	nvmlSuccess              = 0
	nvmlErrorNotSupported    = 3
	nvmlErrorDriverNotLoaded = 9
)

// nvmlDeviceNameBufferSize is NVML_DEVICE_NAME_V2_BUFFER_SIZE, the longest
// device name with its terminating NUL.
const nvmlDeviceNameBufferSize = 96

// nvmlMemory is nvmlMemory_t (version 1): three unsigned long longs.
type nvmlMemory struct {
	Total, Free, Used uint64
}

// nvmlAPI is the part of NVML the probe calls, bound with purego (or, in
// tests, fakes).
type nvmlAPI struct {
	init          func() uint32                       // nvmlInit_v2
	shutdown      func() uint32                       // nvmlShutdown
	errorString   func(ret uint32) string             // nvmlErrorString
	deviceCount   func(count *uint32) uint32          // nvmlDeviceGetCount_v2
	deviceByIndex func(i uint32, dev *uintptr) uint32 // nvmlDeviceGetHandleByIndex_v2
	deviceName    func(dev uintptr, name *byte, length uint32) uint32
	deviceMemory  func(dev uintptr, mem *nvmlMemory) uint32 // nvmlDeviceGetMemoryInfo
}

// loadNVML opens the NVML library and binds its functions.
func loadNVML() (*nvmlAPI, error) {
	lib, name, err := openNVML()
	if err != nil {
		return nil, err
	}
	api := &nvmlAPI{}
	for _, f := range []struct {
		fptr any
		sym  string
	}{
		{&api.init, "nvmlInit_v2"},
		{&api.shutdown, "nvmlShutdown"},
		{&api.errorString, "nvmlErrorString"},
		{&api.deviceCount, "nvmlDeviceGetCount_v2"},
		{&api.deviceByIndex, "nvmlDeviceGetHandleByIndex_v2"},
		{&api.deviceName, "nvmlDeviceGetName"},
		{&api.deviceMemory, "nvmlDeviceGetMemoryInfo"},
	} {
		sym, err := librarySymbol(lib, f.sym)
		if err != nil {
			return nil, fmt.Errorf("hardware: the NVIDIA driver is too old (%s has no %s): %w", name, f.sym, err)
		}
		purego.RegisterFunc(f.fptr, sym)
	}
	return api, nil
}

// describe is NVML's text for a return code.
func (api *nvmlAPI) describe(ret uint32) string {
	if s := api.errorString(ret); s != "" {
		return fmt.Sprintf("%s (%d)", s, ret)
	}
	return fmt.Sprintf("error %d", ret)
}

// gpus initializes NVML, lists the devices with their memory and shuts
// NVML down.
func (api *nvmlAPI) gpus(ctx context.Context) ([]GPU, []string) {
	if ret := api.init(); ret != nvmlSuccess {
		if ret == nvmlErrorDriverNotLoaded {
			return nil, []string{"no NVIDIA driver loaded (NVML: " + api.describe(ret) + ")"}
		}
		return nil, []string{"the NVIDIA driver could not be initialized (NVML: " + api.describe(ret) + ")"}
	}
	defer api.shutdown()
	var count uint32
	if ret := api.deviceCount(&count); ret != nvmlSuccess {
		return nil, []string{"the NVIDIA GPUs could not be counted (NVML: " + api.describe(ret) + ")"}
	}
	if count == 0 {
		return nil, []string{"the NVIDIA driver reports no GPU"}
	}
	var gpus []GPU
	var notes []string
	for i := range count {
		if ctx.Err() != nil {
			break
		}
		var dev uintptr
		if ret := api.deviceByIndex(i, &dev); ret != nvmlSuccess {
			notes = append(notes, fmt.Sprintf("NVIDIA GPU %d is unusable (NVML: %s)", i, api.describe(ret)))
			continue
		}
		var buf [nvmlDeviceNameBufferSize]byte
		name := fmt.Sprintf("NVIDIA GPU %d", i)
		if ret := api.deviceName(dev, &buf[0], uint32(len(buf))); ret == nvmlSuccess {
			if n := bytes.IndexByte(buf[:], 0); n > 0 {
				name = string(buf[:n])
			}
		}
		var mem nvmlMemory
		if ret := api.deviceMemory(dev, &mem); ret != nvmlSuccess {
			notes = append(notes, fmt.Sprintf("%s's memory is unknown, so it is not used (NVML: %s)", name, api.describe(ret)))
			continue
		}
		gpus = append(gpus, GPU{
			Vendor: "nvidia",
			Name:   name,
			Total:  mem.Total,
			Free:   min(mem.Free, mem.Total),
			Index:  int(i),
		})
	}
	return gpus, notes
}
