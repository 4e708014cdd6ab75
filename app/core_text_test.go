package app

import (
	"testing"

	"saji/engine/fit"
)

// TestFitCheckText checks the line under a model's first reply: the
// memory it takes where the process grew, only the speed where it did
// not (the runtime had shrunk by more than the model takes, and the line
// said "takes about 0 B of memory").
func TestFitCheckText(t *testing.T) {
	for _, tc := range []struct {
		m    fit.Measurement
		want string
	}{
		{fit.Measurement{RSS: 26_000_000, DecodeTokensPerSec: 54.7}, "This model takes about 26 MB of memory and wrote about 55 tokens/s."},
		{fit.Measurement{RSS: 0, DecodeTokensPerSec: 34.4}, "This model wrote about 34 tokens/s."},
		{fit.Measurement{RSS: -88_000_000, DecodeTokensPerSec: 3.25}, "This model wrote about 3.2 tokens/s."},
	} {
		if got := fitCheckText(&tc.m); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.m, got, tc.want)
		}
	}
}
