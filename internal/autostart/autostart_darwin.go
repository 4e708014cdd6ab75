package autostart

import (
	"fmt"
	"os"
	"path/filepath"
)

// path is e's LaunchAgent in the user's library.
func path(e Entry) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("autostart: %w", err)
	}
	return filepath.Join(home, "Library", "LaunchAgents", e.ID+".plist"), nil
}

func enabled(e Entry) (bool, error) {
	p, err := path(e)
	if err != nil {
		return false, err
	}
	return exists(p)
}

func enable(e Entry) error {
	p, err := path(e)
	if err != nil {
		return err
	}
	return writeFile(p, launchAgent(e))
}

func disable(e Entry) error {
	p, err := path(e)
	if err != nil {
		return err
	}
	return removeFile(p)
}
