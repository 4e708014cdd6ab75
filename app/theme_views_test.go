package app

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"saji/engine/hardware"
)

// themedView is a view of the app to check in each theme: show brings it
// on screen and waits until it is drawn; locked runs a function while no
// update of the view draws.
type themedView struct {
	name   string
	show   func(t *testing.T, u *ui)
	locked func(u *ui, f func())
}

// viewsToCheck are every view of the app, built through the constructors
// the app uses: the first-run page, a conversation, the library, Discover
// with a repository open, the server panel, the settings, the wizard and
// the conversation's settings dialog.
var viewsToCheck = []themedView{
	{name: "welcome", show: func(t *testing.T, u *ui) {
		u.tabs.SelectIndex(tabChat)
		u.welcome.Show()
	}},
	{name: "chat", show: func(t *testing.T, u *ui) {
		u.welcome.Hide()
		u.tabs.SelectIndex(tabChat)
		chatSend(u, "Tell me about cats.")
		chatWaitShown(t, u, "independent")
		chatWaitIdle(t, u)
		chatSend(u, "And dogs?")
		chatWaitIdle(t, u)
	}, locked: chatLocked},
	{name: "library", show: func(t *testing.T, u *ui) {
		u.tabs.SelectIndex(tabLibrary)
		u.library.wait()
	}},
	{name: "discover", show: func(t *testing.T, u *ui) {
		showDiscover(t, u)
		openDiscoverRepo(t, u.discover, tinyRepo)
		u.discover.wait()
	}, locked: func(u *ui, f func()) { u.discover.locked(f) }},
	{name: "server", show: func(t *testing.T, u *ui) { u.tabs.SelectIndex(tabServer) }},
	{name: "settings", show: func(t *testing.T, u *ui) { u.tabs.SelectIndex(tabSettings) }},
	{name: "wizard", show: func(t *testing.T, u *ui) {
		w := u.showWizard()
		waitFor(t, "the machine", func() bool { return w.snapshot().Known })
	}},
	{name: "chat settings", show: func(t *testing.T, u *ui) {
		u.tabs.SelectIndex(tabChat)
		chatLocked(u, u.chat.showSettings)
	}, locked: chatLocked},
}

// themedUI returns a main window in theme name with the tiny model in
// its library, a fake hub for Discover and a known machine for the
// wizard; the chat's replies come from a fake generator.
func themedUI(t *testing.T, name string) *ui {
	t.Helper()
	_, q4 := discoverHub(t)
	c := newTestCore(t)
	c.detect = func(context.Context) (hardware.Machine, error) { return testMachine(24*gib, 18*gib), nil }
	s := c.Settings()
	s.Theme = name
	if err := c.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	u := chatUIOver(t, c, &fakeGen{Chunks: []string{"Cats are **independent** animals.\n\n",
		"- They sleep a lot\n- They purr\n\n", "```go\nfmt.Println(\"meow\")\n```\n", "See `man cat`."}})
	u.discover.memory = fakeMemory(q4)
	t.Cleanup(u.discover.wait)
	return u
}

// TestThemeContrast draws every view in the dark and the light theme at
// the sizes the issue tried and checks that every text drawn reaches
// WCAG AA's 4.5:1 against what lies under it, both by the colours the
// painter is given and on the screenshot it paints (lowContrast).
func TestThemeContrast(t *testing.T) {
	if testing.Short() {
		t.Skip("draws every view twice")
	}
	for _, variant := range []string{themeDark, themeLight} {
		t.Run(variant, func(t *testing.T) {
			u := themedUI(t, variant)
			for _, view := range viewsToCheck {
				view.show(t, u)
				lock := view.locked
				if lock == nil {
					lock = func(_ *ui, f func()) { f() }
				}
				for _, size := range []fyne.Size{{Width: 1280, Height: 800}, {Width: 1100, Height: 720}, {Width: 800, Height: 600}} {
					var bad []string
					var checked int
					lock(u, func() {
						u.win.Resize(size)
						bad, checked = lowContrast(u.win.Canvas(), u.win.Canvas().Capture())
					})
					if checked < 10 {
						t.Errorf("%s at %v: only %d texts drawn", view.name, size, checked)
					}
					if len(bad) > 0 {
						t.Errorf("%s at %v: text below %.1f:1:\n%s", view.name, size, minTextContrast, strings.Join(bad, "\n"))
					}
				}
				for _, o := range u.win.Canvas().Overlays().List() {
					u.win.Canvas().Overlays().Remove(o)
				}
			}
		})
	}
}

// TestThemeSwitchRepaints switches a conversation drawn in the dark
// theme to the light one: the messages drawn before the switch (the
// person's bubbles) take the light colours too, and every text reads.
func TestThemeSwitchRepaints(t *testing.T) {
	u := themedUI(t, themeDark)
	viewsToCheck[1].show(t, u) // the chat
	applyTheme(u.app, themeLight)
	var bad []string
	var bubbles int
	chatLocked(u, func() {
		u.win.Resize(fyne.NewSize(1280, 800))
		bad, _ = lowContrast(u.win.Canvas(), u.win.Canvas().Capture())
		for _, o := range test.LaidOutObjects(u.chat.msgBox) {
			if r, ok := o.(*themedRect); ok && r.fill == colorNameUserBubble {
				bubbles++
				if got := r.rect.FillColor; got != palette[colorNameUserBubble].light {
					t.Errorf("a bubble drawn in the dark theme stays %v in the light one", got)
				}
			}
		}
	})
	if bubbles != 2 {
		t.Errorf("%d bubbles, want 2", bubbles)
	}
	if len(bad) > 0 {
		t.Errorf("after switching to light, text below %.1f:1:\n%s", minTextContrast, strings.Join(bad, "\n"))
	}
}
