//go:build !windows && !darwin

package app

import (
	"context"
	"time"

	"github.com/godbus/dbus/v5"
)

// trayHost reports whether a tray shows Saji's icon: on Linux and the BSDs
// the toolkit's tray is a StatusNotifierItem, which shows only where a
// StatusNotifierWatcher runs on the session bus (KDE, most panels; GNOME
// only with the AppIndicator extension).
func trayHost() bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var has bool
	err = conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, "org.kde.StatusNotifierWatcher").Store(&has)
	return err == nil && has
}
