package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// chatView is the chat: conversations, messages and the reply stream.
type chatView struct{ content fyne.CanvasObject }

func newChatView(u *ui) *chatView      { return &chatView{content: widget.NewLabel("Chat")} }
func (v *chatView) refreshModels()     {}
func (v *chatView) openModel(n string) {}
