package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"saji/app/store"
	"saji/engine/chat"
	"saji/engine/offload"
	"saji/engine/runner"
	"saji/kernels/cpu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
)

// TestCoreGenerate writes a reply with the real engine over the tiny model:
// the model loads on first use (reported), the text streams, and the
// figures are filled in.
func TestCoreGenerate(t *testing.T) {
	c := newTestCore(t)
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	var text strings.Builder
	req := ReplyRequest{Model: e.Name, System: "Be brief.", Messages: []chat.Message{{Role: "user", Content: "Hello"}},
		Settings: store.Settings{Temperature: 0.5, MaxTokens: 12}}
	st, err := c.Generate(context.Background(), req, func(u Update) {
		if u.Status != "" {
			statuses = append(statuses, u.Status)
		}
		text.WriteString(u.Text)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(statuses) == 0 || !strings.HasPrefix(statuses[0], "Loading "+e.Name) {
		t.Errorf("statuses %q, want loading first", statuses)
	}
	if st.Tokens == 0 || st.Tokens > 12 || st.TTFT <= 0 || st.Total < st.TTFT || text.Len() == 0 {
		t.Errorf("stats %+v, text %q", st, text.String())
	}
	// Loaded now: a second reply does not report loading, and the model is
	// the one the API would use.
	statuses = nil
	if _, err := c.Generate(context.Background(), req, func(u Update) {
		if u.Status != "" {
			statuses = append(statuses, u.Status)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(statuses) > 0 && strings.HasPrefix(statuses[0], "Loading") {
		t.Errorf("statuses %q for a loaded model", statuses)
	}
	if got := c.Stats(); len(got.Models) != 1 || got.Generated == 0 || got.KVTotal == 0 {
		t.Errorf("stats %+v", got)
	}
}

// TestCoreTrim drops the oldest turns of a conversation longer than the
// context, keeping the system prompt and the last message.
func TestCoreTrim(t *testing.T) {
	c := newTestCore(t) // context 256
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []chat.Message
	for i := range 40 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, chat.Message{Role: role, Content: strings.Repeat("word ", 10)})
	}
	st, err := c.Generate(context.Background(), ReplyRequest{Model: e.Name, System: "S", Messages: msgs,
		Settings: store.Settings{MaxTokens: 8}}, func(Update) {})
	if err != nil {
		t.Fatalf("a long conversation: %v", err)
	}
	if st.Tokens == 0 {
		t.Error("no reply")
	}
	if _, err := c.Generate(context.Background(), ReplyRequest{Model: "nope", Messages: msgs[:1]}, func(Update) {}); !errors.Is(err, runner.ErrModelNotFound) {
		t.Errorf("an unknown model: %v", err)
	}
}

// TestCoreSettings saves settings to the preferences and reopens the
// engine on a new models folder.
func TestCoreSettings(t *testing.T) {
	c := newTestCore(t)
	s := c.Settings()
	if s.Port != defaultPort || s.Host != "127.0.0.1" || s.Theme != "system" || s.Context != 256 {
		t.Errorf("defaults %+v", s)
	}
	old := c.Library()
	s.ModelsDir = t.TempDir()
	s.Theme = "dark"
	s.APIKeys = []string{"k"}
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	if got := loadSettings(c.prefs); got.ModelsDir != s.ModelsDir || got.Theme != "dark" || len(got.APIKeys) != 1 {
		t.Errorf("saved %+v", got)
	}
	if c.Library() == old || c.Library().Dir() != s.ModelsDir {
		t.Error("the library was not reopened on the new folder")
	}
}

// TestCoreSettingsAfterClose checks that a settings change reaching the
// core after Close (one the window queued as it closed) is stored but
// reopens nothing: no engine, no models or prompt cache folder made again
// (the test's temporary folders are being removed then), no API, no
// download manager; and that Close twice is fine.
func TestCoreSettingsAfterClose(t *testing.T) {
	c := newTestCore(t)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	s := c.Settings()
	s.ModelsDir = filepath.Join(t.TempDir(), "models-after-close")
	s.APIKeys = []string{"k"}
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	if got := loadSettings(c.prefs); got.ModelsDir != s.ModelsDir || len(got.APIKeys) != 1 {
		t.Errorf("not saved: %+v", got)
	}
	if _, err := os.Stat(s.ModelsDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the models folder was made after Close: %v", err)
	}
	if c.Library().Dir() == s.ModelsDir {
		t.Error("the library was reopened after Close")
	}
	if url, err := c.StartAPI(); err == nil {
		t.Errorf("the API started after Close at %s", url)
	}
	if _, err := c.Downloads(); err == nil {
		t.Error("the downloads opened after Close")
	}
	if _, err := os.Stat(c.downloadsDir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the downloads folder was made after Close: %v", err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestCoreAPI refuses to serve beyond loopback without a key.
func TestCoreAPI(t *testing.T) {
	c := newTestCore(t)
	s := c.Settings()
	s.Host, s.Port = "0.0.0.0", 0
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	if _, err := c.StartAPI(); err == nil || !strings.Contains(err.Error(), "API key") {
		t.Errorf("0.0.0.0 without a key: %v", err)
	}
	s.Host = "127.0.0.1"
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	url, err := c.StartAPI()
	if err != nil || c.APIURL() != url {
		t.Fatalf("start: %q %v", url, err)
	}
	c.StopAPI()
	if c.APIURL() != "" {
		t.Error("still running after StopAPI")
	}
}

// fakeBackend is a GPU backend that runs on the CPU.
type fakeBackend struct{ *cpu.Backend }

func (fakeBackend) Name() string { return "fake:0" }
func (fakeBackend) Close() error { return nil }

// TestCoreGPULayers loads models over a fake GPU: the setting decides how
// many layers go there, the chat and the engine's figures say where the
// model runs, and a change of the setting reloads the models.
func TestCoreGPULayers(t *testing.T) {
	a := test.NewTempApp(t)
	a.Preferences().SetString(prefModelsDir, filepath.Join(t.TempDir(), "models"))
	a.Preferences().SetInt(prefThreads, 2)
	a.Preferences().SetInt(prefContext, 256)
	reg := offload.NewRegistry(offload.Platform{Name: "Fake",
		Open:       func() (gpu.Device, error) { return gputest.NullDevice{}, nil },
		NewBackend: func(gpu.Device) (offload.Backend, error) { return fakeBackend{cpu.New(1)}, nil }})
	c, err := newCore(coreOptions{Prefs: a.Preferences(), DBPath: filepath.Join(t.TempDir(), "chats.db"), GPU: reg, PromptCacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := c.Settings().GPULayers; got != offload.Auto {
		t.Errorf("GPU layers %d by default, want Auto", got)
	}
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	reply := func() []string {
		var statuses []string
		_, err := c.Generate(context.Background(), ReplyRequest{Model: e.Name, Messages: []chat.Message{{Role: "user", Content: "Hi"}},
			Settings: store.Settings{MaxTokens: 4}}, func(u Update) {
			if u.Status != "" {
				statuses = append(statuses, u.Status)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return statuses
	}
	for _, tt := range []struct {
		layers    int
		status    string
		placement string
	}{
		{offload.Auto, "Running on the GPU (fake:0)", "on the GPU (fake:0)"},
		{3, "Running partly on the GPU (3 of 4 layers, on fake:0)", "partly on the GPU (3 of 4 layers, on fake:0)"},
		{0, "Running on the processor", "on the processor"},
	} {
		s := c.Settings()
		s.GPULayers = tt.layers
		if err := c.SetSettings(s); err != nil {
			t.Fatal(err)
		}
		if got := loadSettings(c.prefs).GPULayers; got != tt.layers {
			t.Errorf("stored GPU layers %d, want %d", got, tt.layers)
		}
		statuses := reply()
		if !slices.Contains(statuses, tt.status) {
			t.Errorf("GPU layers %d: statuses %q, want %q", tt.layers, statuses, tt.status)
		}
		if st := c.Stats(); !slices.Equal(st.Placements, []string{tt.placement}) {
			t.Errorf("GPU layers %d: placements %q, want %q", tt.layers, st.Placements, tt.placement)
		}
		// The next change of the setting unloads the model.
		if tt.layers != 0 && !c.Loaded(e.Name) {
			t.Error("the model is not loaded")
		}
	}
}

func TestThinkClock(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	tok := []runner.Token{{ID: 1}}
	tests := []struct {
		name       string
		pieces     []runner.Piece
		now        int
		wantTokens int
		wantTook   time.Duration
	}{
		{"no reasoning", []runner.Piece{{Text: "a", Tokens: tok}, {Text: "b", Tokens: tok}}, 30, 0, 0},
		{"reasoning then answer", []runner.Piece{{Reasoning: "x", Tokens: tok}, {Tokens: tok}, {Reasoning: "y", Tokens: tok},
			{Text: "a", Tokens: tok}, {Reasoning: "late", Tokens: tok}}, 90, 3, 30 * time.Millisecond},
		{"still thinking", []runner.Piece{{Reasoning: "x", Tokens: tok}, {Reasoning: "y", Tokens: tok}}, 50, 2, 50 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c thinkClock
			for i, p := range tt.pieces {
				c.piece(p, at(10*i))
			}
			if c.tokens != tt.wantTokens || c.took(at(tt.now)) != tt.wantTook {
				t.Errorf("tokens %d, took %v; want %d, %v", c.tokens, c.took(at(tt.now)), tt.wantTokens, tt.wantTook)
			}
		})
	}
}

// TestCorePromptCache: with the prompt cache on (the default), a
// conversation continued after the app reopens takes its earlier turn
// from disk; switched off, nothing is written.
func TestCorePromptCache(t *testing.T) {
	models, cache := filepath.Join(t.TempDir(), "models"), t.TempDir()
	open := func(on bool) *core {
		t.Helper()
		a := test.NewTempApp(t)
		a.Preferences().SetString(prefModelsDir, models)
		a.Preferences().SetInt(prefThreads, 2)
		a.Preferences().SetInt(prefContext, 256)
		if !on {
			a.Preferences().SetBool(prefPromptCache, false)
		}
		c, err := newCore(coreOptions{Prefs: a.Preferences(), DBPath: filepath.Join(t.TempDir(), "chats.db"), PromptCacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := open(true)
	if s := c.Settings(); !s.PromptCache || s.PromptCacheGiB != defaultPromptCacheGiB {
		t.Fatalf("defaults %+v", s)
	}
	e, err := c.Library().Import(context.Background(), tinyModel(t), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	req := ReplyRequest{Model: e.Name, System: strings.Repeat("Answer briefly and kindly. ", 3),
		Messages: []chat.Message{{Role: "user", Content: "Hello"}}, Settings: store.Settings{MaxTokens: 4}}
	reply := func(c *core) int {
		t.Helper()
		if _, err := c.Generate(context.Background(), req, func(Update) {}); err != nil {
			t.Fatal(err)
		}
		m, err := c.Runner().Model(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		return int(m.Scheduler().Stats().RestoredTokens)
	}
	if restored := reply(c); restored != 0 {
		t.Errorf("%d tokens restored from an empty prompt cache", restored)
	}
	c.Close()
	c = open(true)
	if hits := reply(c); hits < 32 {
		t.Errorf("after reopening, %d prompt tokens came from the prompt cache", hits)
	}
	c.Close()

	cache = t.TempDir()
	c = open(false)
	reply(c)
	c.Close()
	if files, _ := filepath.Glob(filepath.Join(cache, "*", "*.kvb")); len(files) != 0 {
		t.Errorf("the prompt cache is off, yet %d blocks were written", len(files))
	}
}
