package synthtest

import (
	"context"
	"path/filepath"

	"saji/engine/synth"
)

// recipes holds the recipes' models written so far.
var recipes = map[synth.Recipe]written{}

// Recipe returns the path of r's model (a shape of any architecture, with
// its vocabulary read from the shared testdata folder data), written once
// per test binary. A package whose tests call it runs them through Main.
func Recipe(r synth.Recipe, data string) (string, error) {
	mu.Lock()
	defer mu.Unlock()
	if w, ok := recipes[r]; ok {
		return w.path, w.err
	}
	if err := makeDir(); err != nil {
		return "", err
	}
	p := filepath.Join(dir, r.Name()+".gguf")
	_, _, err := r.Write(context.Background(), filepath.Join(data, filepath.FromSlash(r.Vocab)), p)
	recipes[r] = written{p, err}
	return p, err
}
