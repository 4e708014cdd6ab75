// Package offload puts a model's layers on the GPU: it opens the
// platform's GPU once per process (CUDA on Linux and Windows, Metal on
// macOS), decides how many layers go there (as many as fit in the
// device's free memory with the KV cache the model will be served with,
// none, or a number the user gives), and loads the model split that way:
// like llama.cpp, the offloaded layers are the last ones, and when all of
// them are offloaded the embeddings and the output head go too.
//
// The GPU never costs a load that the CPU can do: when there is no GPU,
// or loading the model (or allocating its KV cache) on it fails, the model
// loads on the CPU and its Placement says why, in plain words, for the
// server and the app to show. A GPU whose kernels fault after a model has
// loaded is not used again: the model's Loaded.Fault says so, and the
// server loads it again, on the CPU.
package offload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"saji/kernels"
	"saji/kernels/gpu"
)

// Backend is a kernels.Backend on a GPU: one per loaded model, over the
// process's shared device. Close frees all the device memory it holds.
type Backend interface {
	kernels.Backend
	Close() error
}

// Platform is how a system reaches its GPU.
type Platform struct {
	// Name names the GPU API in notes ("CUDA", "Metal"); "" when the
	// system has none.
	Name string
	// Unified is set when the GPU works in the machine's RAM (Apple
	// silicon), so that its memory is not in addition to the RAM.
	Unified bool
	// Open opens the GPU. Its error says why there is none.
	Open func() (gpu.Device, error)
	// NewBackend returns a model's backend over the opened device.
	NewBackend func(gpu.Device) (Backend, error)
}

// ErrNoGPU is wrapped by Registry.Open's error on a system without a
// GPU backend.
var ErrNoGPU = errors.New("offload: no GPU backend on this system")

// Registry opens a platform's GPU once and hands the device to every
// model loaded over it. Its methods are safe for concurrent use.
type Registry struct {
	platform Platform

	once sync.Once
	dev  gpu.Device
	err  error

	// load serializes the loads on the device, so that each one plans
	// with the memory the ones before it left free.
	load sync.Mutex
	// noted is set once the device's absence has been logged.
	noted atomic.Bool
	// fault is the device's first failure (see Fault).
	fault atomic.Pointer[error]
}

// NewRegistry returns a registry that opens p's GPU on first use.
func NewRegistry(p Platform) *Registry { return &Registry{platform: p} }

// system is the process's registry: a GPU is a device of the process, and
// opening it twice would make two contexts compete for its memory.
var system = sync.OnceValue(func() *Registry { return NewRegistry(platform()) })

// System returns the process's registry of this platform's GPU (CUDA on
// Linux and Windows, Metal on macOS, none elsewhere).
func System() *Registry { return system() }

// Platform returns the registry's platform.
func (r *Registry) Platform() Platform { return r.platform }

// Open opens the GPU on the first call and returns it to every call; the
// error of a failed first attempt is returned every time (the device is
// not tried again), and so is ErrFault's once the device has failed. The
// device is shared: the models' backends use it concurrently (a
// gpu.Device is safe for that).
func (r *Registry) Open() (gpu.Device, error) {
	if err := r.Fault(); err != nil {
		return nil, err
	}
	r.once.Do(func() {
		if r.platform.Open == nil {
			r.err = ErrNoGPU
			return
		}
		dev, err := r.platform.Open()
		switch {
		case err != nil:
			r.err = fmt.Errorf("offload: %w", err)
		case dev == nil:
			r.err = fmt.Errorf("offload: %s opened no device", r.platform.Name)
		default:
			r.dev = watchedDevice{dev, r}
		}
	})
	return r.dev, r.err
}

// ErrFault is wrapped by Fault's error, and by Open's once the device has
// failed.
var ErrFault = errors.New("offload: the GPU failed")

// Fault returns nil while the device works, and after its first failure
// an error that wraps ErrFault and that failure. A device fails when a
// transfer, a kernel launch or a wait for the kernels fails: a CUDA kernel
// fault leaves the context unusable, so the device is not used again, and
// models loaded after it run on the CPU. A failed allocation is not a
// fault: it says the memory is short.
func (r *Registry) Fault() error {
	if p := r.fault.Load(); p != nil {
		return *p
	}
	return nil
}

// check records err, when it is not nil, as the device's fault (the first
// one is kept), and returns it.
func (d watchedDevice) check(err error) error {
	if err != nil {
		f := fmt.Errorf("%w: %s: %w", ErrFault, d.Name(), err)
		d.r.fault.CompareAndSwap(nil, &f)
	}
	return err
}

// watchedDevice is the registry's device as the backends see it: every
// failure of a transfer, a launch or a wait marks the registry's device
// as failed (see Fault).
type watchedDevice struct {
	gpu.Device
	r *Registry
}

func (d watchedDevice) Upload(b gpu.Buf, off int, data []byte) error {
	return d.check(d.Device.Upload(b, off, data))
}

func (d watchedDevice) Download(b gpu.Buf, off int, data []byte) error {
	return d.check(d.Device.Download(b, off, data))
}

func (d watchedDevice) Zero(b gpu.Buf, off, n int) error {
	return d.check(d.Device.Zero(b, off, n))
}

func (d watchedDevice) Launch(name string, grid, block gpu.Dim3, args ...gpu.Arg) error {
	return d.check(d.Device.Launch(name, grid, block, args...))
}

func (d watchedDevice) Sync() error { return d.check(d.Device.Sync()) }

// Close closes the device if it was opened; the backends over it must
// have been closed. The process's registry is never closed; tests close
// theirs.
func (r *Registry) Close() error {
	r.once.Do(func() { r.err = errors.New("offload: the registry is closed") })
	if r.dev == nil {
		return nil
	}
	if err := r.dev.Close(); err != nil {
		return fmt.Errorf("offload: %w", err)
	}
	return nil
}

// newBackend returns a model's backend over dev.
func (r *Registry) newBackend(dev gpu.Device) (Backend, error) {
	if r.platform.NewBackend == nil {
		return nil, fmt.Errorf("%s has no model backend in this build", r.platform.Name)
	}
	b, err := r.platform.NewBackend(dev)
	if err != nil {
		return nil, err
	}
	if b == nil {
		return nil, errors.New("the GPU backend is missing")
	}
	return b, nil
}

// Reason is an error's text for a person: without the package prefixes
// of the layers it passed through ("scheduler: model: cuda: ...") and
// without the system's own detail after a parenthesized explanation, as
// in "no NVIDIA driver (libcuda.so.1 not found)".
func Reason(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	if i := strings.Index(s, "): "); i >= 0 {
		s = s[:i+1]
	}
	parts := strings.Split(s, ": ")
	kept := parts[:0]
	for i, p := range parts {
		if i < len(parts)-1 && slices.Contains(packagePrefixes, p) {
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, ": ")
}

// packagePrefixes are the packages whose names prefix the errors of a
// load, which say nothing to a person.
var packagePrefixes = []string{"offload", "cuda", "metal", "gpu", "kernels", "model", "scheduler", "server"}

// logNoDevice logs, once per registry, that there is no GPU: at Info
// level when the GPU was only to be used if there is one (automatic), at
// Warn level when layers were asked for.
func (r *Registry) logNoDevice(log *slog.Logger, err error, asked bool) {
	if r.noted.Swap(true) {
		return
	}
	level := slog.LevelInfo
	if asked {
		level = slog.LevelWarn
	}
	log.Log(context.Background(), level, "offload: no GPU; models run on the CPU", "reason", Reason(err))
}
