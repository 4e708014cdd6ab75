package assets

import (
	"bytes"
	"image/png"
	"testing"
)

func TestIconIsA512PNG(t *testing.T) {
	img, err := png.Decode(bytes.NewReader(Icon))
	if err != nil {
		t.Fatalf("icon: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 512 || b.Dy() != 512 {
		t.Errorf("icon is %v, want 512x512", b)
	}
}
