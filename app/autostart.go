package app

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"saji/internal/autostart"
)

// loginEntry is Saji's start-at-login registration: this program, by its
// real path.
func loginEntry() (autostart.Entry, error) {
	exe, err := os.Executable()
	if err != nil {
		return autostart.Entry{}, fmt.Errorf("app: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return autostart.Entry{ID: ID, Name: "Saji", Comment: "Run large language models on this computer", Exe: exe}, nil
}

// startsAtLogin reports whether Saji starts at login (false, logged to
// log, when that cannot be read).
func startsAtLogin(log *slog.Logger) bool {
	e, err := loginEntry()
	if err == nil {
		var on bool
		if on, err = autostart.Enabled(e); err == nil {
			return on
		}
	}
	log.Warn("app: reading the start at login", "err", err)
	return false
}

// setStartAtLogin makes Saji start at login, or not; it writes nothing
// when that is already so.
func setStartAtLogin(on bool) error {
	e, err := loginEntry()
	if err != nil {
		return err
	}
	if was, err := autostart.Enabled(e); err == nil && was == on {
		return nil
	}
	return autostart.Set(e, on)
}
