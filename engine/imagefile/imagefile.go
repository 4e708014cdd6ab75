// Package imagefile decodes the pictures a person attaches to a chat
// (JPEG, PNG, WebP, and GIF's first frame) within limits on bytes and
// pixels, so that a corrupt file or a decompression bomb is a clear error
// before any large allocation.
//
// An Image carries the SHA-256 of its encoded bytes: the engine keys its
// prefix cache by it, so that a follow-up question about the same picture
// does not encode it again.
package imagefile

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers GIF: image.Decode reads the first frame
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/webp"
)

// Limits bounds what Decode accepts.
type Limits struct {
	// MaxBytes bounds the encoded file (0: DefaultLimits' value).
	MaxBytes int
	// MaxPixels bounds width × height (0: DefaultLimits' value).
	MaxPixels int
}

// DefaultLimits are the limits of the API and the app: 20 MiB, as
// OpenAI's, and 50 megapixels, past any camera's picture and far below
// what a bomb claims.
var DefaultLimits = Limits{MaxBytes: 20 << 20, MaxPixels: 50_000_000}

// Errors wrapped by Decode's errors, for callers that answer in their own
// words (an HTTP 400, a dialog).
var (
	// ErrTooLarge: the file or its pixel count is over the limits.
	ErrTooLarge = errors.New("imagefile: image too large")
	// ErrFormat: the bytes are not a JPEG, PNG, WebP or GIF picture.
	ErrFormat = errors.New("imagefile: not a JPEG, PNG, WebP or GIF image")
)

// Image is a decoded picture.
type Image struct {
	// Image is the decoded picture (GIF: its first frame).
	Image image.Image
	// Format is the format's name: "jpeg", "png", "webp" or "gif".
	Format string
	// Hash is the SHA-256 of the encoded bytes.
	Hash [32]byte
}

// Width returns the picture's width in pixels.
func (im Image) Width() int { return im.Image.Bounds().Dx() }

// Height returns the picture's height in pixels.
func (im Image) Height() int { return im.Image.Bounds().Dy() }

// Decode decodes data within lim. It reads the header first and refuses a
// picture over the pixel limit before decoding it.
func Decode(data []byte, lim Limits) (Image, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultLimits.MaxBytes
	}
	if lim.MaxPixels <= 0 {
		lim.MaxPixels = DefaultLimits.MaxPixels
	}
	if len(data) > lim.MaxBytes {
		return Image{}, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, len(data), lim.MaxBytes)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return Image{}, ErrFormat
		}
		return Image{}, fmt.Errorf("imagefile: reading the header: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Image{}, fmt.Errorf("imagefile: a %s image of %d×%d pixels", format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > int64(lim.MaxPixels) {
		return Image{}, fmt.Errorf("%w: %d×%d pixels, the limit is %d", ErrTooLarge, cfg.Width, cfg.Height, lim.MaxPixels)
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("imagefile: decoding the %s image: %w", format, err)
	}
	return Image{Image: img, Format: format, Hash: sha256.Sum256(data)}, nil
}
