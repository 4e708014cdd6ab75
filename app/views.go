package app

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// newMainView lays out the top-level views as tabs. Each view is a
// placeholder until its issue lands; the tabs already name where things go.
func newMainView() fyne.CanvasObject {
	tabs := container.NewAppTabs(
		container.NewTabItemWithIcon("Chat", theme.MailComposeIcon(), chatView()),
		container.NewTabItemWithIcon("Library", theme.StorageIcon(), libraryView()),
		container.NewTabItemWithIcon("Server", theme.ComputerIcon(), serverView()),
	)
	tabs.SetTabLocation(container.TabLocationLeading)
	return tabs
}

// chatView is the welcome page shown until the chat view exists.
func chatView() fyne.CanvasObject {
	logo := canvas.NewImageFromResource(Icon())
	logo.FillMode = canvas.ImageFillContain
	logo.SetMinSize(fyne.NewSize(128, 128))

	title := widget.NewLabelWithStyle("Saji", fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	title.SizeName = theme.SizeNameHeadingText
	tagline := widget.NewLabelWithStyle("Chat with language models that run on this computer.",
		fyne.TextAlignCenter, fyne.TextStyle{})
	hint := widget.NewLabelWithStyle("Drop a .gguf model file onto this window to add it (coming soon).",
		fyne.TextAlignCenter, fyne.TextStyle{Italic: true})

	return container.NewCenter(container.NewVBox(logo, title, tagline, hint))
}

// libraryView will list the local models and the Hugging Face search.
func libraryView() fyne.CanvasObject {
	return placeholder("Library", "Your models, and models to download from Hugging Face.")
}

func placeholder(name, what string) fyne.CanvasObject {
	heading := widget.NewLabelWithStyle(name, fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	heading.SizeName = theme.SizeNameSubHeadingText
	return container.NewCenter(container.NewVBox(heading,
		widget.NewLabelWithStyle(what, fyne.TextAlignCenter, fyne.TextStyle{})))
}
