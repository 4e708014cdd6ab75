// Package autostart registers a program to start when the user logs in:
// an XDG autostart entry (~/.config/autostart/ID.desktop) on Linux and the
// BSDs, a LaunchAgent (~/Library/LaunchAgents/ID.plist) on macOS, and a
// value of the Run key (HKCU\Software\Microsoft\Windows\CurrentVersion\Run)
// on Windows. It does not import the GUI toolkit, so every platform's code
// cross-builds and the file formats are tested on any machine.
package autostart

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Entry is the program to start at login.
type Entry struct {
	// ID names the registration: the file's name without its extension
	// ("io.saji.Saji"), and the icon's name in a desktop entry.
	ID string
	// Name is shown to people ("Saji") and names the Run key's value.
	Name string
	// Comment says what the program does, in a desktop entry.
	Comment string
	// Exe is the program's absolute path.
	Exe string
}

// check says what is wrong with e, if anything.
func (e Entry) check() error {
	switch {
	case e.ID == "" || strings.ContainsAny(e.ID, `/\`):
		return fmt.Errorf("autostart: the ID %q is not a file name", e.ID)
	case e.Name == "":
		return errors.New("autostart: no name")
	case !filepath.IsAbs(e.Exe):
		return fmt.Errorf("autostart: the program %q is not an absolute path", e.Exe)
	}
	return nil
}

// Enabled reports whether e starts at login.
func Enabled(e Entry) (bool, error) {
	if err := e.check(); err != nil {
		return false, err
	}
	return enabled(e)
}

// Set makes e start at login (on) or not.
func Set(e Entry, on bool) error {
	if err := e.check(); err != nil {
		return err
	}
	if on {
		return enable(e)
	}
	return disable(e)
}

// writeFile writes b to path atomically, making its folder.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("autostart: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// exists reports whether path exists.
func exists(path string) (bool, error) {
	_, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("autostart: %w", err)
	}
	return true, nil
}

// removeFile removes path; one that does not exist is no error.
func removeFile(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("autostart: %w", err)
	}
	return nil
}

// desktopEntry is e's XDG autostart entry (the Desktop Entry
// Specification: a quoted Exec argument escapes ", `, $ and \, and % is
// written %%).
func desktopEntry(e Entry) []byte {
	quoted := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "`", "\\`", `$`, `\$`, `%`, `%%`).Replace(e.Exe)
	// The value's own escapes (\\ for a backslash) apply to the Exec key too.
	quoted = strings.ReplaceAll(quoted, `\`, `\\`)
	line := strings.NewReplacer("\n", " ", "\r", " ")
	var b strings.Builder
	fmt.Fprintf(&b, "[Desktop Entry]\nType=Application\nName=%s\n", line.Replace(e.Name))
	if e.Comment != "" {
		fmt.Fprintf(&b, "Comment=%s\n", line.Replace(e.Comment))
	}
	fmt.Fprintf(&b, "Exec=\"%s\"\nIcon=%s\nTerminal=false\nX-GNOME-Autostart-enabled=true\n", line.Replace(quoted), e.ID)
	return []byte(b.String())
}

// launchAgent is e's macOS LaunchAgent property list: run at load, as an
// interactive process.
func launchAgent(e Entry) []byte {
	esc := func(s string) string {
		var b bytes.Buffer
		xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	return []byte(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + esc(e.ID) + `</string>
	<key>ProgramArguments</key>
	<array>
		<string>` + esc(e.Exe) + `</string>
	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>ProcessType</key>
	<string>Interactive</string>
</dict>
</plist>
`)
}

// runValue is e's value of the Windows Run key: the quoted program.
func runValue(e Entry) string { return `"` + e.Exe + `"` }
