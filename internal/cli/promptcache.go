package cli

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"saji/engine/kvcache"
	"saji/engine/library"
)

// DefaultPromptCacheSize is the default budget of the prompt cache on
// disk: about 60 4,000-token conversations of an 8B model in F16 cells,
// 500 of a 1B one.
const DefaultPromptCacheSize = "8GiB"

// promptCacheFlags are the flags of the prompt cache on disk. It is off
// unless --prompt-cache names a folder: a server's users may not expect
// their prompts' keys and values written to disk (llama-server saves
// slots only with --slot-save-path, Ollama and LM Studio not at all), and
// a terminal session rarely outlives its model. The app turns it on by
// default, where reopening a long conversation is the common case.
type promptCacheFlags struct {
	dir, size string
}

// register adds the flags to f.
func (p *promptCacheFlags) register(f *pflag.FlagSet) {
	f.StringVar(&p.dir, "prompt-cache", "", "keep the KV cache of finished prompts in `DIR` and restore it after a restart (auto: the user's cache folder; off when empty)")
	f.StringVar(&p.size, "prompt-cache-size", DefaultPromptCacheSize, "most `BYTES` the --prompt-cache folder holds; the least recently used blocks go first")
}

// open opens the folder of the flags: nil when the cache is off.
func (p *promptCacheFlags) open(logger *slog.Logger) (*kvcache.Disk, error) {
	if p.dir == "" {
		return nil, nil
	}
	size, err := humanize.ParseBytes(p.size)
	if err != nil || size == 0 || size > 1<<62 {
		return nil, fmt.Errorf("--prompt-cache-size %q: want a size such as 8GiB", p.size)
	}
	dir := p.dir
	if dir == "auto" {
		if dir = library.PromptCacheDir(); dir == "" {
			return nil, errors.New("--prompt-cache auto: this system has no user cache folder; name one")
		}
	}
	d, err := kvcache.OpenDisk(kvcache.DiskOptions{Dir: dir, MaxBytes: int64(size), Logger: logger})
	if err != nil {
		return nil, fmt.Errorf("--prompt-cache: %w", err)
	}
	return d, nil
}
