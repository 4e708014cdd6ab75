package model

import (
	"context"
	"errors"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// cancelAt is a CPU backend that cancels a load's context as it wraps its
// at-th weight, and counts the weights it is asked to wrap.
type cancelAt struct {
	kernels.Backend
	at, weights int
	cancel      context.CancelFunc
}

func (b *cancelAt) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	b.weights++
	if b.weights == b.at {
		b.cancel()
	}
	return b.Backend.Weight(typ, shape, data)
}

// TestLoadCancelled cancels a load as it wraps its third weight: Load
// returns the context's error and wraps no weight after that one, where a
// load it could not stop would wrap them all.
func TestLoadCancelled(t *testing.T) {
	f := writeSynth(t, "tiny-llama", "q8_0", 1)
	all := &cancelAt{Backend: cpu.New(1), cancel: func() {}}
	if _, err := Load(context.Background(), f, Options{Backend: all}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b := &cancelAt{Backend: cpu.New(1), at: 3, cancel: cancel}
	if _, err := Load(ctx, f, Options{Backend: b}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled load: %v, want %v", err, context.Canceled)
	}
	if b.weights != b.at || all.weights <= b.at {
		t.Errorf("the cancelled load wrapped %d weights of %d, want %d", b.weights, all.weights, b.at)
	}
}
