// Package synthtest shares synthetic models among the tests of a test
// binary: each is written once, on first use, into a temporary folder
// that Main removes when the tests end.
package synthtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"saji/engine/synth"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// tinyKey names one tiny model: its weight type and seed.
type tinyKey struct {
	typ  string
	seed uint64
}

// written is a tiny model's path, or why it could not be written.
type written struct {
	path string
	err  error
}

var (
	mu         sync.Mutex
	dir        string // "" until the first model is written
	tiny       = map[tinyKey]written{}
	unrunnable *written // nil until written
)

// Tiny returns the path of synth.WriteTiny's tiny llama (mini vocabulary,
// no chat template) with weights of type typ drawn from seed, written
// once per test binary. A package whose tests call it runs them through
// Main.
func Tiny(typ string, seed uint64) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	k := tinyKey{typ, seed}
	if w, ok := tiny[k]; ok {
		return w.path, w.err
	}
	if err := makeDir(); err != nil {
		return "", err
	}
	p := filepath.Join(dir, fmt.Sprintf("tiny-%s-%d.gguf", typ, seed))
	err := synth.WriteTiny(context.Background(), p, typ, seed)
	tiny[k] = written{p, err}
	return p, err
}

// Unrunnable returns the path of synth.WriteUnrunnable's model (the tiny
// llama with a weight of a type no kernel computes with), written once per
// test binary.
func Unrunnable() (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if unrunnable != nil {
		return unrunnable.path, unrunnable.err
	}
	if err := makeDir(); err != nil {
		return "", err
	}
	p := filepath.Join(dir, "unrunnable.gguf")
	unrunnable = &written{p, synth.WriteUnrunnable(context.Background(), p)}
	return p, unrunnable.err
}

// UnrunnableLevel returns the name of a hub level whose type no kernel
// computes with in this build (levels named after their type, which
// cpu.CanMatMul refuses), or "" when every IQ, TQ and MXFP4 type has one:
// tests of the refusal by name stay true as kernels are added.
func UnrunnableLevel() string {
	for _, l := range []string{"IQ1_S", "IQ1_M", "TQ1_0", "TQ2_0", "IQ2_XXS", "IQ2_XS", "IQ3_XXS", "IQ3_S", "MXFP4"} {
		if t, err := quant.ParseType(l); err == nil && !cpu.CanMatMul(t) {
			return l
		}
	}
	return ""
}

// makeDir makes the folder of the models, once. Called with mu held.
func makeDir() error {
	if dir != "" {
		return nil
	}
	d, err := os.MkdirTemp("", "saji-synthtest")
	if err != nil {
		return fmt.Errorf("synthtest: %w", err)
	}
	dir = d
	return nil
}

// Main runs m's tests, removes the models Tiny wrote and exits with the
// tests' code: a test package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	if dir != "" {
		os.RemoveAll(dir)
	}
	mu.Unlock()
	os.Exit(code)
}

// Folder returns a new models folder of t's holding the tiny model of
// Tiny(typ, seed) under each of names (NAME.gguf, linked to the one file).
func Folder(t testing.TB, typ string, seed uint64, names ...string) string {
	t.Helper()
	path, err := Tiny(typ, seed)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, n := range names {
		if err := os.Symlink(path, filepath.Join(dir, n+".gguf")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
