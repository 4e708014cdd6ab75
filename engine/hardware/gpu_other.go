//go:build !linux && !windows && !darwin

package hardware

import (
	"context"
	"runtime"
)

// driverName names, in notes, the driver the GPU probe queries.
const driverName = "GPU driver"

// probeDrivers finds no GPU: Saji has no GPU backend on this system.
func probeDrivers(context.Context) ([]GPU, []string) {
	return nil, []string{"GPU detection is not supported on " + runtime.GOOS}
}
