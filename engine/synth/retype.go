package synth

import (
	"context"
	"fmt"
	"os"
	"slices"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// Edit is how WriteEdited changes a model.
type Edit struct {
	// Types stores each named tensor as the type given, its blocks zeroed:
	// a header that says the model needs a type (NVFP4 or Q1_0, which no
	// kernel computes with).
	Types map[string]quant.Type
	// Drop leaves these tensors out.
	Drop []string
	// Unset deletes these metadata keys; Set sets these.
	Unset []string
	Set   map[string]any
}

// WriteEdited copies the model at src to dst as e says: a file for tests of
// what Saji does with a model it cannot run.
func WriteEdited(ctx context.Context, src, dst string, e Edit) error {
	f, err := gguf.Open(src)
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer f.Close()
	w := gguf.NewWriter()
	for _, kv := range f.KVs() {
		if slices.Contains(e.Unset, kv.Key) {
			continue
		}
		if err := w.Set(kv.Key, kv.Value); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	for k, v := range e.Set {
		if err := w.Set(k, v); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	found := 0
	for _, ti := range f.Tensors() {
		if slices.Contains(e.Drop, ti.Name) {
			continue
		}
		data, err := f.Data(ti)
		if err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		if typ, ok := e.Types[ti.Name]; ok {
			n, err := typ.RowSize(ti.Elements())
			if err != nil {
				return fmt.Errorf("synth: tensor %s as %v: %w", ti.Name, typ, err)
			}
			ti.Type, data = typ, make([]byte, n)
			found++
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, data); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	if found != len(e.Types) {
		return fmt.Errorf("synth: %s lacks some of the tensors to retype (%d of %d found)", src, found, len(e.Types))
	}
	if err := w.WriteFile(ctx, dst); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// WriteUnrunnable writes the tiny model (WriteTiny, Q8_0) at path with
// blk.0.ffn_up.weight stored as Q1_0, a type no kernel computes with: the
// file of a level Saji cannot run, for the tests of the checks that refuse
// one.
func WriteUnrunnable(ctx context.Context, path string) error {
	tmp := path + ".tiny.gguf"
	if err := WriteTiny(ctx, tmp, "q8_0", 1); err != nil {
		return err
	}
	defer os.Remove(tmp)
	return WriteEdited(ctx, tmp, path, Edit{Types: map[string]quant.Type{"blk.0.ffn_up.weight": quant.TypeQ1_0}})
}
