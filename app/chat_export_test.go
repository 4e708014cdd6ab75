package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage"
)

// chatWriter opens path for writing as a file dialog would.
func chatWriter(path string) (fyne.URIWriteCloser, error) {
	return storage.Writer(storage.NewFileURI(path))
}

// chatReadFile returns the content of path.
func chatReadFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestChatExport(t *testing.T) {
	gen := &fakeGen{Chunks: []string{"Exported reply"}}
	u := chatUI(t, gen)
	chatSend(u, "to export")
	chatWaitIdle(t, u)
	c, _ := chatOpenMessages(t, u)
	for _, format := range []string{"md", "json"} {
		path := filepath.Join(t.TempDir(), "out."+format)
		w, err := chatWriter(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := u.chat.writeExport(c.ID, format, w); err != nil {
			t.Fatal(err)
		}
		data := chatReadFile(t, path)
		if !strings.Contains(data, "Exported reply") {
			t.Errorf("%s export lacks the reply:\n%s", format, data)
		}
		if format == "json" && !strings.Contains(data, `"messages"`) {
			t.Errorf("json export:\n%s", data)
		}
	}
	chatLocked(u, func() { u.chat.exportAs("md") })
	if u.win.Canvas().Overlays().Top() == nil {
		t.Error("export opened no dialog")
	}
}
