package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// serverPanel starts and stops the local API.
type serverPanel struct{ content fyne.CanvasObject }

func newServerPanel(u *ui) *serverPanel { return &serverPanel{content: widget.NewLabel("Server")} }
func (p *serverPanel) start()           {}
func (p *serverPanel) close()           {}
