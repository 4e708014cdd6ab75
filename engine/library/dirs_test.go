package library

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestCacheDir makes Saji's folder in the user's cache directory.
func TestCacheDir(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("XDG_CACHE_HOME is Linux's")
	}
	home := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", home)
	dir := CacheDir()
	if want := filepath.Join(home, "saji"); dir != want {
		t.Fatalf("CacheDir() = %q, want %q", dir, want)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Errorf("%s was not made: %v", dir, err)
	}
}
