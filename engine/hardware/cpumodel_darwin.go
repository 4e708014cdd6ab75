package hardware

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// cpuModel reads the processor's model name with sysctl
// (machdep.cpu.brand_string: "Apple M2 Pro", "Intel(R) Core(TM) i9-...").
func cpuModel(context.Context) (string, error) {
	name, err := unix.Sysctl("machdep.cpu.brand_string")
	if err != nil {
		return "", fmt.Errorf("hardware: reading the CPU model: %w", err)
	}
	return strings.TrimSpace(name), nil
}
