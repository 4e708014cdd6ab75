//go:build !darwin

package hardware

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/shirou/gopsutil/v3/cpu"
)

// cpuModel reads the processor's model name from the operating system.
func cpuModel(ctx context.Context) (string, error) {
	infos, err := cpu.InfoWithContext(ctx)
	if err != nil {
		return "", fmt.Errorf("hardware: reading the CPU model: %w", err)
	}
	for _, in := range infos {
		if name := strings.TrimSpace(in.ModelName); name != "" {
			return name, nil
		}
	}
	return "", errors.New("hardware: the operating system gives no CPU model name")
}
