// Package app is Saji's desktop GUI, built with Fyne: the main window with
// its chat, library and server views. It is the only package that imports
// the toolkit; the engine underneath knows nothing of it.
package app

import (
	"context"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"saji/assets"
)

// ID is the application identifier, as in FyneApp.toml; Fyne keys the
// preferences and storage locations by it.
const ID = "io.saji.Saji"

// Run opens the main window and blocks until it is closed or ctx is
// cancelled.
func Run(ctx context.Context) error {
	a := fyneapp.NewWithID(ID)
	a.SetIcon(Icon())
	w := NewMainWindow(a)
	stop := context.AfterFunc(ctx, func() { fyne.Do(a.Quit) })
	defer stop()
	w.ShowAndRun()
	return nil
}

// Icon returns the app icon as a Fyne resource.
func Icon() fyne.Resource {
	return fyne.NewStaticResource("icon.png", assets.Icon)
}

// NewMainWindow creates Saji's main window in a, titled "Saji", with its
// content laid out; the caller shows it.
func NewMainWindow(a fyne.App) fyne.Window {
	w := a.NewWindow("Saji")
	w.SetContent(newMainView())
	w.Resize(fyne.NewSize(960, 640))
	w.SetMaster()
	return w
}
