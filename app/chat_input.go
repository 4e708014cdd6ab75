package app

// The message entry: Enter sends, Shift+Enter starts a new line.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// chatEntry is the message entry: several lines, Enter sends and
// Shift+Enter starts a new line.
type chatEntry struct {
	widget.Entry
	app    fyne.App
	onSend func()
	// onPaste, when set, is offered the clipboard's text first: it
	// reports whether it took it (the paths of pictures, attached).
	onPaste func(text string) bool
	shift   bool // a Shift key is down, as KeyDown and KeyUp tell
}

// newChatEntry returns an entry that calls onSend on Enter.
func newChatEntry(a fyne.App, onSend func()) *chatEntry {
	e := &chatEntry{app: a, onSend: onSend}
	e.MultiLine = true
	e.Wrapping = fyne.TextWrapWord
	e.ExtendBaseWidget(e)
	e.SetMinRowsVisible(3)
	return e
}

// KeyDown notes Shift.
func (e *chatEntry) KeyDown(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = true
	}
	e.Entry.KeyDown(k)
}

// KeyUp notes Shift.
func (e *chatEntry) KeyUp(k *fyne.KeyEvent) {
	if k.Name == desktop.KeyShiftLeft || k.Name == desktop.KeyShiftRight {
		e.shift = false
	}
	e.Entry.KeyUp(k)
}

// shiftDown reports whether Shift is held: the desktop driver knows (a
// Shift released while the window was not focused never reaches KeyUp);
// otherwise what KeyDown and KeyUp said.
func (e *chatEntry) shiftDown() bool {
	if e.app != nil {
		if d, ok := e.app.Driver().(desktop.Driver); ok {
			return d.CurrentKeyModifiers()&fyne.KeyModifierShift != 0
		}
	}
	return e.shift
}

// TypedKey sends on Enter and inserts a new line on Shift+Enter.
func (e *chatEntry) TypedKey(k *fyne.KeyEvent) {
	if (k.Name == fyne.KeyReturn || k.Name == fyne.KeyEnter) && !e.shiftDown() {
		if e.onSend != nil {
			e.onSend()
		}
		return
	}
	e.Entry.TypedKey(k)
}

// TypedShortcut offers a paste to onPaste before the entry takes it as
// text.
func (e *chatEntry) TypedShortcut(s fyne.Shortcut) {
	if p, ok := s.(*fyne.ShortcutPaste); ok && e.onPaste != nil && p.Clipboard != nil && e.onPaste(p.Clipboard.Content()) {
		return
	}
	e.Entry.TypedShortcut(s)
}
