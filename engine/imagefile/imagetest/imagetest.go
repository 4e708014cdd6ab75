// Package imagetest writes small pictures for the tests of the code that
// takes them (the API's image parts, the chat's attachments).
package imagetest

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"testing"
)

// PNG returns a w×h PNG picture: a gradient, so that its pixels differ.
func PNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 40), uint8(y * 40), 160, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
