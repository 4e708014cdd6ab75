package app

import (
	"strings"
	"testing"
)

// TestTrayWordsMatchServer checks that the tray menu names the server as
// the Server tab and the settings do, stopped and running: it said
// "Start the API" and "API: on" beside the tab's "Start the server".
func TestTrayWordsMatchServer(t *testing.T) {
	u, a, _ := trayTestUI(t)
	check := func(state string) {
		t.Helper()
		u.syncTray()
		menuItem(t, a.last(), u.server.toggle.Text)
		if line := a.last().Items[0].Label; !strings.HasPrefix(line, "Server: "+state) {
			t.Errorf("the tray's first line %q, want it to start with %q", line, "Server: "+state)
		}
		for _, it := range a.last().Items {
			if strings.Contains(it.Label, "API") {
				t.Errorf("the tray says %q where the window says server", it.Label)
			}
		}
	}
	check("stopped")
	menuItem(t, a.last(), u.server.toggle.Text).Action()
	u.server.wait()
	if u.core.APIURL() == "" {
		t.Fatalf("the server did not start: %s", u.server.status.Text)
	}
	check("running at 127.0.0.1:")
	menuItem(t, a.last(), u.server.toggle.Text).Action()
	u.server.wait()
	check("stopped")
}
