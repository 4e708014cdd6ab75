package synthtest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMain(m *testing.M) { Main(m) }

// TestTinyOnce writes a model once and gives the same path again.
func TestTinyOnce(t *testing.T) {
	a, err := Tiny("q8_0", 1)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(a)
	if err != nil || st.Size() == 0 {
		t.Fatalf("%s: %v", a, err)
	}
	b, err := Tiny("q8_0", 1)
	if err != nil || b != a {
		t.Errorf("second call: %q, %v; want %q", b, err, a)
	}
	if _, err := Tiny("no-such-type", 1); err == nil {
		t.Error("an unknown type was written")
	}
}

// TestFolder lists one model under every name.
func TestFolder(t *testing.T) {
	dir := Folder(t, "q8_0", 1, "a", "b")
	for _, n := range []string{"a", "b"} {
		if st, err := os.Stat(filepath.Join(dir, n+".gguf")); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", n, err)
		}
	}
}
