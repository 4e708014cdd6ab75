package app

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/hardware"
	"saji/engine/library"
)

func TestSettingsShowsCurrent(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.settings
	s := u.core.Settings()
	if v.folder.Text != s.ModelsDir || v.threads.Text != "2" || v.context.Selected != "256" || v.theme.Selected != "System" || v.startServer.Checked {
		t.Errorf("form %+v, settings %+v", v.form(), s)
	}
	// An unusual context (256 in tests) is kept among the choices.
	if got := v.context.Options; len(got) != len(contextChoices)+1 || got[0] != "256" {
		t.Errorf("context options %v", got)
	}
	want := strconv.Itoa(hardware.PhysicalCores()) + " physical cores"
	if !findLabelContaining(v.content, want) {
		t.Errorf("no label says %q", want)
	}
}

func TestSettingsSaveRoundTrip(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.settings
	dir := filepath.Join(t.TempDir(), "other models")
	v.folder.SetText(dir)
	test.Type(v.threads, "") // focus, as a person would
	v.threads.SetText("3")
	v.context.SetSelected("8192")
	v.theme.SetSelected("Dark")
	test.Tap(v.startServer)
	if !v.promptCache.Checked || v.promptSize.Text != "8" {
		t.Errorf("prompt cache shown as %v, %q GiB; want on, 8", v.promptCache.Checked, v.promptSize.Text)
	}
	test.Tap(v.promptCache)
	v.promptSize.SetText("2")
	if !v.draft.Checked {
		t.Error("speculative decoding shown off, want on by default")
	}
	test.Tap(v.draft)
	test.Tap(v.saveButton)
	v.saving.wait()
	if v.status.Text != "Saved." {
		t.Fatalf("status %q, want Saved.", v.status.Text)
	}
	got := loadSettings(u.core.prefs)
	if got.ModelsDir != dir || got.Threads != 3 || got.Context != 8192 || got.Theme != "dark" || !got.StartServer ||
		got.PromptCache || got.PromptCacheGiB != 2 || got.SpeculativeDraft {
		t.Errorf("stored settings %+v", got)
	}
	if got.Port != defaultPort || got.Host != "127.0.0.1" {
		t.Errorf("the server's settings changed: %s:%d", got.Host, got.Port)
	}
	if c := u.core.Settings(); c.ModelsDir != dir || c.Threads != 3 {
		t.Errorf("core settings %+v", c)
	}
	if u.core.Library().Dir() != dir {
		t.Errorf("library in %s, want %s", u.core.Library().Dir(), dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("the new folder was not made: %v", err)
	}
	if _, ok := u.app.Settings().Theme().(sajiTheme); !ok {
		t.Errorf("theme %T after choosing Dark", u.app.Settings().Theme())
	}
	// Saved again unchanged, nothing moves.
	test.Tap(v.saveButton)
	v.saving.wait()
	if v.status.Text != "Saved." || u.core.Settings().ModelsDir != dir {
		t.Errorf("second save: %q", v.status.Text)
	}
}

func TestSettingsInvalid(t *testing.T) {
	file := filepath.Join(t.TempDir(), "a file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		edit    func(v *settingsView)
		message string
	}{
		{"negative threads", func(v *settingsView) { v.threads.SetText("-1") }, "CPU threads must be a whole number"},
		{"words for threads", func(v *settingsView) { v.threads.SetText("many") }, "not \"many\""},
		{"too many threads", func(v *settingsView) { v.threads.SetText("5000") }, "from 0 (automatic) to 1024"},
		{"no folder", func(v *settingsView) { v.folder.SetText("  ") }, "Choose a folder"},
		{"relative folder", func(v *settingsView) { v.folder.SetText("models") }, "must be a full path"},
		{"words for the cache size", func(v *settingsView) { v.promptSize.SetText("big") }, "prompt cache size"},
		{"zero cache size", func(v *settingsView) { v.promptSize.SetText("0") }, "from 1 to 16384"},
		{"a file for a folder", func(v *settingsView) { v.folder.SetText(file) }, "is a file, not a folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newTestUI(t, &fakeGen{})
			v := u.settings
			before := u.core.Settings()
			tc.edit(v)
			test.Tap(v.saveButton)
			v.saving.wait()
			if !strings.Contains(v.status.Text, tc.message) {
				t.Errorf("status %q, want %q", v.status.Text, tc.message)
			}
			if v.saveButton.Disabled() {
				t.Error("Save stays disabled")
			}
			if after := loadSettings(u.core.prefs); after.ModelsDir != before.ModelsDir || after.Threads != before.Threads {
				t.Errorf("saved anyway: %+v", after)
			}
		})
	}
}

func TestSettingsThreadsAuto(t *testing.T) {
	s, msg := settingsForm{Folder: "/tmp/m", Threads: " 0 ", Context: "2048", Theme: "Light"}.apply(Settings{Port: 7})
	if msg != "" || s.Threads != 0 || s.Context != 2048 || s.Theme != "light" || s.Port != 7 || s.ModelsDir != "/tmp/m" {
		t.Errorf("apply: %+v %q", s, msg)
	}
}

// findLabelContaining reports whether o shows a label whose text contains
// text.
func findLabelContaining(o fyne.CanvasObject, text string) bool {
	for _, c := range test.LaidOutObjects(o) {
		if l, ok := c.(*widget.Label); ok && strings.Contains(l.Text, text) {
			return true
		}
	}
	return false
}

// TestSettingsGPULayers edits the GPU layers setting: Auto, Off or a
// number, stored with the other settings; anything else is refused.
func TestSettingsGPULayers(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.settings
	if v.gpuLayers.Text != "Auto" {
		t.Errorf("GPU layers %q, want Auto", v.gpuLayers.Text)
	}
	if !findLabelContaining(v.content, "Auto puts as many as fit") {
		t.Error("no label explains the GPU layers")
	}
	for _, tc := range []struct {
		text string
		want int
	}{{"Off", 0}, {"12", 12}, {"auto", -1}, {" 0 ", 0}, {"-1", -1}, {"99", 99}} {
		v.gpuLayers.SetText(tc.text)
		test.Tap(v.saveButton)
		v.saving.wait()
		if v.status.Text != "Saved." {
			t.Fatalf("%q: status %q", tc.text, v.status.Text)
		}
		if got := loadSettings(u.core.prefs).GPULayers; got != tc.want || u.core.Settings().GPULayers != tc.want {
			t.Errorf("%q: stored %d, want %d", tc.text, got, tc.want)
		}
	}
	v.load(u.core.Settings())
	if v.gpuLayers.Text != "99" {
		t.Errorf("the form shows %q for 99 layers", v.gpuLayers.Text)
	}
	for _, bad := range []string{"lots", "-3", "1.5", "100000"} {
		v.gpuLayers.SetText(bad)
		test.Tap(v.saveButton)
		v.saving.wait()
		if !strings.Contains(v.status.Text, "GPU layers must be Auto, Off or a number of layers") {
			t.Errorf("%q: status %q", bad, v.status.Text)
		}
		if got := loadSettings(u.core.prefs).GPULayers; got != 99 {
			t.Errorf("%q: stored %d anyway", bad, got)
		}
	}
}

func TestGPULayersText(t *testing.T) {
	for _, tc := range []struct {
		n    int
		text string
	}{{-1, "Auto"}, {-5, "Auto"}, {0, "Off"}, {1, "1"}, {48, "48"}} {
		if got := gpuLayersText(tc.n); got != tc.text {
			t.Errorf("gpuLayersText(%d) = %q, want %q", tc.n, got, tc.text)
		}
		if tc.n >= -1 {
			if n, err := parseGPULayers(tc.text); err != nil || n != tc.n {
				t.Errorf("parseGPULayers(%q) = %d, %v", tc.text, n, err)
			}
		}
	}
}

// overlayForm returns the form and the buttons of the dialog on top of
// u's window.
func overlayForm(t *testing.T, u *ui) (*widget.Form, []*widget.Button) {
	t.Helper()
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog shows")
	}
	var form *widget.Form
	var buttons []*widget.Button
	for _, o := range test.LaidOutObjects(top) {
		switch o := o.(type) {
		case *widget.Form:
			form = o
		case *widget.Button:
			buttons = append(buttons, o)
		}
	}
	return form, buttons
}

// buttonTexts returns the texts of bs that have one.
func buttonTexts(bs []*widget.Button) []string {
	var out []string
	for _, b := range bs {
		if b.Text != "" {
			out = append(out, b.Text)
		}
	}
	return out
}

// TestSettingsVocabulary checks that a setting has one name and one hint
// in every form that has it: the settings, a conversation's settings and
// a model's preset.
func TestSettingsVocabulary(t *testing.T) {
	u := chatUI(t, &fakeGen{})
	chatLocked(u, u.chat.showSettings)
	form, buttons := overlayForm(t, u)
	if form == nil {
		t.Fatal("the conversation's settings have no form")
	}
	if got := buttonTexts(buttons); !slices.Equal(got, []string{"Cancel", "Save"}) {
		t.Errorf("conversation settings buttons %q", got)
	}
	preset := newPresetForm(library.Entry{}).items()
	if len(form.Items) != len(preset) {
		t.Fatalf("%d conversation settings, %d preset fields", len(form.Items), len(preset))
	}
	for i, f := range []formField{fieldSystem, fieldTemperature, fieldTopP, fieldMaxTokens, fieldContext} {
		if form.Items[i].Text != f.Label || preset[i].Text != f.Label {
			t.Errorf("field %d: %q in the conversation, %q in the preset, want %q", i, form.Items[i].Text, preset[i].Text, f.Label)
		}
		if !strings.HasPrefix(form.Items[i].HintText, strings.TrimSuffix(f.Hint, ".")) && f != fieldSystem {
			t.Errorf("%s: hint %q, want %q", f.Label, form.Items[i].HintText, f.Hint)
		}
	}
	if !findLabelContaining(u.settings.content, fieldContext.Hint) {
		t.Errorf("the settings do not explain %s as the other forms do", fieldContext.Label)
	}
}

// TestConfirmations checks the one pattern of confirmations, Cancel and
// the action's verb, and that Enter confirms a rename.
func TestConfirmations(t *testing.T) {
	u := chatUI(t, &fakeGen{Chunks: []string{"Hi"}})
	chatSend(u, "Hello")
	chatWaitIdle(t, u)
	chatLocked(u, u.chat.confirmDelete)
	if _, b := overlayForm(t, u); !slices.Equal(buttonTexts(b), []string{"Cancel", "Delete"}) {
		t.Errorf("delete conversation buttons %q", buttonTexts(b))
	}
	u.win.Canvas().Overlays().Top().Hide()
	u.win.Canvas().Overlays().Remove(u.win.Canvas().Overlays().Top())

	p := u.server
	p.addKey()
	var remove *widget.Button
	for _, o := range test.LaidOutObjects(p.keyRows) {
		if b, ok := o.(*widget.Button); ok && b.Text == "Remove" {
			remove = b
		}
	}
	if remove == nil {
		t.Fatal("no Remove button for the key")
	}
	test.Tap(remove)
	if _, b := overlayForm(t, u); !slices.Equal(buttonTexts(b), []string{"Cancel", "Remove"}) {
		t.Errorf("remove key buttons %q", buttonTexts(b))
	}
	u.win.Canvas().Overlays().Remove(u.win.Canvas().Overlays().Top())

	chatLocked(u, u.chat.showRename)
	form, _ := overlayForm(t, u)
	e := form.Items[0].Widget.(*widget.Entry)
	chatLocked(u, func() {
		e.SetText("Greetings")
		e.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	})
	if c, _ := chatOpenMessages(t, u); c.Title != "Greetings" {
		t.Errorf("after Enter the title is %q", c.Title)
	}
}
