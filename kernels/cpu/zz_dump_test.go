package cpu

import (
	"os"
	"testing"

	"saji/kernels/quant"
)

func TestZZDump(t *testing.T) {
	w, _ := refInputs(quant.TypeMXFP4, 256, 16, 1, 1)
	os.WriteFile("/tmp/tqref/wgo.bin", w, 0o644)
}
