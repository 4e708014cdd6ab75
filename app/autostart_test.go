//go:build !windows && !darwin

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"github.com/adrg/xdg"
)

// TestSettingsStartAtLogin turns "Start Saji when I log in" on and off in
// the settings, in a temporary home: the XDG autostart entry comes and
// goes.
func TestSettingsStartAtLogin(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	entry := filepath.Join(home, ".config", "autostart", ID+".desktop")

	u := newTestUI(t, &fakeGen{})
	v := u.settings
	if v.atLogin.Checked {
		t.Fatal("start at login is on in a new home")
	}
	test.Tap(v.atLogin)
	test.Tap(v.saveButton)
	v.saving.wait()
	if v.status.Text != "Saved." {
		t.Fatalf("status %q", v.status.Text)
	}
	b, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no autostart entry: %v", err)
	}
	exe, _ := os.Executable()
	exe, _ = filepath.EvalSymlinks(exe)
	if !strings.Contains(string(b), "Exec=\""+exe+"\"\n") || !strings.Contains(string(b), "Name=Saji\n") {
		t.Errorf("autostart entry:\n%s", b)
	}
	v.load(u.core.Settings())
	if !v.atLogin.Checked {
		t.Error("the settings do not show start at login on")
	}
	test.Tap(v.atLogin)
	test.Tap(v.saveButton)
	v.saving.wait()
	if _, err := os.Stat(entry); !os.IsNotExist(err) {
		t.Errorf("the autostart entry is still there: %v", err)
	}
}
