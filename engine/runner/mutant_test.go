package runner

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/synth"
)

// mutantHang is how long one mutant's load and generation may take before
// it counts as a hang: a detector of loops without end, not a speed check
// (a clean load of the tiny model takes a fraction of a second).
const mutantHang = time.Minute

// mutantBase is the tiny model's bytes and where its tensor data starts:
// the fuzzer mutates the header before it (metadata and tensor infos) and
// patches bytes after it.
var mutantBase = sync.OnceValues(func() (mutantFile, error) {
	path, err := tinyPath()
	if err != nil {
		return mutantFile{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return mutantFile{}, err
	}
	f, err := gguf.OpenBytes(data)
	if err != nil {
		return mutantFile{}, err
	}
	return mutantFile{data: data, head: int(f.DataOffset(0))}, nil
})

// mutantFile is a model file split at the start of its tensor data.
type mutantFile struct {
	data []byte
	head int
}

// build returns the file with its header replaced by head and, when patch
// is not empty, patch written over the tensor data at offset at (modulo
// the data's length).
func (b mutantFile) build(head []byte, at uint32, patch []byte) []byte {
	rest := b.data[b.head:]
	out := make([]byte, 0, len(head)+len(rest))
	out = append(append(out, head...), rest...)
	if len(patch) > 0 && len(rest) > 0 {
		copy(out[len(head)+int(at%uint32(len(rest))):], patch)
	}
	return out
}

// checkMutant writes data as a model file, loads it and generates a few
// tokens, raw and as a chat. Errors are the expected outcome of most
// mutants; a panic (which ends the test binary) or a load or generation
// that runs past mutantHang fails. It returns how far the mutant got.
func checkMutant(t *testing.T, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mutant.gguf")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), mutantHang)
	defer cancel()
	done := make(chan string, 1)
	go func() {
		done <- runMutant(ctx, path)
	}()
	select {
	case what := <-done:
		t.Log(what)
		return what
	case <-time.After(mutantHang + 10*time.Second): // the context's end was not heeded
		buf := make([]byte, 1<<20)
		t.Fatalf("a mutant's load and generation hang past %v:\n%s", mutantHang, buf[:runtime.Stack(buf, true)])
		return ""
	}
}

// runMutant loads the model at path and generates from it, and says how
// far it got.
func runMutant(ctx context.Context, path string) string {
	m, err := Load(ctx, path, LoadOptions{Threads: 1, Scheduler: scheduler.Config{Context: 64, MaxSeqs: 1}})
	if err != nil {
		return fmt.Sprintf("load: %v", err)
	}
	defer m.Close()
	emit := func(Piece) error { return nil }
	raw, err := m.Generate(ctx, Request{Prompt: "the cat", MaxTokens: 2, Sampling: sample.Greedy(), IgnoreEOS: true}, emit)
	if err != nil {
		return fmt.Sprintf("raw generation: %v", err)
	}
	res, err := m.Generate(ctx, Request{Messages: []chat.Message{{Role: "user", Content: "hi"}}, MaxTokens: 2,
		Sampling: sample.Greedy(), IgnoreEOS: true}, emit)
	if err != nil {
		return fmt.Sprintf("chat generation: %v", err)
	}
	return fmt.Sprintf("ran: %d and %d tokens", raw.CompletionTokens, res.CompletionTokens)
}

// mutantSeeds returns the fuzz seeds: the model untouched, and the
// hostile shapes of issue #23's GGUF probes (counts and lengths near
// their type's limits, a header cut short, tensor data overwritten).
func mutantSeeds(b mutantFile) [][3]any {
	head := b.data[:b.head]
	put := func(off int, v uint64) []byte { // v over the 8 bytes at off
		h := append([]byte(nil), head...)
		binary.LittleEndian.PutUint64(h[off:], v)
		return h
	}
	layers := append([]byte(nil), head...) // a billion layers: a load hung
	if i := bytes.Index(layers, []byte("llama.block_count")); i >= 0 {
		binary.LittleEndian.PutUint32(layers[i+len("llama.block_count")+4:], 1_056_964_612)
	}
	return [][3]any{
		{head, uint32(0), []byte(nil)},
		{layers, uint32(0), []byte(nil)},
		{put(8, 1<<62), uint32(0), []byte(nil)},         // tensor count
		{put(16, 1<<62), uint32(0), []byte(nil)},        // metadata count
		{put(24, 1<<63-1), uint32(0), []byte(nil)},      // first key's length
		{put(8, 0), uint32(0), []byte(nil)},             // no tensors
		{head[:len(head)/2], uint32(0), []byte(nil)},    // cut in the metadata
		{head[:len(head)-40], uint32(0), []byte(nil)},   // cut in the tensor infos
		{head, uint32(12345), []byte{0xff, 0xff, 0xff}}, // NaN-ish weights
		{head, uint32(0), make([]byte, 4096)},           // zero weights
	}
}

// FuzzLoadMutant mutates the tiny model's header (and patches its tensor
// data) and runs each mutant through Load and a short generation: every
// mutant is refused with an error or runs, none panics or hangs.
func FuzzLoadMutant(f *testing.F) {
	b, err := mutantBase()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range mutantSeeds(b) {
		f.Add(s[0].([]byte), s[1].(uint32), s[2].([]byte))
	}
	f.Fuzz(func(t *testing.T, head []byte, at uint32, patch []byte) {
		if len(head) > 1<<20 || len(patch) > 1<<16 {
			return
		}
		checkMutant(t, b.build(head, at, patch))
	})
}

// TestLoadMutants runs random mutants of the tiny model through Load and a
// short generation (FuzzLoadMutant's property, for the tests that do not
// fuzz): bytes of the header flipped, overwritten with boundary values or
// cut, and tensor data patched. It runs 48 of them, or as many as
// SAJI_MUTANTS (a duration such as 10m) allows, drawn then from a new seed
// (SAJI_MUTANTS_SEED draws a logged one again).
func TestLoadMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("loads dozens of models")
	}
	b, err := mutantBase()
	if err != nil {
		t.Fatal(err)
	}
	n, until, seed := 48, time.Time{}, uint64(23)
	if d, err := time.ParseDuration(os.Getenv("SAJI_MUTANTS")); err == nil && d > 0 {
		n, until, seed = 0, time.Now().Add(d), uint64(time.Now().UnixNano())
	}
	if s, err := strconv.ParseUint(os.Getenv("SAJI_MUTANTS_SEED"), 10, 64); err == nil {
		seed = s
	}
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, seed))
	boundary := []uint64{0, 1, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1<<63 - 1, 1 << 63, 1<<64 - 1}
	outcomes := map[string]int{}
	var i int
	for i = 0; i < n || time.Now().Before(until); i++ {
		head := append([]byte(nil), b.data[:b.head]...)
		var at uint32
		var patch []byte
		switch i % 4 {
		case 0: // a few bits flipped
			for range 1 + r.IntN(4) {
				head[r.IntN(len(head))] ^= 1 << r.IntN(8)
			}
		case 1: // a boundary value over 4 or 8 bytes
			off, v := r.IntN(len(head)-8), boundary[r.IntN(len(boundary))]
			if r.IntN(2) == 0 {
				binary.LittleEndian.PutUint32(head[off:], uint32(v))
			} else {
				binary.LittleEndian.PutUint64(head[off:], v)
			}
		case 2: // cut short
			head = head[:r.IntN(len(head))]
		case 3: // tensor data patched, and a byte of the header changed
			head[r.IntN(len(head))] = byte(r.Uint32())
			at, patch = r.Uint32(), make([]byte, 1+r.IntN(256))
			for j := range patch {
				patch[j] = byte(r.Uint32())
			}
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			what, _, _ := strings.Cut(checkMutant(t, b.build(head, at, patch)), ":")
			outcomes[what]++
		})
	}
	t.Logf("%d mutants: %d refused at load, %d failed in a generation, %d ran", i, outcomes["load"],
		outcomes["raw generation"]+outcomes["chat generation"], outcomes["ran"])
}

// TestLoadHostileHParams loads the tiny model with hyperparameters a
// mutant found: each is refused with the reason, quickly, where a billion
// layers hung the load while it grew a slice of them.
func TestLoadHostileHParams(t *testing.T) {
	src, err := tinyPath()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		set  map[string]any
		want string
	}{
		{"a billion layers", map[string]any{"llama.block_count": uint32(1_056_964_612)}, "block count 1056964612"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.gguf")
			if err := synth.WriteEdited(context.Background(), src, path, synth.Edit{Set: tc.set}); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if what := checkMutant(t, data); !strings.Contains(what, tc.want) {
				t.Errorf("%s; want an error about %s", what, tc.want)
			}
		})
	}
}
