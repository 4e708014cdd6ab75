// Package refdata finds the shared reference data (../shared/testdata beside
// the repository, or $SAJI_TESTDATA) for tests. A test that needs it calls
// Dir or Path: where the data is absent the test is skipped with a message
// saying where it looked, except under CI (CI=true), where absence is a
// failure.
package refdata

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// EnvVar names the environment variable that overrides the data's location.
const EnvVar = "SAJI_TESTDATA"

var locate = sync.OnceValues(func() (string, error) {
	if d := os.Getenv(EnvVar); d != "" {
		return d, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	// Walk up to the module root (the directory holding go.mod); the data
	// lives in ../shared/testdata relative to it.
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(d), "shared", "testdata"), nil
		}
		if filepath.Dir(d) == d {
			return filepath.Join(wd, "shared", "testdata"), nil
		}
	}
})

// Dir returns the reference data directory, or skips t (fails it under CI)
// when the directory does not exist.
func Dir(t testing.TB) string {
	t.Helper()
	d, err := locate()
	if err == nil {
		_, err = os.Stat(filepath.Join(d, "README.md"))
	}
	if err != nil {
		msg := "reference data not found at " + d + " (set " + EnvVar + " or place it at ../shared/testdata): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return d
}

// Path returns the path of rel inside the reference data directory, with
// the same skip/fail rule as Dir. It does not check that rel exists.
func Path(t testing.TB, rel string) string {
	t.Helper()
	return filepath.Join(Dir(t), filepath.FromSlash(rel))
}
