package imagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"testing"
)

// picture returns a w×h picture encoded as format.
func picture(t testing.TB, format string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 90, 255})
		}
	}
	var buf bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&buf, img)
	case "jpeg":
		err = jpeg.Encode(&buf, img, nil)
	case "gif":
		err = gif.Encode(&buf, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// webpLossless is a 1×1 lossless WebP picture.
var webpLossless = []byte{
	'R', 'I', 'F', 'F', 0x1a, 0, 0, 0, 'W', 'E', 'B', 'P', 'V', 'P', '8', 'L',
	0x0d, 0, 0, 0, 0x2f, 0, 0, 0, 0x10, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0, 0,
}

func TestDecode(t *testing.T) {
	big := picture(t, "png", 300, 200)
	tests := []struct {
		name   string
		data   []byte
		lim    Limits
		format string
		w, h   int
		err    error
	}{
		{name: "png", data: picture(t, "png", 7, 5), format: "png", w: 7, h: 5},
		{name: "jpeg", data: picture(t, "jpeg", 16, 9), format: "jpeg", w: 16, h: 9},
		{name: "gif", data: picture(t, "gif", 4, 3), format: "gif", w: 4, h: 3},
		{name: "webp", data: webpLossless, format: "webp", w: 1, h: 1},
		{name: "text", data: []byte("not a picture"), err: ErrFormat},
		{name: "empty", data: nil, err: ErrFormat},
		{name: "bytes over", data: big, lim: Limits{MaxBytes: 100}, err: ErrTooLarge},
		{name: "pixels over", data: big, lim: Limits{MaxPixels: 300*200 - 1}, err: ErrTooLarge},
		{name: "pixels at", data: big, lim: Limits{MaxPixels: 300 * 200}, format: "png", w: 300, h: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			im, err := Decode(tt.data, tt.lim)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if im.Format != tt.format || im.Width() != tt.w || im.Height() != tt.h {
				t.Fatalf("got %s %d×%d, want %s %d×%d", im.Format, im.Width(), im.Height(), tt.format, tt.w, tt.h)
			}
		})
	}
}

// TestBomb: a PNG header that claims a gigapixel is refused from its
// header, before the decoder allocates it.
func TestBomb(t *testing.T) {
	data := picture(t, "png", 1, 1)
	// The IHDR chunk's type and data are bytes 12..29 (width and height
	// at 16..24), its CRC at 29..33.
	copy(data[16:], []byte{0, 0, 0x80, 0, 0, 0, 0x80, 0})
	binary.BigEndian.PutUint32(data[29:], crc32.ChecksumIEEE(data[12:29]))
	if _, err := Decode(data, Limits{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

// FuzzDecode: no input panics, and what decodes is within the limits.
func FuzzDecode(f *testing.F) {
	f.Add(picture(f, "png", 3, 2))
	f.Add(picture(f, "jpeg", 8, 8))
	f.Add(picture(f, "gif", 2, 2))
	f.Add(webpLossless)
	lim := Limits{MaxBytes: 1 << 16, MaxPixels: 1 << 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := Decode(data, lim)
		if err == nil && im.Width()*im.Height() > lim.MaxPixels {
			t.Fatalf("decoded %d×%d over the limit", im.Width(), im.Height())
		}
	})
}
