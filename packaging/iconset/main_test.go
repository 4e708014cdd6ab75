package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteICO(t *testing.T) {
	src := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	tests := []struct {
		name    string
		sizes   []int
		wantErr bool
	}{
		{"the shipped sizes", IcoSizes, false},
		{"one bitmap", []int{16}, false},
		{"one PNG", []int{256}, false},
		{"odd width pads the mask", []int{20}, false},
		{"too large", []int{512}, true},
		{"empty", []int{0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			err := writeICO(&b, src, tt.sizes)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			ico := b.Bytes()
			le := binary.LittleEndian
			if le.Uint16(ico[2:]) != 1 || int(le.Uint16(ico[4:])) != len(tt.sizes) {
				t.Fatalf("header % x", ico[:6])
			}
			for i, n := range tt.sizes {
				e := ico[6+16*i:]
				if w := int(e[0]); w != n%256 {
					t.Errorf("entry %d: width byte %d, want %d", i, w, n%256)
				}
				size, off := le.Uint32(e[8:]), le.Uint32(e[12:])
				if int(off+size) > len(ico) {
					t.Fatalf("entry %d runs past the file", i)
				}
				data := ico[off : off+size]
				if n == 256 {
					img, err := png.Decode(bytes.NewReader(data))
					if err != nil || img.Bounds().Dx() != 256 {
						t.Errorf("entry %d: PNG %v, %v", i, img.Bounds(), err)
					}
					continue
				}
				mask := (n + 31) / 32 * 4
				if want := 40 + 4*n*n + mask*n; len(data) != want {
					t.Errorf("entry %d: %d bytes, want %d", i, len(data), want)
				}
				if h := int(le.Uint32(data[8:])); h != 2*n {
					t.Errorf("entry %d: bitmap height %d, want %d", i, h, 2*n)
				}
			}
		})
	}
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	ico := filepath.Join(dir, "saji.ico")
	if err := run(filepath.Join(dir, "hicolor"), ico); err != nil {
		t.Fatal(err)
	}
	for _, n := range HicolorSizes {
		f, err := os.Open(filepath.Join(dir, "hicolor", fmt.Sprintf("%dx%d", n, n), "apps", AppID+".png"))
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width != n || cfg.Height != n {
			t.Errorf("%d: %dx%d, %v", n, cfg.Width, cfg.Height, err)
		}
	}
	if st, err := os.Stat(ico); err != nil || st.Size() == 0 {
		t.Errorf("ico: %v", err)
	}
	if err := run("", ""); err == nil {
		t.Error("run with nothing to do succeeded")
	}
}
