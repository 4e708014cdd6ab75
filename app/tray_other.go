//go:build windows || darwin

package app

// trayHost reports whether a tray shows Saji's icon: the Windows
// notification area and the macOS menu bar always do.
func trayHost() bool { return true }
