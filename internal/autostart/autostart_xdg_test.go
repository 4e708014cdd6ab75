//go:build !windows && !darwin

package autostart

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/adrg/xdg"
)

func TestSetXDG(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	xdg.Reload()
	t.Cleanup(xdg.Reload)
	e := testEntry(t)
	file := filepath.Join(home, ".config", "autostart", "io.saji.Saji.desktop")
	if on, err := Enabled(e); err != nil || on {
		t.Fatalf("enabled before Set: %v, %v", on, err)
	}
	if err := Set(e, true); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no entry at %s: %v", file, err)
	}
	if string(b) != string(desktopEntry(e)) {
		t.Errorf("entry\n%s", b)
	}
	if on, err := Enabled(e); err != nil || !on {
		t.Errorf("enabled after Set: %v, %v", on, err)
	}
	for range 2 { // turning it off twice is no error
		if err := Set(e, false); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the entry is still there: %v", err)
	}
	if on, err := Enabled(e); err != nil || on {
		t.Errorf("enabled after Set off: %v, %v", on, err)
	}
}
