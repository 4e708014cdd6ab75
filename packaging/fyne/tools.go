//go:build tools

// Package fyne pins the version of the fyne command (fyne.io/tools) that
// `make package` builds to run `fyne package`. It is its own module so the
// packaging tool's dependencies stay out of Saji's go.mod.
package fyne

import _ "fyne.io/tools/cmd/fyne"
