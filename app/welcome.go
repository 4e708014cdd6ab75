package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

func newWelcomeView(u *ui) fyne.CanvasObject { return widget.NewLabel("Welcome") }
