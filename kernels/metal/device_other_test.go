//go:build !darwin

package metal

import (
	"strings"
	"testing"

	"saji/kernels/gpu"
)

func TestOpenNeedsMacOS(t *testing.T) {
	d, err := Open()
	if d != nil || err == nil || err.Error() != "metal: Metal needs macOS" {
		t.Fatalf("Open() = %v, %v; want the error 'metal: Metal needs macOS'", d, err)
	}
	var dev Device
	for name, err := range map[string]error{
		"Alloc":  func() error { _, err := dev.Alloc(1); return err }(),
		"Launch": dev.Launch("scale", gpu.Dim3{}, gpu.Dim3{}),
		"Sync":   dev.Sync(),
	} {
		if err == nil || !strings.Contains(err.Error(), "needs macOS") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestNewBackendNeedsMacOS(t *testing.T) {
	if b, err := NewBackend(); b != nil || err == nil {
		t.Errorf("NewBackend() = %v, %v; want an error", b, err)
	}
}
