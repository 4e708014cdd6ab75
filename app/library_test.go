package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"saji/engine/gguf"
	"saji/engine/library"
	"saji/engine/model"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/engine/units"
)

func TestLibraryUserMessage(t *testing.T) {
	arch := &library.ArchError{Path: "/m/x.gguf", Arch: "frobnicator", Supported: []string{"llama"}}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"not gguf", fmt.Errorf("library: %w: x does not start with the GGUF magic", library.ErrNotGGUF), "This is not a GGUF model file."},
		{"truncated", fmt.Errorf("%w: x: %w", library.ErrTruncated, gguf.ErrTruncated), "The file ends too soon, as an interrupted download or copy does. Download it again."},
		{"gguf truncated", fmt.Errorf("server: load: %w", gguf.ErrTruncated), "The file ends too soon, as an interrupted download or copy does. Download it again."},
		{"malformed", fmt.Errorf("%w: bad tensor", library.ErrMalformed), "The file is damaged: it is a GGUF file, but its contents do not make sense. Download it again."},
		{"arch", fmt.Errorf("library: %w", arch), "Saji cannot run this model's architecture (frobnicator) yet."},
		{"arch unnamed", &library.ArchError{Path: "/m/x.gguf"}, "Saji cannot run this model: the file does not say which architecture it uses, or it is one Saji does not know yet."},
		{"type", fmt.Errorf("library: /m/x.gguf: %w", &model.RunError{Reason: "blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet", Err: model.ErrUnsupportedType}),
			"Saji cannot run this model yet: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet."},
		{"disk full", fmt.Errorf("%w: copying x needs 1 GiB", library.ErrDiskFull), "There is not enough free disk space to copy this model. Free some space, or add the model by reference instead."},
		{"missing", fmt.Errorf("library: %w", os.ErrNotExist), "The file is no longer there: it was moved or deleted."},
		{"model not found", fmt.Errorf("%w: tiny", runner.ErrModelNotFound), "This model is no longer in the library."},
		{"library not found", fmt.Errorf("%w: tiny", library.ErrNotFound), "This model is no longer in the library."},
		{"context", fmt.Errorf("%w: %w", runner.ErrContextLength, scheduler.ErrContextOverflow), "The conversation is too long for this model's context. Start a new chat, or raise the context length in the model's preset or in Settings."},
		{"overflow", scheduler.ErrContextOverflow, "The conversation is too long for this model's context. Start a new chat, or raise the context length in the model's preset or in Settings."},
		{"folder", fmt.Errorf("%w: /tmp", errFolder), "This is a folder. Drop the .gguf model file itself."},
		{"projector", fmt.Errorf("%w: /m/mmproj-F16.gguf", library.ErrProjector), "This is a vision projector (mmproj), not a model: put it in the folder of its model, and the library pairs them."},
		{"other", errors.New("something odd happened"), "something odd happened"},
		{"nil", nil, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := userMessage(tc.err); got != tc.want {
				t.Errorf("userMessage(%v) = %q, want %q", tc.err, got, tc.want)
			}
		})
	}
}

func TestLibraryHumanNumbers(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{humanCount(1_235_814_400), "1.2 B"},
		{humanCount(13_015_864_320), "13 B"},
		{humanCount(134_515_008), "135 M"},
		{humanCount(7_500), "7.5 K"},
		{humanCount(12), "12"},
		{groupDigits(131072), "131,072"},
		{groupDigits(4096), "4,096"},
		{groupDigits(512), "512"},
		{groupDigits(-1000), "-1,000"},
		{humanDuration(12.4), "12 s"},
		{humanDuration(600), "10 min"},
	}
	for i, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%d: got %q, want %q", i, tc.got, tc.want)
		}
	}
}

// newLibraryUI returns a test window whose library answers the
// reference/copy question with copy (and records the files asked about).
func newLibraryUI(t *testing.T, copy bool) (*ui, *[]string) {
	t.Helper()
	u := newTestUI(t, &fakeGen{})
	var mu sync.Mutex
	var asked []string
	u.library.choose = func(e library.Entry, answer func(copy, ok bool)) {
		mu.Lock()
		asked = append(asked, e.Path)
		mu.Unlock()
		answer(copy, true)
	}
	return u, &asked
}

// drop drops the files at paths onto u's window and waits until the
// library is done with them.
func drop(t *testing.T, u *ui, paths ...string) {
	t.Helper()
	var uris []fyne.URI
	for _, p := range paths {
		uris = append(uris, storage.NewFileURI(p))
	}
	u.dropped(uris)
	u.library.wait()
}

// listed returns the names the library view shows.
func listed(u *ui) []string {
	var names []string
	for _, e := range u.library.entries {
		names = append(names, e.Name)
	}
	return names
}

// chatPicker returns the options of the chat view's model picker (a
// widget.Select), and whether it has one.
func chatPicker(u *ui) ([]string, bool) {
	var found *widget.Select
	walk(u.chat.content, func(o fyne.CanvasObject) bool {
		if s, ok := o.(*widget.Select); ok {
			found = s
			return true
		}
		return false
	})
	if found == nil {
		return nil, false
	}
	return found.Options, true
}

// walk calls f on o and what it contains (containers' objects, widgets'
// renderer objects) until f returns true.
func walk(o fyne.CanvasObject, f func(fyne.CanvasObject) bool) bool {
	if o == nil {
		return false
	}
	if f(o) {
		return true
	}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			if walk(c, f) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if walk(c, f) {
				return true
			}
		}
	}
	return false
}

// findButton returns the button labelled text inside o.
func findButton(o fyne.CanvasObject, text string) *widget.Button {
	var b *widget.Button
	walk(o, func(c fyne.CanvasObject) bool {
		if x, ok := c.(*widget.Button); ok && x.Text == text {
			b = x
			return true
		}
		return false
	})
	return b
}

func TestLibraryEmpty(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	v := u.library
	if !v.empty.Visible() || len(v.entries) != 0 {
		t.Errorf("empty text visible %v, entries %d", v.empty.Visible(), len(v.entries))
	}
	if !findLabel(v.empty, emptyLibraryText) {
		t.Errorf("the empty library does not say %q", emptyLibraryText)
	}
	if dir := u.core.Library().Dir(); !strings.Contains(v.folder.Text, dir) {
		t.Errorf("folder label %q does not name %s", v.folder.Text, dir)
	}
	if !v.deleteBtn.Disabled() || !v.chatBtn.Disabled() {
		t.Error("actions enabled with nothing selected")
	}
}

func TestLibraryDropByReference(t *testing.T) {
	u, asked := newLibraryUI(t, false)
	src := tinyModel(t)
	drop(t, u, src)
	if !slices.Equal(*asked, []string{src}) {
		t.Errorf("asked about %v, want %v", *asked, src)
	}
	if got := listed(u); !slices.Equal(got, []string{"tiny-chat"}) {
		t.Fatalf("listed %v, want [tiny-chat]", got)
	}
	v := u.library
	e := v.entries[0]
	if !e.ByReference || e.Path != src || e.Err != nil {
		t.Errorf("entry %+v", e)
	}
	if v.empty.Visible() {
		t.Error("the empty text still shows")
	}
	if sel, ok := v.selected(); !ok || sel.Name != "tiny-chat" {
		t.Errorf("selected %q %v, want the new model", sel.Name, ok)
	}
	if u.tabs.SelectedIndex() != tabLibrary {
		t.Errorf("tab %d, want the library", u.tabs.SelectedIndex())
	}
	if e := v.lastErrorText(); e != "" {
		t.Errorf("error shown: %q", e)
	}
	if !strings.Contains(v.status.Text, "tiny-chat was added by reference") {
		t.Errorf("status %q", v.status.Text)
	}
	if opts, ok := chatPicker(u); ok && !slices.Contains(opts, "tiny-chat") {
		t.Errorf("chat picker %v lacks tiny-chat", opts)
	} else if !ok {
		t.Log("the chat view has no model picker yet; not checked")
	}
	// The row shows the details people read.
	row := newModelRow()
	setModelRow(row, e)
	details := modelDetails(e)
	for _, want := range []string{e.Arch, "parameters", e.FileType, units.Bytes(e.Size), "-token context"} {
		if !strings.Contains(details, want) {
			t.Errorf("details %q lack %q", details, want)
		}
	}
	if !findLabel(row, details) || !findLabel(row, src) || !findLabel(row, "tiny-chat") {
		t.Error("the row does not show the name, details and path")
	}
	// Dropping it again adds nothing.
	drop(t, u, src)
	if got := listed(u); len(got) != 1 {
		t.Errorf("listed %v after a second drop", got)
	}
}

// TestLibraryDropDialog answers the real reference/copy dialog.
func TestLibraryDropDialog(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	shown := make(chan struct{})
	ask := u.library.choose
	u.library.choose = func(e library.Entry, answer func(copy, ok bool)) {
		ask(e, answer)
		close(shown)
	}
	u.dropped([]fyne.URI{storage.NewFileURI(tinyModel(t))})
	<-shown
	top := u.win.Canvas().Overlays().Top()
	if top == nil || findButton(top, "Copy into the library") == nil || findButton(top, "Cancel") == nil {
		t.Fatal("no dialog offers a copy")
	}
	btn := findButton(top, "Add by reference")
	if btn == nil {
		t.Fatal("no dialog offers a reference")
	}
	test.Tap(btn)
	u.library.wait()
	if got := listed(u); !slices.Equal(got, []string{"tiny-chat"}) || !u.library.entries[0].ByReference {
		t.Fatalf("listed %v", got)
	}
	if u.win.Canvas().Overlays().Top() != nil {
		t.Error("the dialog is still open")
	}
}

func TestLibraryDropBadFiles(t *testing.T) {
	good, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 4096)
	rand.Read(noise)
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name, path, want string
	}{
		{"random bytes", write("x.gguf", noise), "This is not a GGUF model file."},
		{"truncated", write("half.gguf", good[:len(good)/2]), "The file ends too soon, as an interrupted download or copy does. Download it again."},
		{"text file", write("notes.txt", []byte("hello")), "This is not a GGUF model file."},
		{"gguf named txt", write("model.txt", good), "This is not a GGUF model file."},
		{"folder", dir, "This is a folder. Drop the .gguf model file itself."},
		{"missing", filepath.Join(dir, "gone.gguf"), "The file is no longer there: it was moved or deleted."},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			u, asked := newLibraryUI(t, false)
			drop(t, u, tc.path)
			msg := u.library.lastErrorText()
			want := "Saji could not add " + filepath.Base(tc.path) + ".\n\n" + tc.want
			if msg != want {
				t.Errorf("error %q, want %q", msg, want)
			}
			if u.win.Canvas().Overlays().Top() == nil {
				t.Error("no dialog shows the error")
			}
			if len(*asked) != 0 {
				t.Errorf("asked about %v", *asked)
			}
			if got := listed(u); len(got) != 0 {
				t.Errorf("listed %v", got)
			}
		})
	}

	t.Run("several", func(t *testing.T) {
		u, _ := newLibraryUI(t, false)
		drop(t, u, filepath.Join(dir, "x.gguf"), tinyModel(t), filepath.Join(dir, "notes.txt"))
		if got := listed(u); !slices.Equal(got, []string{"tiny-chat"}) {
			t.Errorf("listed %v", got)
		}
		msg := u.library.lastErrorText()
		for _, want := range []string{"Saji could not add 2 files.", "x.gguf: This is not a GGUF model file.", "notes.txt: This is not a GGUF model file."} {
			if !strings.Contains(msg, want) {
				t.Errorf("error %q lacks %q", msg, want)
			}
		}
	})
}

func TestLibraryCopy(t *testing.T) {
	u, _ := newLibraryUI(t, true)
	src := tinyModel(t)
	var mu sync.Mutex
	var reports [][2]int64
	u.library.copyHook = func(done, total int64) {
		mu.Lock()
		reports = append(reports, [2]int64{done, total})
		mu.Unlock()
	}
	drop(t, u, src)
	v := u.library
	if got := listed(u); !slices.Equal(got, []string{"tiny-chat"}) {
		t.Fatalf("listed %v", got)
	}
	e := v.entries[0]
	dir := u.core.Library().Dir()
	if e.ByReference || filepath.Dir(e.Path) != dir {
		t.Errorf("entry %+v, want a copy in %s", e, dir)
	}
	st, err := os.Stat(src)
	if err != nil {
		t.Fatal(err)
	}
	if cst, err := os.Stat(e.Path); err != nil || cst.Size() != st.Size() {
		t.Errorf("copy: %v", err)
	}
	if p := v.lastProgress(); p != 1 {
		t.Errorf("the bar ended at %v, want 1", p)
	}
	mu.Lock()
	last := reports[len(reports)-1]
	mu.Unlock()
	if last[0] != st.Size() || last[1] != st.Size() {
		t.Errorf("last progress %v, want %d of %d", last, st.Size(), st.Size())
	}
	if v.importBox.Visible() {
		t.Error("the progress panel still shows")
	}
	if !strings.Contains(v.status.Text, "as a copy") {
		t.Errorf("status %q", v.status.Text)
	}
	// A file already inside the library folder is added without asking.
	asked := false
	v.choose = func(_ library.Entry, answer func(copy, ok bool)) { asked = true; answer(true, true) }
	drop(t, u, e.Path)
	if asked || len(listed(u)) != 1 {
		t.Errorf("asked %v, listed %v", asked, listed(u))
	}
}

func TestLibraryCancelCopy(t *testing.T) {
	u, _ := newLibraryUI(t, true)
	v := u.library
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	v.copyHook = func(done, total int64) {
		once.Do(func() {
			close(reached)
			<-release
		})
	}
	// Two files: Cancel stops the copy and drops the file waiting.
	second := filepath.Join(t.TempDir(), "second.gguf")
	b, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, b, 0o644); err != nil {
		t.Fatal(err)
	}
	u.dropped([]fyne.URI{storage.NewFileURI(tinyModel(t)), storage.NewFileURI(second)})
	<-reached
	if !strings.Contains(v.importTitle.Text, "1 more waiting") {
		t.Errorf("title %q does not count the file waiting", v.importTitle.Text)
	}
	if !v.importBox.Visible() || !v.cancelBtn.Visible() || !v.importBar.Visible() {
		t.Error("the copy shows no progress bar and Cancel button")
	}
	test.Tap(v.cancelBtn)
	close(release)
	v.wait()
	if got := listed(u); len(got) != 0 {
		t.Errorf("listed %v after a cancelled copy", got)
	}
	files, err := os.ReadDir(u.core.Library().Dir())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Name() != library.IndexFile {
			t.Errorf("%s left behind", f.Name())
		}
	}
	if e := v.lastErrorText(); e != "" {
		t.Errorf("a cancelled copy shows an error: %q", e)
	}
	if !strings.Contains(v.status.Text, "cancelled") {
		t.Errorf("status %q", v.status.Text)
	}
	// The next drop works.
	v.copyHook = nil
	drop(t, u, tinyModel(t))
	if got := listed(u); len(got) != 1 {
		t.Errorf("listed %v after a second drop", got)
	}
}

func TestLibraryActions(t *testing.T) {
	u, _ := newLibraryUI(t, false)
	ref := tinyModel(t)
	drop(t, u, ref)
	u.library.choose = func(_ library.Entry, answer func(copy, ok bool)) { answer(true, true) }
	// A second copy of the same file under another name, copied in.
	other := filepath.Join(t.TempDir(), "other.gguf")
	b, err := os.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	drop(t, u, other)
	v := u.library
	lib := u.core.Library()
	if got := listed(u); !slices.Equal(got, []string{"other", "tiny-chat"}) {
		t.Fatalf("listed %v", got)
	}

	t.Run("set default", func(t *testing.T) {
		v.selectModel("tiny-chat")
		test.Tap(v.defaultBtn)
		v.wait()
		e, err := lib.Get("tiny-chat")
		if err != nil || !e.Default {
			t.Fatalf("Get: %v %+v", err, e)
		}
		if sel, _ := v.selected(); !sel.Default || !v.defaultBtn.Disabled() {
			t.Errorf("the view does not show tiny-chat as the default")
		}
	})

	t.Run("preset", func(t *testing.T) {
		v.selectModel("tiny-chat")
		e, _ := v.selected()
		f := newPresetForm(e)
		if f.system.Text != "" || f.temperature.Text != "" {
			t.Fatalf("a new preset form is not blank: %q %q", f.system.Text, f.temperature.Text)
		}
		f.system.SetText("You are terse.")
		f.temperature.SetText("0.3")
		f.topP.SetText("0.9")
		f.maxTokens.SetText("200")
		f.context.SetText("128")
		v.savePreset(e.Name, f)
		v.wait()
		got, err := lib.Get("tiny-chat")
		if err != nil {
			t.Fatal(err)
		}
		p := got.Preset
		if p.System != "You are terse." || p.Temperature == nil || *p.Temperature != 0.3 || p.TopP == nil || *p.TopP != 0.9 || p.MaxTokens != 200 || p.Context != 128 {
			t.Errorf("stored preset %+v", p)
		}
		v.selectModel("tiny-chat")
		e, _ = v.selected()
		g := newPresetForm(e)
		if g.system.Text != "You are terse." || g.temperature.Text != "0.3" || g.topP.Text != "0.9" || g.maxTokens.Text != "200" || g.context.Text != "128" {
			t.Errorf("the form reads back %q %q %q %q %q", g.system.Text, g.temperature.Text, g.topP.Text, g.maxTokens.Text, g.context.Text)
		}
		for _, bad := range []struct {
			w    *widget.Entry
			text string
		}{{g.temperature, "3"}, {g.topP, "x"}, {g.maxTokens, "-1"}, {g.context, "999999999"}} {
			old := bad.w.Text
			bad.w.SetText(bad.text)
			if _, err := g.preset(); err == nil {
				t.Errorf("%q accepted", bad.text)
			}
			bad.w.SetText(old)
		}
		// Blank fields clear the preset.
		for _, w := range []*widget.Entry{g.system, g.temperature, g.topP, g.maxTokens, g.context} {
			w.SetText("")
		}
		v.savePreset(e.Name, g)
		v.wait()
		if got, _ := lib.Get("tiny-chat"); got.Preset != (library.Preset{}) {
			t.Errorf("cleared preset %+v", got.Preset)
		}
	})

	t.Run("reveal", func(t *testing.T) {
		var opened *url.URL
		v.openURL = func(l *url.URL) error { opened = l; return nil }
		v.selectModel("other")
		test.Tap(v.revealBtn)
		if opened == nil || opened.Scheme != "file" || opened.Path != filepath.ToSlash(lib.Dir()) {
			t.Errorf("opened %v, want file://%s", opened, lib.Dir())
		}
	})

	t.Run("chat", func(t *testing.T) {
		// Loaded first, so the chat does not load it in the background
		// while the test goes on.
		if _, err := u.core.Runner().Model("other"); err != nil {
			t.Fatal(err)
		}
		v.selectModel("other")
		test.Tap(v.chatBtn)
		if u.tabs.SelectedIndex() != tabChat {
			t.Errorf("tab %d, want the chat", u.tabs.SelectedIndex())
		}
		u.tabs.SelectIndex(tabLibrary)
	})

	t.Run("delete reference", func(t *testing.T) {
		var asked string
		v.confirm = func(title, msg, action string, answer func(bool)) { asked = title + "\n" + msg; answer(true) }
		v.selectModel("tiny-chat")
		test.Tap(v.deleteBtn)
		v.wait()
		if !strings.Contains(asked, "stays where it is") {
			t.Errorf("the question %q does not say the file stays", asked)
		}
		if _, err := os.Stat(ref); err != nil {
			t.Errorf("the referenced file is gone: %v", err)
		}
		if got := listed(u); !slices.Equal(got, []string{"other"}) {
			t.Errorf("listed %v", got)
		}
	})

	t.Run("delete copy", func(t *testing.T) {
		var asked string
		v.confirm = func(title, msg, action string, answer func(bool)) { asked = title + "\n" + msg; answer(false) }
		v.selectModel("other")
		e, _ := v.selected()
		test.Tap(v.deleteBtn)
		v.wait()
		if !strings.Contains(asked, "is deleted") {
			t.Errorf("the question %q does not say the file is deleted", asked)
		}
		if len(listed(u)) != 1 {
			t.Fatal("deleted without a yes")
		}
		v.confirm = func(_, _, _ string, answer func(bool)) { answer(true) }
		test.Tap(v.deleteBtn)
		v.wait()
		if _, err := os.Stat(e.Path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the copied file is still there: %v", err)
		}
		if n := len(u.core.Runner().Models()); n != 0 {
			t.Errorf("%d models still loaded after deleting the loaded one", n)
		}
		if got := listed(u); len(got) != 0 || !v.empty.Visible() {
			t.Errorf("listed %v", got)
		}
	})
}

// TestLibraryUnrunnable lists a model of the folder that Saji cannot run
// with the reason, and offers no chat with it.
func TestLibraryUnrunnable(t *testing.T) {
	u, _ := newLibraryUI(t, false)
	if err := synth.WriteUnrunnable(context.Background(), filepath.Join(u.core.Library().Dir(), "q1.gguf")); err != nil {
		t.Fatal(err)
	}
	u.modelsChanged()
	checkUnusable(t, u, "q1", "Cannot be used: Saji cannot run this model yet: blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet.")
	if !errors.Is(u.library.entries[0].Err, model.ErrUnsupportedType) {
		t.Errorf("entry %+v", u.library.entries[0])
	}
}

// checkUnusable checks that the library view lists one model, name, that
// cannot be used: its row says want, and it can be deleted but not
// chatted with.
func checkUnusable(t *testing.T, u *ui, name, want string) {
	t.Helper()
	v := u.library
	if len(v.entries) != 1 || v.entries[0].Err == nil {
		t.Fatalf("entries %+v", v.entries)
	}
	row := newModelRow()
	setModelRow(row, v.entries[0])
	if !findLabel(row, want) {
		t.Errorf("the row does not say %q", want)
	}
	v.selectModel(name)
	if !v.chatBtn.Disabled() || v.deleteBtn.Disabled() {
		t.Error("an unusable model can be chatted with, or cannot be deleted")
	}
}

// TestLibraryUnusable lists a reference whose file disappeared, with the
// reason in plain words.
func TestLibraryUnusable(t *testing.T) {
	u, _ := newLibraryUI(t, false)
	p := filepath.Join(t.TempDir(), "gone.gguf")
	b, err := os.ReadFile(tinyModel(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	drop(t, u, p)
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	u.modelsChanged()
	checkUnusable(t, u, "gone", "Cannot be used: The file is no longer there: it was moved or deleted.")
}

// TestImportTargets reads the import dialog's lines: files, folders (their
// models, a split one by its first shard), quotes, and what is missing.
func TestImportTargets(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.gguf", "B.GGUF", "s-00001-of-00002.gguf", "s-00002-of-00002.gguf", "notes.txt", ".hidden.gguf"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := t.TempDir()
	one := filepath.Join(dir, "a.gguf")
	text := "  " + one + "  \n\n\"" + dir + "\"\n" + empty + "\n/no/such/model.gguf\n"
	files, missing := importTargets(text)
	want := []string{one, filepath.Join(dir, "B.GGUF"), one, filepath.Join(dir, "s-00001-of-00002.gguf")}
	if !slices.Equal(files, want) {
		t.Errorf("files %q, want %q", files, want)
	}
	if !slices.Equal(missing, []string{empty, "/no/such/model.gguf"}) {
		t.Errorf("missing %q", missing)
	}
}

// TestLibraryImportTyped imports two models at once from paths typed into
// the import dialog.
func TestLibraryImportTyped(t *testing.T) {
	u, asked := newLibraryUI(t, false)
	src := tinyModel(t)
	other := filepath.Join(t.TempDir(), "other-chat.gguf")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, b, 0o644); err != nil {
		t.Fatal(err)
	}
	v := u.library
	v.pickFiles()
	if v.importDialog == nil {
		t.Fatal("no import dialog")
	}
	v.importEntry.SetText(src + "\n" + other)
	v.importDialog.Confirm()
	v.wait()
	if len(*asked) != 2 {
		t.Errorf("asked about %v", *asked)
	}
	if got := listed(u); !slices.Equal(got, []string{"other-chat", "tiny-chat"}) {
		t.Errorf("listed %v", got)
	}
}

func TestModelDetailsVision(t *testing.T) {
	e := library.Entry{Arch: "gemma3", FileType: "Q4_K_M", Size: 2_500_000_000}
	if got, want := modelDetails(e), "gemma3 · Q4_K_M · 2.5 GB"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	e.Projector = "/models/mmproj-gemma-3-4b-it-f16.gguf"
	if got, want := modelDetails(e), "gemma3 · Q4_K_M · 2.5 GB · sees images (mmproj-gemma-3-4b-it-f16.gguf)"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}
