package emu

import (
	"fmt"
	"os"
	"testing"

	"saji/kernels/gpu"
)

// RequireEnv is the environment variable that, set to 1, turns the
// skipped GPU subtests of Backends into failures: for runs on a machine
// lent with a GPU, where a missing device is a broken setup.
const RequireEnv = "SAJI_CUDA_REQUIRE"

// Opener opens a CUDA device through the driver library at path, "" for
// the installed driver's: cuda.Open(cuda.Options{Library: path}), passed
// in because this package cannot import kernels/cuda (whose tests import
// it). It must return a nil Device with its error.
type Opener func(path string) (gpu.Device, error)

// Emulator and GPU are the names of the subtests of Backends.
const (
	Emulator = "emulator"
	GPU      = "cuda:0"
)

// Target is a device a test runs on, with a gpu.Backend over it.
type Target struct {
	// Name is Emulator or GPU (the subtest's name).
	Name string
	// Backend runs on the device; it is closed when the subtest ends.
	Backend *gpu.Backend
}

// Emulated reports whether the target is the emulator, whose results
// round as the kernels' source says, where the GPU's may also fuse
// products into additions (see Flags).
func (tg Target) Emulated() bool { return tg.Name == Emulator }

// Backends runs fn as a subtest of t on every CUDA device a test can
// reach, each through a gpu.Backend of its own:
//
//   - Emulator ("emulator"): the emulator of kernels.cu (skipped where it
//     cannot be built, see Library);
//   - GPU ("cuda:0"): the machine's first GPU through the installed driver.
//     Where open fails (no driver library, no device, a GPU too old), the
//     subtest is skipped with "no CUDA device: <reason>", or fails where
//     SAJI_CUDA_REQUIRE=1.
//
// The Backend and its Device are closed when the subtest ends.
func Backends(t *testing.T, open Opener, fn func(t *testing.T, tg Target)) {
	t.Helper()
	t.Run(Emulator, func(t *testing.T) {
		fn(t, Target{Emulator, backend(t, open, Library(t))})
	})
	t.Run(GPU, func(t *testing.T) {
		fn(t, Target{GPU, backend(t, open, "")})
	})
}

// backend opens the device of the driver library path (see Backends) and
// returns a Backend over it, both closed with t.
func backend(t *testing.T, open Opener, path string) *gpu.Backend {
	t.Helper()
	dev, err := open(path)
	if err != nil {
		if path != "" {
			t.Fatal(err) // the emulator must open
		}
		msg, fail := noDevice(err)
		if fail {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	b, err := gpu.New(dev)
	if err != nil {
		dev.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Close(); err != nil {
			t.Error(err)
		}
		if err := dev.Close(); err != nil {
			t.Error(err)
		}
	})
	return b
}

// noDevice says why a GPU subtest cannot run, where opening the device
// failed with err, and whether the subtest fails (SAJI_CUDA_REQUIRE=1)
// rather than being skipped.
func noDevice(err error) (msg string, fail bool) {
	if os.Getenv(RequireEnv) == "1" {
		return fmt.Sprintf("no CUDA device (%s=1): %v", RequireEnv, err), true
	}
	return fmt.Sprintf("no CUDA device: %v", err), false
}
