package autostart

import (
	"encoding/xml"
	"path/filepath"
	"strings"
	"testing"
)

func TestDesktopEntryExec(t *testing.T) {
	tests := []struct {
		exe, want string
	}{
		{"/opt/saji/saji", `Exec="/opt/saji/saji"`},
		{"/home/a b/saji", `Exec="/home/a b/saji"`},
		{`/x/"$HOME"/100%/saji`, `Exec="/x/\\"\\$HOME\\"/100%%/saji"`},
		{"/x/back\\slash", `Exec="/x/back\\\\slash"`},
		{"/x/`cmd`", "Exec=\"/x/\\\\`cmd\\\\`\""},
	}
	for _, tt := range tests {
		e := Entry{ID: "io.saji.Saji", Name: "Saji", Exe: tt.exe}
		got := string(desktopEntry(e))
		if !strings.Contains(got, "\n"+tt.want+"\n") {
			t.Errorf("%q: entry\n%s\nlacks %s", tt.exe, got, tt.want)
		}
	}
}

func TestDesktopEntryFields(t *testing.T) {
	got := string(desktopEntry(Entry{ID: "io.saji.Saji", Name: "Saji", Comment: "Runs\nmodels", Exe: "/s"}))
	for _, want := range []string{"[Desktop Entry]\n", "Type=Application\n", "Name=Saji\n", "Comment=Runs models\n",
		"Icon=io.saji.Saji\n", "Terminal=false\n", "X-GNOME-Autostart-enabled=true\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("entry\n%s\nlacks %q", got, want)
		}
	}
}

func TestLaunchAgent(t *testing.T) {
	b := launchAgent(Entry{ID: "io.saji.Saji", Name: "Saji", Exe: "/Applications/Saji & Co.app/Contents/MacOS/saji"})
	var plist struct {
		Dict struct {
			Keys    []string `xml:"key"`
			Strings []string `xml:"string"`
			Array   []string `xml:"array>string"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal(b, &plist); err != nil {
		t.Fatalf("not XML: %v\n%s", err, b)
	}
	if got := strings.Join(plist.Dict.Keys, ","); got != "Label,ProgramArguments,RunAtLoad,ProcessType" {
		t.Errorf("keys %s", got)
	}
	if len(plist.Dict.Array) != 1 || plist.Dict.Array[0] != "/Applications/Saji & Co.app/Contents/MacOS/saji" {
		t.Errorf("program arguments %q", plist.Dict.Array)
	}
	if len(plist.Dict.Strings) < 1 || plist.Dict.Strings[0] != "io.saji.Saji" {
		t.Errorf("label %q", plist.Dict.Strings)
	}
}

func TestRunValue(t *testing.T) {
	if got := runValue(Entry{Exe: `C:\Program Files\Saji\saji.exe`}); got != `"C:\Program Files\Saji\saji.exe"` {
		t.Errorf("Run value %s", got)
	}
}

func TestEntryChecked(t *testing.T) {
	for _, e := range []Entry{
		{ID: "", Name: "Saji", Exe: "/s"},
		{ID: "a/b", Name: "Saji", Exe: "/s"},
		{ID: "io.saji.Saji", Name: "", Exe: "/s"},
		{ID: "io.saji.Saji", Name: "Saji", Exe: "saji"},
	} {
		if err := Set(e, true); err == nil {
			t.Errorf("Set(%+v) accepted it", e)
		}
		if _, err := Enabled(e); err == nil {
			t.Errorf("Enabled(%+v) accepted it", e)
		}
	}
}

// testEntry is an entry for a program in a temporary folder.
func testEntry(t *testing.T) Entry {
	return Entry{ID: "io.saji.Saji", Name: "Saji", Comment: "Runs models", Exe: filepath.Join(t.TempDir(), "saji")}
}
