package gputest

import (
	"errors"

	"saji/kernels/gpu"
)

// NullDevice is a gpu.Device that holds and runs nothing, for tests whose
// fake GPU backends compute on the CPU: allocations fail, copies,
// launches and waits succeed without doing anything, and it reports 64 GB
// free of 80 GB.
type NullDevice struct{}

// Name implements gpu.Device.
func (NullDevice) Name() string { return "fake:0" }

// Alloc implements gpu.Device: it always fails.
func (NullDevice) Alloc(int) (gpu.Buf, error) { return gpu.Buf{}, errors.New("fake: no memory") }

// Free implements gpu.Device.
func (NullDevice) Free(gpu.Buf) {}

// Map implements gpu.Device: it maps nothing.
func (NullDevice) Map([]byte) (gpu.Buf, int, bool, error) { return gpu.Buf{}, 0, false, nil }

// Upload implements gpu.Device.
func (NullDevice) Upload(gpu.Buf, int, []byte) error { return nil }

// Download implements gpu.Device.
func (NullDevice) Download(gpu.Buf, int, []byte) error { return nil }

// Zero implements gpu.Device.
func (NullDevice) Zero(gpu.Buf, int, int) error { return nil }

// Launch implements gpu.Device.
func (NullDevice) Launch(string, gpu.Dim3, gpu.Dim3, ...gpu.Arg) error { return nil }

// Sync implements gpu.Device.
func (NullDevice) Sync() error { return nil }

// Memory implements gpu.Device: 64 GB free of 80 GB.
func (NullDevice) Memory() (uint64, uint64, error) { return 64e9, 80e9, nil }

// Close implements gpu.Device.
func (NullDevice) Close() error { return nil }
