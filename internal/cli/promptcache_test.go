package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/chat"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// TestPromptCacheFlags: the flags open nothing by default, a folder when
// named, and refuse a bad size.
func TestPromptCacheFlags(t *testing.T) {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	dir := filepath.Join(t.TempDir(), "pc")
	for _, tc := range []struct {
		flags promptCacheFlags
		open  bool
		err   string
	}{
		{promptCacheFlags{size: DefaultPromptCacheSize}, false, ""},
		{promptCacheFlags{dir: dir, size: DefaultPromptCacheSize}, true, ""},
		{promptCacheFlags{dir: dir, size: "512 MiB"}, true, ""},
		{promptCacheFlags{dir: dir, size: "lots"}, false, "--prompt-cache-size"},
		{promptCacheFlags{dir: dir, size: "0"}, false, "--prompt-cache-size"},
	} {
		d, err := tc.flags.open(quiet)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want one about %s", tc.flags, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%+v: %v", tc.flags, err)
		}
		if (d != nil) != tc.open {
			t.Errorf("%+v: opened %v, want %v", tc.flags, d != nil, tc.open)
		}
		if d != nil {
			if d.Dir() != dir {
				t.Errorf("%+v: folder %s", tc.flags, d.Dir())
			}
			d.Close()
		}
	}
}

// TestRunPromptCache: a conversation of 'saji run' continued after a
// restart (a new model and prompt cache over the same folder) evaluates
// only what the first run did not store.
func TestRunPromptCache(t *testing.T) {
	path := withTemplate(t, refdata.Path(t, "models/tiny-llama3-bpe-q4_0.gguf"), t.TempDir(), llama3Template)
	ctx := context.Background()
	rf := &runFlags{modelPath: path, params: sample.Greedy(), maxTokens: 8, quiet: true, threads: 1,
		cache: promptCacheFlags{dir: t.TempDir(), size: "64MiB"}}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	turn := func(msgs []chat.Message) (string, genStats) {
		t.Helper()
		disk, err := rf.cache.open(quiet)
		if err != nil {
			t.Fatal(err)
		}
		defer disk.Close()
		m, err := openRunModel(ctx, rf, quant.TypeF16, disk)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		var out bytes.Buffer
		reply, st, err := (&generator{m: m, flags: rf}).generate(ctx, runner.Request{Messages: msgs}, &out)
		if err != nil {
			t.Fatal(err)
		}
		return reply, st
	}
	msgs := []chat.Message{{Role: "system", Content: strings.Repeat("You answer in one short sentence. ", 6)}, {Role: "user", Content: "Hello"}}
	reply, first := turn(msgs)
	if first.promptEval != first.promptTokens {
		t.Fatalf("the first run found %d of %d tokens cached", first.promptTokens-first.promptEval, first.promptTokens)
	}
	msgs = append(msgs, chat.Message{Role: "assistant", Content: reply}, chat.Message{Role: "user", Content: "And then?"})
	_, second := turn(msgs)
	if restored := second.promptTokens - second.promptEval; restored < first.promptTokens/16*16 {
		t.Errorf("after a restart %d of %d prompt tokens came from the prompt cache, want at least the %d of the first prompt's full blocks",
			restored, second.promptTokens, first.promptTokens/16*16)
	}
}

// TestBenchRestore: bench --restore saves a conversation, then times the
// first token after restarts with and without the prompt cache, and the
// restored runs take the conversation from the cache.
func TestBenchRestore(t *testing.T) {
	path := tinyModel(t)
	out, errs, status := run(t, Options{}, "bench", "-m", path, "--restore", "48", "-r", "2", "-t", "1", "--progress")
	if status != 0 {
		t.Fatalf("status %d: %s", status, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "| 48 + 16 tokens |") || !strings.Contains(lines[2], "x |") {
		t.Fatalf("output:\n%s", out)
	}
	if !strings.Contains(errs, "48 of 64 prompt tokens cached") || !strings.Contains(errs, "0 of 64 prompt tokens cached") {
		t.Errorf("--progress said %q", errs)
	}
}
