package app

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"saji/engine/synth"
)

// The tiny model file, written once for the package's tests.
var (
	tinyOnce sync.Once
	tinyDir  string
	tinyFile string
	tinyErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if tinyDir != "" {
		os.RemoveAll(tinyDir)
	}
	os.Exit(code)
}

// tinyModel returns the path of a tiny random-weight GGUF model (a real
// model the engine loads and runs, in a fraction of a second).
func tinyModel(t *testing.T) string {
	t.Helper()
	tinyOnce.Do(func() {
		tinyDir, tinyErr = os.MkdirTemp("", "saji-app-test")
		if tinyErr != nil {
			return
		}
		tinyFile = filepath.Join(tinyDir, "tiny-chat.gguf")
		tinyErr = synth.WriteTiny(context.Background(), tinyFile, "q8_0", 5)
	})
	if tinyErr != nil {
		t.Fatal(tinyErr)
	}
	return tinyFile
}

// newTestCore returns a core over an empty models folder, downloads
// folder and database in temporary directories, with a test app's
// preferences.
func newTestCore(t *testing.T) *core {
	t.Helper()
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefModelsDir, filepath.Join(t.TempDir(), "models"))
	a.Preferences().SetInt(prefThreads, 2)
	a.Preferences().SetInt(prefContext, 256)
	c, err := newCore(coreOptions{Prefs: a.Preferences(), DBPath: filepath.Join(t.TempDir(), "chats.db"), PromptCacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	c.downloadsDir = filepath.Join(t.TempDir(), "downloads")
	t.Cleanup(func() { c.Close() })
	return c
}

// newTestUI builds the main window over a test core, its replies written
// by gen (nil: the real engine).
func newTestUI(t *testing.T, gen Generator) *ui {
	t.Helper()
	c := newTestCore(t)
	if gen == nil {
		gen = c
	}
	u := newUI(test.NewTempApp(t), c, gen)
	t.Cleanup(func() { u.win.Close() })
	return u
}

// fakeGen is a Generator that streams Chunks one by one, each after a
// value arrives on Step when Step is not nil, and records its requests.
type fakeGen struct {
	Chunks []string
	// Thoughts, streamed before Chunks, are the reply's reasoning.
	Thoughts []string
	Step     chan struct{}
	// Finish is the finish of every reply ("": "stop").
	Finish string

	mu       sync.Mutex
	requests []ReplyRequest
}

func (g *fakeGen) Generate(ctx context.Context, req ReplyRequest, emit func(Update)) (ReplyStats, error) {
	g.mu.Lock()
	g.requests = append(g.requests, req)
	g.mu.Unlock()
	start := time.Now()
	emit(Update{Status: "Reading the prompt...", Done: 1, Total: 2})
	n := 0
	for i := range len(g.Thoughts) + len(g.Chunks) {
		if g.Step != nil {
			select {
			case <-g.Step:
			case <-ctx.Done():
				return ReplyStats{Tokens: n, Total: time.Since(start), Finish: "stop"}, ctx.Err()
			}
		}
		if i < len(g.Thoughts) {
			emit(Update{Reasoning: g.Thoughts[i]})
		} else {
			emit(Update{Text: g.Chunks[i-len(g.Thoughts)]})
		}
		n++
	}
	return ReplyStats{Tokens: n, TokensPerSecond: 42, TTFT: time.Millisecond, Total: time.Since(start), Finish: cmp.Or(g.Finish, "stop"),
		ReasoningTokens: len(g.Thoughts), ReasoningTime: 1500 * time.Millisecond}, nil
}

// Requests returns the requests seen so far.
func (g *fakeGen) Requests() []ReplyRequest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]ReplyRequest(nil), g.requests...)
}

// waitFor polls cond (on the test goroutine; the test driver runs fyne.Do
// calls at once) for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}
