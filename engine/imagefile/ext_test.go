package imagefile

import "testing"

func TestIsPicturePath(t *testing.T) {
	for path, want := range map[string]bool{
		"a.png": true, "/x/b.JPG": true, "c.jpeg": true, "d.webp": true, "e.Gif": true,
		"model.gguf": false, "png": false, "f.png.txt": false, "": false,
	} {
		if got := IsPicturePath(path); got != want {
			t.Errorf("%q: %v, want %v", path, got, want)
		}
	}
}
