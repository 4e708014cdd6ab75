//go:build darwin

package metal

import (
	"errors"
	"testing"

	"saji/kernels/gpu"
)

// openDevice opens the Metal device for a test, or skips it on a Mac
// without one (a virtual machine, a CI runner without a GPU).
func openDevice(t *testing.T) *Device {
	t.Helper()
	d, err := Open()
	if err != nil {
		t.Skipf("no Metal device: %v", err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

// TestKernelsOnMetal runs every kernel on the GPU and compares it with the
// CPU backend.
func TestKernelsOnMetal(t *testing.T) {
	testKernels(t, openDevice(t))
}

func TestDeviceOnMetal(t *testing.T) {
	testDevice(t, openDevice(t))
}

func TestMetalMemory(t *testing.T) {
	d := openDevice(t)
	free, total, err := d.Memory()
	if err != nil || total == 0 || free > total {
		t.Errorf("Memory() = %d, %d, %v", free, total, err)
	}
	b, err := d.Alloc(100)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	if len(b.Host) != 100 || b.Size != 100 {
		t.Errorf("Alloc(100) has %d host bytes, size %d", len(b.Host), b.Size)
	}
}

// TestMetalPipelines builds the pipeline of every kernel: Metal's compiler
// accepted the library at Open, and here each function must exist and run
// thread groups of the spec's size with 32-wide SIMD groups.
func TestMetalPipelines(t *testing.T) {
	d := openDevice(t)
	for _, k := range gpu.Kernels {
		err := d.call(func(st *state) error {
			_, err := st.pipeline(k)
			return err
		})
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}

func TestMetalClose(t *testing.T) {
	d, err := Open()
	if err != nil {
		t.Skipf("no Metal device: %v", err)
	}
	if _, err := d.Alloc(16); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err == nil {
		t.Error("Close with a buffer not freed reported nothing")
	}
	if err := d.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	if _, err := d.Alloc(16); !errors.Is(err, errClosed) {
		t.Errorf("Alloc after Close: %v", err)
	}
	if err := d.Sync(); !errors.Is(err, errClosed) {
		t.Errorf("Sync after Close: %v", err)
	}
}

// TestBackendOnMetal runs the operations of gpu.Backend on the GPU against
// the CPU backend.
func TestBackendOnMetal(t *testing.T) {
	testBackend(t, openDevice(t))
}

func TestNewBackend(t *testing.T) {
	b, err := NewBackend()
	if err != nil {
		t.Skipf("no Metal device: %v", err)
	}
	if b.Name() != "metal" {
		t.Errorf("Name() = %q", b.Name())
	}
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if err := b.Device().Close(); err != nil {
		t.Error(err)
	}
}
