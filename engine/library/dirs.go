package library

import (
	"os"
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

// CacheDir returns Saji's folder in the user's cache directory
// (os.UserCacheDir()/saji), made if it is missing, for what can be
// measured again (the memory bandwidth); "" when there is none.
func CacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	dir := filepath.Join(d, "saji")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	return dir
}

// PromptCacheDir returns the default folder of the prompt cache on disk
// (the KV cache blocks of finished prompts): "prompt-cache" in CacheDir,
// or "" when there is no cache directory.
func PromptCacheDir() string {
	d := CacheDir()
	if d == "" {
		return ""
	}
	return filepath.Join(d, "prompt-cache")
}
