package offload

import (
	"errors"
	"sync"
	"sync/atomic"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/quant"
)

// fakeDevice is a gpu.Device that only answers for its memory: the fake
// backends over it compute on the CPU.
type fakeDevice struct {
	free, total uint64
	memErr      error
	closed      atomic.Int32
}

func (d *fakeDevice) Name() string                           { return "fake:0" }
func (d *fakeDevice) Alloc(n int) (gpu.Buf, error)           { return gpu.Buf{}, errors.New("fake: no memory") }
func (d *fakeDevice) Free(gpu.Buf)                           {}
func (d *fakeDevice) Map([]byte) (gpu.Buf, int, bool, error) { return gpu.Buf{}, 0, false, nil }
func (d *fakeDevice) Upload(gpu.Buf, int, []byte) error      { return nil }
func (d *fakeDevice) Download(gpu.Buf, int, []byte) error    { return nil }
func (d *fakeDevice) Zero(gpu.Buf, int, int) error           { return nil }
func (d *fakeDevice) Launch(string, gpu.Dim3, gpu.Dim3, ...gpu.Arg) error {
	return errors.New("fake: no kernels")
}
func (d *fakeDevice) Sync() error { return nil }
func (d *fakeDevice) Memory() (uint64, uint64, error) {
	return d.free, d.total, d.memErr
}
func (d *fakeDevice) Close() error { d.closed.Add(1); return nil }

// fakeBackend is a GPU backend that runs on the CPU, counting the
// weights it is given and failing where it is told to.
type fakeBackend struct {
	*cpu.Backend
	// failWeight fails the Weight call of that number (1: the first);
	// failNew fails every New of a tensor of that type (quant.TypeF32
	// never fails: activations).
	failWeight int
	failNew    quant.Type
	weights    atomic.Int32
	closed     atomic.Int32
}

func (b *fakeBackend) Name() string { return "fake:0" }

func (b *fakeBackend) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	if n := b.weights.Add(1); int(n) == b.failWeight {
		return nil, errors.New("fake: out of memory")
	}
	return b.Backend.Weight(typ, shape, data)
}

func (b *fakeBackend) New(typ quant.Type, shape ...int) (kernels.Tensor, error) {
	if typ != quant.TypeF32 && typ == b.failNew {
		return nil, errors.New("fake: out of memory")
	}
	return b.Backend.New(typ, shape...)
}

func (b *fakeBackend) Close() error { b.closed.Add(1); return nil }

// fakeGPU is a platform over a fakeDevice whose backends are fakeBackends.
type fakeGPU struct {
	dev       *fakeDevice
	openErr   error
	newErr    error
	backendFn func() *fakeBackend // nil: a plain fakeBackend

	mu       sync.Mutex
	opens    int
	backends []*fakeBackend
}

func (g *fakeGPU) platform() Platform {
	return Platform{Name: "Fake",
		Open: func() (gpu.Device, error) {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.opens++
			if g.openErr != nil {
				return nil, g.openErr
			}
			return g.dev, nil
		},
		NewBackend: func(gpu.Device) (Backend, error) {
			if g.newErr != nil {
				return nil, g.newErr
			}
			b := &fakeBackend{}
			if g.backendFn != nil {
				b = g.backendFn()
			}
			b.Backend = cpu.New(1)
			g.mu.Lock()
			g.backends = append(g.backends, b)
			g.mu.Unlock()
			return b, nil
		},
	}
}

// last returns the last backend made, or nil.
func (g *fakeGPU) last() *fakeBackend {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.backends) == 0 {
		return nil
	}
	return g.backends[len(g.backends)-1]
}
