package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"saji/engine/runner"
	"saji/engine/scheduler"
)

// specFlags are the speculative decoding flags of run, serve and bench.
type specFlags struct {
	draft              string
	draftMax, draftMin int
	lookup             bool
}

// register adds the flags to f. llama.cpp's -md reaches --draft through
// llamaArgs.
func (sp *specFlags) register(f *pflag.FlagSet) {
	f.StringVar(&sp.draft, "draft", "", "draft model `FILE` of the same vocabulary for speculative decoding (also -md, --model-draft)")
	f.StringVar(&sp.draft, "model-draft", "", "draft model `FILE` (llama.cpp's name for --draft)")
	f.MarkHidden("model-draft")
	f.IntVar(&sp.draftMax, "draft-max", scheduler.DefaultDraftMax, "most tokens a draft proposes per step")
	f.IntVar(&sp.draftMin, "draft-min", 0, "fewest draft tokens worth a verification (shorter drafts are not run)")
	f.BoolVar(&sp.lookup, "lookup", false, "speculative decoding without a draft model: propose the continuation of the last tokens' earlier occurrence in the prompt or reply (prompt lookup)")
}

// speculative returns the runner's options of the flags; without a
// drafter (neither --draft nor --lookup) the lengths are not used, and not
// checked.
func (sp *specFlags) speculative() (runner.Speculative, error) {
	if sp.draft == "" && !sp.lookup {
		return runner.Speculative{DraftMax: sp.draftMax, DraftMin: sp.draftMin}, nil
	}
	switch {
	case sp.draftMax < 1:
		return runner.Speculative{}, fmt.Errorf("--draft-max must be at least 1, not %d", sp.draftMax)
	case sp.draftMin < 0 || sp.draftMin > sp.draftMax:
		return runner.Speculative{}, fmt.Errorf("--draft-min must be from 0 to --draft-max (%d), not %d", sp.draftMax, sp.draftMin)
	case sp.draft != "" && sp.lookup:
		return runner.Speculative{}, fmt.Errorf("--draft and --lookup are two drafters: give one")
	}
	return runner.Speculative{Draft: sp.draft, Lookup: sp.lookup, DraftMax: sp.draftMax, DraftMin: sp.draftMin}, nil
}
