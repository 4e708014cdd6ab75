//go:build linux

package offload

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"saji/engine/model"
	"saji/kernels/cpu"
	"saji/kernels/cuda"
	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
	"saji/kernels/quant"
)

// emuRegistry returns a registry of the CUDA emulator's device, seen
// through wrap when it is not nil.
func emuRegistry(t *testing.T, wrap func(gpu.Device) gpu.Device) *Registry {
	lib := emu.Library(t)
	return NewRegistry(Platform{Name: "CUDA",
		Open: func() (gpu.Device, error) {
			d, err := cuda.Open(cuda.Options{Library: lib})
			if err != nil {
				return nil, err
			}
			if wrap != nil {
				return wrap(d), nil
			}
			return d, nil
		},
		NewBackend: newGPUBackend})
}

// TestLoadCUDAEmulator loads the tiny model through the real CUDA binding
// and GPU backend, over the CUDA emulator (kernels/cuda/emu): every layer,
// then the last two, with the logits of the CPU's to the precision the
// GPU keeps (it multiplies F32 activations where the CPU rounds them to
// 8 bits), and its memory freed on Close.
func TestLoadCUDAEmulator(t *testing.T) {
	reg := emuRegistry(t, nil)
	defer func() {
		if err := reg.Close(); err != nil {
			t.Error(err)
		}
	}()
	f := openTiny(t)
	ref, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
	if err != nil {
		t.Fatal(err)
	}
	want := logits(t, ref)
	for _, layers := range []int{Auto, 2} {
		l, err := Load(context.Background(), f, Options{Request: Request{GPULayers: layers, Context: 64, Parallel: 1},
			Threads: 2, Registry: reg, Logger: discard}, nil)
		if err != nil {
			t.Fatal(err)
		}
		p := l.Placement
		if wantLayers := map[int]int{Auto: 4, 2: 2}[layers]; p.Layers != wantLayers || p.Device != "cuda:0" || p.Note != "" || p.Bytes <= 0 {
			t.Fatalf("GPU layers %d: placement %+v", layers, p)
		}
		t.Logf("GPU layers %d: %s, %d bytes", layers, p, p.Bytes)
		got := logits(t, l.Model)
		scale := 0.0
		for _, v := range want {
			scale = max(scale, math.Abs(float64(v)))
		}
		for i := range got {
			if d := math.Abs(float64(got[i] - want[i])); d > 0.05*scale || math.IsNaN(float64(got[i])) {
				t.Fatalf("GPU layers %d: logit %d is %v, the CPU's %v", layers, i, got[i], want[i])
			}
		}
		b := l.gpu.(*gpu.Backend)
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if n := b.Allocated(); n != 0 {
			t.Errorf("GPU layers %d: %d bytes still allocated after Close", layers, n)
		}
	}
}

// faultyDevice is a device whose kernels fault from the launch numbered
// at on: that launch and every later launch, transfer and wait fail, as
// they do after a CUDA kernel fault.
type faultyDevice struct {
	gpu.Device
	at       int32
	launches atomic.Int32
}

var errKernelFault = errors.New("fake: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)")

func (d *faultyDevice) faulted() bool { return d.launches.Load() >= d.at }

func (d *faultyDevice) Launch(name string, grid, block gpu.Dim3, args ...gpu.Arg) error {
	if d.launches.Add(1) >= d.at {
		return errKernelFault
	}
	return d.Device.Launch(name, grid, block, args...)
}

func (d *faultyDevice) Download(b gpu.Buf, off int, data []byte) error {
	if d.faulted() {
		return errKernelFault
	}
	return d.Device.Download(b, off, data)
}

func (d *faultyDevice) Sync() error {
	if d.faulted() {
		return errKernelFault
	}
	return d.Device.Sync()
}

// TestLoadAfterFault runs the tiny model on an emulated GPU whose kernels
// fault in the first forward pass: the pass fails, the loaded model and
// the registry report the fault, and the next load of the model runs on
// the CPU, saying why, with the CPU's logits.
func TestLoadAfterFault(t *testing.T) {
	reg := emuRegistry(t, func(d gpu.Device) gpu.Device { return &faultyDevice{Device: d, at: 5} })
	defer reg.Close()
	f := openTiny(t)
	ref, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(2)})
	if err != nil {
		t.Fatal(err)
	}
	want := logits(t, ref)
	opts := Options{Request: Request{GPULayers: 2, Context: 64, Parallel: 1}, Threads: 2, Registry: reg, Logger: discard}
	l, err := Load(context.Background(), f, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Placement.Layers != 2 || l.Fault() != nil {
		t.Fatalf("before the fault: placement %+v, fault %v", l.Placement, l.Fault())
	}
	c, err := l.Model.NewCache(16, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Model.Forward(context.Background(), []int32{1, 5, 9, 3}, []int32{0, 1, 2, 3}, c, false); !errors.Is(err, errKernelFault) {
		t.Fatalf("a forward pass through faulting kernels: %v", err)
	}
	fault := l.Fault()
	if !errors.Is(fault, ErrFault) || !errors.Is(fault, errKernelFault) || !errors.Is(reg.Fault(), ErrFault) {
		t.Fatalf("after the fault: the model's fault %v, the registry's %v", fault, reg.Fault())
	}
	if err := l.Close(); err != nil {
		t.Logf("closing the faulted model: %v", err)
	}
	if _, err := reg.Open(); !errors.Is(err, ErrFault) {
		t.Errorf("opening a faulted GPU: %v", err)
	}
	again, err := Load(context.Background(), f, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := again.Placement
	if p.Layers != 0 || again.Fault() != nil || !strings.HasPrefix(p.Note, "the GPU failed: cuda:0: ") || !strings.Contains(p.Note, "CUDA_ERROR_ILLEGAL_ADDRESS") {
		t.Errorf("loaded again after the fault: placement %+v (%s), fault %v", p, p, again.Fault())
	}
	if got := logits(t, again.Model); !slices.Equal(got, want) {
		t.Errorf("on the CPU after the fault: logits differ from the CPU's")
	}
}
