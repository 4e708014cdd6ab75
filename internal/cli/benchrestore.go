package cli

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"saji/engine/kvcache"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
)

// restoreNewTokens is the length of the new message that follows the
// restored conversation in the restore test.
const restoreNewTokens = 16

// restoreTest is the prompt cache test of 'saji bench --restore N': a
// conversation of N tokens is saved to a prompt cache folder by one load
// of the model; then, in alternating repetitions, a fresh load with the
// folder and a fresh load without it each continue the conversation with
// a new message, and the time to its first token is taken.
type restoreTest struct {
	threads, tokens int
	// restored and recomputed are the times to the first new token of
	// each repetition, with and without the folder.
	restored, recomputed []float64
	cached               int   // tokens the restored runs took from the cache
	bytes                int64 // the folder's size once the conversation is saved
	loadDisk, loadPlain  []float64
}

// runRestoreBench runs the restore test of bf for every thread count,
// with ngl layers on the GPU, and prints a table of medians to stdout.
func runRestoreBench(ctx context.Context, bf *benchFlags, threads []int, ngl int, stdout, stderr io.Writer) error {
	fmt.Fprintln(stdout, "| model | threads | conversation | restored: first token | recomputed: first token | ratio | load with / without the cache | on disk |")
	fmt.Fprintln(stdout, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, th := range threads {
		t := &restoreTest{threads: th, tokens: bf.restore}
		if err := t.run(ctx, bf, ngl, stderr); err != nil {
			return fmt.Errorf("bench: restore with %d threads: %w", th, err)
		}
		r, c := median(t.restored), median(t.recomputed)
		fmt.Fprintf(stdout, "| %s | %d | %d + %d tokens | %.3f s | %.3f s | %.1fx | %.2f s / %.2f s | %.1f MiB |\n",
			filepath.Base(bf.modelPath), th, t.tokens, restoreNewTokens, r, c, c/max(r, 1e-9),
			median(t.loadDisk), median(t.loadPlain), float64(t.bytes)/(1<<20))
	}
	return nil
}

// run saves the conversation and times the repetitions.
func (t *restoreTest) run(ctx context.Context, bf *benchFlags, ngl int, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "saji-bench-prompt-cache-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	note := func(format string, args ...any) {
		if bf.progress {
			fmt.Fprintf(stderr, "saji bench: restore%d, %d threads: "+format+"\n", append([]any{t.tokens, t.threads}, args...)...)
		}
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	// One turn on a fresh load: with the folder (the setup or a restart
	// that restores) or without (a restart that recomputes).
	turn := func(prompt []int32, withDisk bool) (runner.Result, float64, error) {
		var disk *kvcache.Disk
		var err error
		start := time.Now()
		if withDisk {
			if disk, err = kvcache.OpenDisk(kvcache.DiskOptions{Dir: dir, MaxBytes: 1 << 40, Logger: quiet}); err != nil {
				return runner.Result{}, 0, err
			}
			defer disk.Close()
		}
		m, err := runner.Load(ctx, bf.modelPath, runner.LoadOptions{Threads: t.threads, GPULayers: ngl, Memory: bf.memory.options(),
			Scheduler: scheduler.Config{Context: len(prompt) + 8, Parallel: 1, MaxSeqs: 1, KVType: bf.kvType, PromptCache: disk}})
		if err != nil {
			return runner.Result{}, 0, err
		}
		load := time.Since(start).Seconds()
		res, err := m.Generate(ctx, runner.Request{Tokens: prompt, MaxTokens: 1, IgnoreEOS: true, Sampling: sample.Greedy()},
			func(runner.Piece) error { return nil })
		if cerr := m.Close(); err == nil {
			err = cerr
		}
		return res, load, err
	}
	m, err := runner.Load(ctx, bf.modelPath, runner.LoadOptions{Threads: 1, Scheduler: scheduler.Config{Context: 16, Parallel: 1, MaxSeqs: 1}})
	if err != nil {
		return err
	}
	tk := m.Tokenizer()
	m.Close()
	rng := rand.New(rand.NewPCG(3, 4))
	conv := make([]int32, t.tokens+restoreNewTokens)
	for i := range conv {
		conv[i] = rng.Int32N(int32(tk.NumTokens()))
	}
	if bos := tk.BOS(); bos >= 0 && tk.AddBOS() {
		conv[0] = bos
	}
	note("saving the conversation")
	if _, _, err := turn(conv[:t.tokens], true); err != nil {
		return err
	}
	t.bytes = folderBytes(dir)
	for i := range bf.reps {
		order := []bool{true, false}
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, withDisk := range order {
			res, load, err := turn(conv, withDisk)
			if err != nil {
				return err
			}
			ft := res.FirstToken.Seconds()
			note("run %d/%d, cache %v: first token after %.3f s, %d of %d prompt tokens cached, load %.2f s",
				i+1, bf.reps, withDisk, ft, res.CachedTokens, res.PromptTokens, load)
			if withDisk {
				t.restored, t.loadDisk = append(t.restored, ft), append(t.loadDisk, load)
				t.cached = res.CachedTokens
			} else {
				t.recomputed, t.loadPlain = append(t.recomputed, ft), append(t.loadPlain, load)
			}
		}
	}
	if t.cached < t.tokens/2 {
		return fmt.Errorf("the restored runs took %d of %d tokens from the prompt cache", t.cached, t.tokens)
	}
	return nil
}

// folderBytes sums the sizes of the files under dir.
func folderBytes(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}
