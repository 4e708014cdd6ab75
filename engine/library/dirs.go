package library

import (
	"path/filepath"

	"github.com/adrg/xdg"
)

// DataDir returns Saji's folder in the XDG data directory
// ($XDG_DATA_HOME/saji, or the platform's equivalent): the models, the
// downloads' state and the app's conversations live there.
func DataDir() string { return filepath.Join(xdg.DataHome, "saji") }

// ModelsDir returns the default library folder: "models" in DataDir.
func ModelsDir() string { return filepath.Join(DataDir(), "models") }

// DownloadsDir returns where the download manager keeps its jobs' state:
// "downloads" in DataDir.
func DownloadsDir() string { return filepath.Join(DataDir(), "downloads") }
