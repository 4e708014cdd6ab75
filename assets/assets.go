// Package assets holds Saji's static resources (the app icon), embedded in
// the binary. It ships no model weights.
package assets

import _ "embed"

// Icon is the app icon, a 512x512 PNG: a steaming bowl ("saji" means "to
// serve") on an orange-to-pink rounded square.
//
//go:embed icon.png
var Icon []byte
