package offload

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"saji/engine/fit"
	"saji/engine/gguf"
	"saji/engine/hardware"
	"saji/engine/model"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
)

// Placement says where a loaded model runs.
type Placement struct {
	// Device is the GPU ("cuda:0"): the one holding the layers, or the
	// one found but not used (Layers 0, and Note says why); "" when no
	// GPU was found or offloading was off.
	Device string `json:"device,omitempty"`
	// Layers of the model's Of layers are on the GPU (the last ones).
	Layers int `json:"layers"`
	Of     int `json:"of"`
	// Bytes is the device memory the model holds once loaded: its
	// backend's allocations and the weights a unified-memory GPU reads in
	// place, or else how far the device's free memory fell while it
	// loaded (0: unknown or on the CPU).
	Bytes int64 `json:"bytes,omitempty"`
	// Note says, in plain words, why the model is not all on the GPU
	// ("" when it is, or when it was to run on the CPU).
	Note string `json:"note,omitempty"`
}

// String says where the model runs: "GPU: 32/32 layers on cuda:0",
// "GPU: 20/32 layers on cuda:0, the rest on the CPU", "CPU" or "CPU (no
// NVIDIA driver (libcuda.so.1 not found))".
func (p Placement) String() string {
	var s string
	switch {
	case p.Layers > 0 && p.Layers >= p.Of:
		s = fmt.Sprintf("GPU: %d/%d layers on %s", p.Layers, p.Of, p.Device)
	case p.Layers > 0:
		s = fmt.Sprintf("GPU: %d/%d layers on %s, the rest on the CPU", p.Layers, p.Of, p.Device)
	default:
		s = "CPU"
	}
	if p.Note != "" {
		s += " (" + p.Note + ")"
	}
	return s
}

// Options configures Load.
type Options struct {
	// Request is the number of GPU layers (Auto, 0 or N) and how the
	// model will be served.
	Request
	// Threads is the CPU backend's thread count (0: hardware.DefaultThreads,
	// one per physical core).
	Threads int
	// CPU is the backend of what stays on the CPU (nil: a CPU backend
	// with Threads threads).
	CPU kernels.Backend
	// Registry holds the GPU (nil: System()).
	Registry *Registry
	// Logger receives the notes (nil: slog.Default()).
	Logger *slog.Logger
}

// Loaded is a model that Load loaded, and where it runs.
type Loaded struct {
	// Model is the model.
	Model model.Model
	// Placement says where it runs.
	Placement Placement

	gpu Backend   // nil on the CPU alone
	reg *Registry // gpu's device
}

// GPU returns the backend of the model's GPU layers, nil for a model on
// the CPU alone: a vision projector runs its encoder there too.
func (l *Loaded) GPU() kernels.Backend {
	if l == nil || l.gpu == nil {
		return nil
	}
	return l.gpu
}

// Fault returns the error of the GPU's failure (wrapping ErrFault) when
// the model runs partly on a GPU that has failed since: it no longer
// computes, and loading it again puts it on the CPU. It returns nil for a
// model on the CPU alone.
func (l *Loaded) Fault() error {
	if l == nil || l.reg == nil {
		return nil
	}
	return l.reg.Fault()
}

// Close frees the model's device memory. The model must not be used
// after; Close on a model that runs on the CPU does nothing.
func (l *Loaded) Close() error {
	if l == nil || l.gpu == nil {
		return nil
	}
	b := l.gpu
	l.gpu = nil
	if err := b.Close(); err != nil {
		return fmt.Errorf("offload: %w", err)
	}
	return nil
}

// Load loads the model in f with its layers split between the GPU and
// the CPU as opts says, then runs setup on it (allocating its KV cache,
// starting its scheduler), which may be nil. When there is no GPU, the GPU
// has failed (see Registry.Fault), or loading the model or running setup
// on the GPU fails, it loads the model
// on the CPU (and runs setup again) and says why in Placement.Note and in
// a log record: the GPU never fails a load that the CPU can do. The error
// is the CPU's, or the context's.
func Load(ctx context.Context, f *gguf.File, opts Options, setup func(model.Model) error) (*Loaded, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	layers := 0
	if n, err := f.BlockCount(); err == nil {
		layers = int(n)
	}
	device := "" // the GPU found, for the placement of a load that stays off it
	onCPU := func(note string) (*Loaded, error) {
		m, err := model.Load(ctx, f, model.Options{Backend: opts.CPU, Threads: opts.Threads})
		if err == nil && setup != nil {
			err = setup(m)
		}
		if err != nil {
			return nil, err
		}
		return &Loaded{Model: m, Placement: Placement{Device: device, Of: m.Config().Layers, Note: note}}, nil
	}
	if opts.GPULayers == 0 {
		return onCPU("")
	}
	reg := opts.Registry
	if reg == nil {
		reg = System()
	}
	dev, err := reg.Open()
	if errors.Is(err, ErrFault) {
		log.Warn("offload: the GPU has failed; the model runs on the CPU", "reason", Reason(err))
		return onCPU(Reason(err))
	}
	if err != nil {
		reg.logNoDevice(log, err, opts.GPULayers > 0)
		note := Reason(err)
		if errors.Is(err, ErrNoGPU) {
			note = "no GPU backend on this system"
		}
		return onCPU(note)
	}
	l, note, err := loadOnGPU(ctx, f, opts, reg, dev, layers, log, setup)
	if l != nil || err != nil {
		return l, err
	}
	device = dev.Name()
	return onCPU(note)
}

// loadOnGPU loads f's model split between dev and the CPU as opts asks
// and runs setup on it. It returns the model, or the note that says why
// it stays on the CPU, or the error of a cancelled ctx. Loads on a device
// run one at a time, so that each plans with the memory the ones before
// it left free.
func loadOnGPU(ctx context.Context, f *gguf.File, opts Options, reg *Registry, dev gpu.Device, layers int,
	log *slog.Logger, setup func(model.Model) error) (*Loaded, string, error) {
	reg.load.Lock()
	defer reg.load.Unlock()
	name := dev.Name()
	split, free, memErr := planOn(f, reg, dev, opts.Request, layers, log)
	if split.Layers <= 0 {
		return nil, split.Note, nil
	}

	failed := func(what string, err error) (*Loaded, string, error) {
		log.Warn("offload: the GPU failed; the model runs on the CPU", "device", name, "layers", split.Layers, "err", err)
		return nil, fmt.Sprintf("%s on %s failed: %s", what, name, Reason(err)), nil
	}
	gb, err := reg.newBackend(dev)
	if err != nil {
		return failed("starting the GPU backend", err)
	}
	mo := model.Options{Backend: gb, Threads: opts.Threads}
	if !split.Output {
		mo.Backend = opts.CPU
		if mo.Backend == nil {
			mo.Backend = cpu.New(hardware.Threads(opts.Threads))
		}
		mo.LayerBackends = LayerBackends(gb, split.Layers, split.Of)
	}
	m, err := model.Load(ctx, f, mo)
	what := "loading the model"
	if err == nil && setup != nil {
		if err = setup(m); err != nil {
			what = "setting the model up"
		}
	}
	if err != nil {
		if cerr := gb.Close(); cerr != nil {
			log.Warn("offload: freeing the GPU's memory", "device", name, "err", cerr)
		}
		if ctx.Err() != nil {
			return nil, "", err
		}
		return failed(what, err)
	}
	pl := Placement{Device: name, Layers: split.Layers, Of: split.Of, Note: split.Note}
	if a, ok := gb.(interface{ Allocated() int64 }); ok {
		pl.Bytes = a.Allocated()
		if m, ok := gb.(interface{ Mapped() int64 }); ok {
			pl.Bytes += m.Mapped() // the weights a unified-memory GPU reads in place
		}
	} else if after, _, err := dev.Memory(); err == nil && memErr == nil && after < free {
		pl.Bytes = int64(free - after)
	}
	log.Info("offload: loaded", "device", name, "layers", pl.Layers, "of", pl.Of, "bytes", pl.Bytes, "note", pl.Note)
	return &Loaded{Model: m, Placement: pl, gpu: gb, reg: reg}, "", nil
}

// LayerBackends places the last n of layers layers on b and the others
// on the model's main backend (nil entries), as model.Options wants them.
func LayerBackends(b kernels.Backend, n, layers int) []kernels.Backend {
	out := make([]kernels.Backend, layers)
	for i := max(0, layers-n); i < layers; i++ {
		out[i] = b
	}
	return out
}

// planOn decides f's split on dev for req with the device's free memory
// now, which it also returns (with the error of reading it). A split of
// no layers has a Note that says why the model stays on the CPU; the
// reason is logged.
func planOn(f *gguf.File, reg *Registry, dev gpu.Device, req Request, layers int, log *slog.Logger) (Split, uint64, error) {
	asked := req.GPULayers > 0
	name := dev.Name()
	free, total, memErr := dev.Memory()
	if reg.platform.Unified && memErr == nil {
		// The GPU works in RAM: what is free for it is at most what
		// the machine has available.
		if m, err := hardware.ReadMemory(); err == nil && m.Available > 0 {
			free = min(free, m.Available)
		}
	}
	split := Split{Layers: min(req.GPULayers, layers), Of: layers, Output: req.GPULayers >= layers}
	if shape, err := fit.Describe(f); err != nil {
		if !asked {
			log.Warn("offload: the model cannot be planned; it runs on the CPU", "err", err)
			return Split{Of: layers, Note: "the model's size could not be read: " + Reason(err)}, free, memErr
		}
	} else if memErr != nil && !asked {
		log.Warn("offload: the GPU's free memory is unknown; the model runs on the CPU", "device", name, "err", memErr)
		return Split{Of: layers, Note: fmt.Sprintf("the free memory of %s is unknown", name)}, free, memErr
	} else if split, err = Plan(shape, DeviceMemory{Name: name, Free: free, Total: total, Unified: reg.platform.Unified}, req); err != nil {
		return Split{Of: layers, Note: Reason(err)}, free, memErr
	}
	if split.Layers <= 0 {
		log.Info("offload: the model runs on the CPU", "device", name, "reason", split.Note)
	}
	return split, free, memErr
}

// Preview returns the split Load would give f's model for req on reg's
// GPU now (nil: System()), without loading it, and whether the GPU would
// be used: false when there is none, it has failed, or offloading is off.
// A server uses it to make room on the GPU before a load.
func Preview(f *gguf.File, reg *Registry, req Request) (Split, bool) {
	layers := 0
	if n, err := f.BlockCount(); err == nil {
		layers = int(n)
	}
	if req.GPULayers == 0 {
		return Split{Of: layers}, false
	}
	if reg == nil {
		reg = System()
	}
	dev, err := reg.Open()
	if err != nil {
		return Split{Of: layers}, false
	}
	reg.load.Lock()
	defer reg.load.Unlock()
	split, _, _ := planOn(f, reg, dev, req, layers, slog.New(slog.DiscardHandler))
	return split, true
}
