package app

import (
	"errors"
	"runtime"
)

// errNoDisplay is why the window cannot open in a session without a
// display.
var errNoDisplay = errors.New("app: there is no display to open the window on (neither DISPLAY nor WAYLAND_DISPLAY is set); " +
	"the subcommands work without one: see 'saji --help'")

// checkDisplay reports, before the GUI toolkit panics on it, that the
// window cannot open: on Linux and the BSDs, a session without X11 or
// Wayland (an SSH login, a container). getenv reads the environment.
func checkDisplay(goos string, getenv func(string) string) error {
	switch goos {
	case "darwin", "windows", "android", "ios", "js":
		return nil
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return errNoDisplay
	}
	return nil
}

// hostOS is the operating system checkDisplay is asked about.
var hostOS = runtime.GOOS
