//go:build !darwin

package metal

import (
	"errors"

	"saji/kernels/gpu"
)

// errNeedsMacOS is what every operation reports outside macOS.
var errNeedsMacOS = errors.New("metal: Metal needs macOS")

// Device is the Metal GPU as a gpu.Device. Outside macOS there is none:
// Open fails and every method reports that Metal needs macOS.
type Device struct{}

var _ gpu.Device = (*Device)(nil)

// Open reports that Metal needs macOS.
func Open() (*Device, error) { return nil, errNeedsMacOS }

// Name returns "metal".
func (d *Device) Name() string { return "metal" }

// Alloc reports that Metal needs macOS.
func (d *Device) Alloc(int) (gpu.Buf, error) { return gpu.Buf{}, errNeedsMacOS }

// Free does nothing.
func (d *Device) Free(gpu.Buf) {}

// Map reports that Metal needs macOS.
func (d *Device) Map([]byte) (gpu.Buf, int, bool, error) { return gpu.Buf{}, 0, false, errNeedsMacOS }

// Upload reports that Metal needs macOS.
func (d *Device) Upload(gpu.Buf, int, []byte) error { return errNeedsMacOS }

// Download reports that Metal needs macOS.
func (d *Device) Download(gpu.Buf, int, []byte) error { return errNeedsMacOS }

// Zero reports that Metal needs macOS.
func (d *Device) Zero(gpu.Buf, int, int) error { return errNeedsMacOS }

// Launch reports that Metal needs macOS.
func (d *Device) Launch(string, gpu.Dim3, gpu.Dim3, ...gpu.Arg) error { return errNeedsMacOS }

// Sync reports that Metal needs macOS.
func (d *Device) Sync() error { return errNeedsMacOS }

// Memory reports that Metal needs macOS.
func (d *Device) Memory() (free, total uint64, err error) { return 0, 0, errNeedsMacOS }

// Close does nothing.
func (d *Device) Close() error { return nil }
