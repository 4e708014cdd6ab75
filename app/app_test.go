package app

import (
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestMainWindow(t *testing.T) {
	a := test.NewTempApp(t)
	w := NewMainWindow(a)
	defer w.Close()

	if got := w.Title(); got != "Saji" {
		t.Errorf("title %q, want Saji", got)
	}
	tabs, ok := w.Content().(*container.AppTabs)
	if !ok {
		t.Fatalf("content is %T, want *container.AppTabs", w.Content())
	}
	var names []string
	for _, it := range tabs.Items {
		names = append(names, it.Text)
	}
	want := []string{"Chat", "Library", "Server"}
	if len(names) != len(want) {
		t.Fatalf("tabs %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Errorf("tab %d is %q, want %q", i, names[i], want[i])
		}
	}
	if !hasLabel(tabs.Items[0].Content, "Saji") {
		t.Error("the chat tab does not greet with the app's name")
	}
}

func hasLabel(o fyne.CanvasObject, text string) bool {
	if l, ok := o.(*widget.Label); ok && l.Text == text {
		return true
	}
	if c, ok := o.(*fyne.Container); ok {
		for _, child := range c.Objects {
			if hasLabel(child, text) {
				return true
			}
		}
	}
	return false
}
