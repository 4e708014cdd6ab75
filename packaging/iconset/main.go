// Command iconset writes the app icon (assets.Icon, 512x512) at the sizes
// the installers need: a freedesktop hicolor tree of PNGs for the .deb and
// the ~/.local install, and a Windows .ico for the executable's resources
// and the NSIS installer.
//
// Usage:
//
//	go run ./packaging/iconset [-hicolor DIR] [-ico FILE.ico]
//
// DIR receives DIR/NxN/apps/io.saji.Saji.png for each of HicolorSizes.
package main

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"

	"saji/assets"
)

// AppID names the icon files, as the desktop entry's Icon= key does.
const AppID = "io.saji.Saji"

// HicolorSizes are the hicolor theme's standard application icon sizes.
var HicolorSizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

// IcoSizes are the images of the .ico: Explorer's small, medium and large
// views and the Start menu's tiles (256 is stored as PNG, the others as
// bitmaps, which every Windows and NSIS reads).
var IcoSizes = []int{16, 24, 32, 48, 64, 256}

func main() {
	hicolor := flag.String("hicolor", "", "write the hicolor PNGs under this directory")
	ico := flag.String("ico", "", "write the Windows icon to this file")
	flag.Parse()
	if err := run(*hicolor, *ico); err != nil {
		fmt.Fprintln(os.Stderr, "iconset:", err)
		os.Exit(1)
	}
}

// run decodes the app icon and writes what the flags ask for.
func run(hicolor, ico string) error {
	if hicolor == "" && ico == "" {
		return errors.New("nothing to do: give -hicolor DIR or -ico FILE")
	}
	src, err := png.Decode(bytes.NewReader(assets.Icon))
	if err != nil {
		return fmt.Errorf("iconset: decode the app icon: %w", err)
	}
	if hicolor != "" {
		if err := writeHicolor(hicolor, src); err != nil {
			return err
		}
	}
	if ico != "" {
		f, err := os.Create(ico)
		if err != nil {
			return fmt.Errorf("iconset: %w", err)
		}
		if err := writeICO(f, src, IcoSizes); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("iconset: %w", err)
		}
	}
	return nil
}

// scale returns src resampled to n x n pixels.
func scale(src image.Image, n int) *image.NRGBA {
	dst := image.NewNRGBA(image.Rect(0, 0, n, n))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	return dst
}

// writeHicolor writes dir/NxN/apps/AppID.png for each of HicolorSizes.
func writeHicolor(dir string, src image.Image) error {
	for _, n := range HicolorSizes {
		p := filepath.Join(dir, fmt.Sprintf("%dx%d", n, n), "apps", AppID+".png")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("iconset: %w", err)
		}
		var b bytes.Buffer
		if err := png.Encode(&b, scale(src, n)); err != nil {
			return fmt.Errorf("iconset: encode %dx%d: %w", n, n, err)
		}
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("iconset: %w", err)
		}
	}
	return nil
}

// writeICO writes an .ico holding src at each of sizes (at most 256): a
// header, one directory entry per image, then the images, 256 as a PNG and
// the smaller ones as 32-bit bitmaps with their AND masks.
func writeICO(w io.Writer, src image.Image, sizes []int) error {
	var images [][]byte
	for _, n := range sizes {
		if n < 1 || n > 256 {
			return fmt.Errorf("iconset: an .ico image is 1 to 256 pixels wide, not %d", n)
		}
		img := scale(src, n)
		if n == 256 {
			var b bytes.Buffer
			if err := png.Encode(&b, img); err != nil {
				return fmt.Errorf("iconset: encode %dx%d: %w", n, n, err)
			}
			images = append(images, b.Bytes())
			continue
		}
		images = append(images, icoBitmap(img))
	}
	var b bytes.Buffer
	le := binary.LittleEndian
	b.Write(le.AppendUint16(nil, 0)) // reserved
	b.Write(le.AppendUint16(nil, 1)) // type: icon
	b.Write(le.AppendUint16(nil, uint16(len(sizes))))
	offset := 6 + 16*len(sizes)
	for i, n := range sizes {
		dim := byte(n) // 256 is written as 0
		b.Write([]byte{dim, dim, 0, 0})
		b.Write(le.AppendUint16(nil, 1))  // colour planes
		b.Write(le.AppendUint16(nil, 32)) // bits per pixel
		b.Write(le.AppendUint32(nil, uint32(len(images[i]))))
		b.Write(le.AppendUint32(nil, uint32(offset)))
		offset += len(images[i])
	}
	for _, im := range images {
		b.Write(im)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("iconset: %w", err)
	}
	return nil
}

// icoBitmap encodes img as an .ico bitmap: a BITMAPINFOHEADER whose height
// counts the colour rows and the mask's, the BGRA rows bottom-up, then the
// AND mask (all zero: the alpha channel decides), rows padded to 4 bytes.
func icoBitmap(img *image.NRGBA) []byte {
	n := img.Bounds().Dx()
	maskRow := (n + 31) / 32 * 4
	le := binary.LittleEndian
	b := make([]byte, 0, 40+4*n*n+maskRow*n)
	b = le.AppendUint32(b, 40)
	b = le.AppendUint32(b, uint32(n))
	b = le.AppendUint32(b, uint32(2*n))
	b = le.AppendUint16(b, 1)  // planes
	b = le.AppendUint16(b, 32) // bits per pixel
	b = le.AppendUint32(b, 0)  // BI_RGB
	b = le.AppendUint32(b, uint32(4*n*n+maskRow*n))
	b = append(b, make([]byte, 16)...) // resolution and palette: unused
	for y := n - 1; y >= 0; y-- {
		for x := range n {
			c := img.NRGBAAt(x, y)
			b = append(b, c.B, c.G, c.R, c.A)
		}
	}
	return append(b, make([]byte, maskRow*n)...)
}
