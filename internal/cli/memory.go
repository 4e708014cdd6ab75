package cli

import (
	"github.com/spf13/pflag"

	"saji/engine/gguf"
)

// memoryFlags are --no-mmap and --mlock, as llama.cpp names them: how a
// command holds its model's file (and a draft model's).
type memoryFlags struct {
	noMmap, mlock bool
}

// register adds the flags to f, their help starting with note.
func (m *memoryFlags) register(f *pflag.FlagSet, note string) {
	f.BoolVar(&m.noMmap, "no-mmap", false, note+"read the model into memory instead of mapping the file")
	f.BoolVar(&m.mlock, "mlock", false, note+"lock the model in memory so that it is not paged out")
}

// options are the flags as gguf.OpenWith takes them.
func (m memoryFlags) options() gguf.OpenOptions {
	return gguf.OpenOptions{NoMmap: m.noMmap, Lock: m.mlock}
}
