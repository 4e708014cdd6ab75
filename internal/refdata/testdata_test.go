package refdata

import (
	"os"
	"testing"
)

func TestDirFindsReadme(t *testing.T) {
	d := Dir(t)
	if _, err := os.Stat(Path(t, "MANIFEST.json")); err != nil {
		t.Fatalf("data at %s has no MANIFEST.json: %v", d, err)
	}
}
