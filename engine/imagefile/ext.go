package imagefile

import (
	"path/filepath"
	"slices"
	"strings"
)

// Exts are the file extensions of the pictures Decode reads, for file
// dialogs and for telling a picture from a model among opened files.
var Exts = []string{".png", ".jpg", ".jpeg", ".webp", ".gif"}

// IsPicturePath reports whether path names a picture, by its extension.
func IsPicturePath(path string) bool {
	return slices.Contains(Exts, strings.ToLower(filepath.Ext(path)))
}
