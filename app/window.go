package app

// The window's size, remembered across runs, the chat's icon, and the
// standard shortcuts' actions (Ctrl+W, Ctrl+F) that the menu binds.

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// Preference keys of the window's size.
const (
	prefWindowWidth  = "window_width"
	prefWindowHeight = "window_height"
)

// Window sizes: the first run's, and the least a remembered one is
// brought up to (a size saved on a smaller screen, or a broken value).
var (
	defaultWindowSize = fyne.NewSize(1100, 720)
	minWindowSize     = fyne.NewSize(640, 480)
)

// windowSize returns the window size p remembers, or the default.
func windowSize(p fyne.Preferences) fyne.Size {
	if p == nil {
		return defaultWindowSize
	}
	w, h := float32(p.Float(prefWindowWidth)), float32(p.Float(prefWindowHeight))
	if w <= 0 || h <= 0 {
		return defaultWindowSize
	}
	return fyne.NewSize(max(w, minWindowSize.Width), max(h, minWindowSize.Height))
}

// saveWindowSize remembers the window's size for the next run.
func (u *ui) saveWindowSize() {
	p := u.core.prefs
	s := u.win.Canvas().Size()
	if p == nil || s.Width <= 0 || s.Height <= 0 {
		return
	}
	p.SetFloat(prefWindowWidth, float64(s.Width))
	p.SetFloat(prefWindowHeight, float64(s.Height))
}

// closeCurrent is Ctrl+W: in the chat, it closes the open conversation
// (a new chat shows); elsewhere, or with no conversation open, the window.
func (u *ui) closeCurrent() {
	if u.tabs.SelectedIndex() == tabChat && u.chat.conv != nil {
		u.chat.newChat()
		return
	}
	u.win.Close()
}

// find is Ctrl+F: the chat's search of its conversations (titles and
// messages) takes the focus.
func (u *ui) find() {
	u.tabs.SelectIndex(tabChat)
	u.welcome.Hide()
	u.win.Canvas().Focus(u.chat.search)
}

// chatIcon is the Chat's icon: a speech bubble, in the theme's colour.
func chatIcon() fyne.Resource {
	return theme.NewThemedResource(chatBubble)
}

// chatBubble is a speech bubble with three dots, 24 by 24.
var chatBubble = fyne.NewStaticResource("chat.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="24" height="24">`+
	`<path fill="#000000" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 7.5a1.5 1.5 0 1 0 0 .01zm5 0a1.5 1.5 0 1 0 0 .01zm5 0a1.5 1.5 0 1 0 0 .01z"/></svg>`))
