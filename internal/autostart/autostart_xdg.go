//go:build !windows && !darwin

package autostart

import (
	"path/filepath"

	"github.com/adrg/xdg"
)

// path is e's autostart entry in the user's configuration folder.
func path(e Entry) string { return filepath.Join(xdg.ConfigHome, "autostart", e.ID+".desktop") }

func enabled(e Entry) (bool, error) { return exists(path(e)) }

func enable(e Entry) error { return writeFile(path(e), desktopEntry(e)) }

func disable(e Entry) error { return removeFile(path(e)) }
