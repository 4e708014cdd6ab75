package model

import (
	"fmt"

	"saji/engine/gguf"
)

// Description is what loading a model would know of its shape, read from
// the file's metadata and tensor table alone: the header of a local file or
// of a remote one is enough, since no weight is read.
type Description struct {
	Config
	// Windows is each layer's attention window (0: full attention).
	Windows []int
	// KVGroups are the attention layers grouped by window, as
	// Model.KVGroups gives them once loaded.
	KVGroups []KVGroup
	// Recurrent are the layers that keep a state per sequence instead of
	// keys and values, as Model.Recurrent gives them.
	Recurrent []RecurrentLayer
	// LayerKVHeads is each layer's KV head count where the file gives one
	// per layer (0 for a layer without attention: recurrent, or
	// Nemotron-H's feed-forward layers), nil where it gives one count.
	LayerKVHeads []int
	// Params is the number of weights in the file; ActiveParams those a
	// token uses, the experts it does not run left out (Params for a
	// dense model).
	Params, ActiveParams int64
}

// Describe reads the model in f as Load would, through its architecture's
// own loader, without wrapping a weight: the hyperparameters, the tensor
// shapes' checks and the attention windows are the same code's, so that a
// planner's idea of the model (engine/fit) cannot drift from the engine's.
// An architecture that no loader is registered for wraps ErrUnknownArch.
func Describe(f *gguf.File) (Description, error) {
	arch, fn, err := lookup(f)
	if err != nil {
		return Description{}, err
	}
	a, err := fn(&loader{f: f, arch: arch, describe: true})
	if err != nil {
		return Description{}, fmt.Errorf("model: describing %s: %w", arch, err)
	}
	m := a.common()
	d := Description{Config: m.hp.Config, Windows: make([]int, m.hp.Layers), KVGroups: m.kvGroups(), Recurrent: m.recurrent,
		LayerKVHeads: m.hp.layerKVHeads}
	for i := range d.Windows {
		d.Windows[i] = m.window(i)
	}
	d.Params = f.ParameterCount()
	d.ActiveParams = d.Params - idleParams(f, d.Experts, d.ExpertsUsed)
	return d, nil
}
