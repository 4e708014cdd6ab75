// Package units writes byte counts for people, the one way Saji does it:
// in decimal units (1 kB = 1000 bytes, 1 GB = 10⁹ bytes), as Hugging Face,
// Ollama and LM Studio show model and download sizes, so that a size in
// Saji reads the same as on the model's page. Memory is counted the same
// way: "16 GB of memory" is 16×10⁹ bytes here.
//
// Formats that other tools read (llama-bench's table, JSON numbers) keep
// their own units and do not use this package.
package units

import "strconv"

// steps are the decimal units after bytes.
var steps = []string{"kB", "MB", "GB", "TB", "PB", "EB"}

// Bytes writes n bytes with a decimal unit: one decimal below 10 of the
// unit, none from 10 ("512 B", "1.5 kB", "491 MB", "1.1 GB", "24 GB").
// Negative counts keep their sign.
func Bytes(n int64) string {
	if n < 0 {
		return "-" + Float(-float64(n))
	}
	return Float(float64(n))
}

// Float is Bytes for a fractional count, such as a rate in bytes per
// second.
func Float(v float64) string {
	if v < 0 {
		return "-" + Float(-v)
	}
	if v < 999.5 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	i := -1
	for i < len(steps)-1 && v >= 999.5 {
		v /= 1000
		i++
	}
	if v < 9.95 {
		return strconv.FormatFloat(v, 'f', 1, 64) + " " + steps[i]
	}
	return strconv.FormatFloat(v, 'f', 0, 64) + " " + steps[i]
}

// Rate writes a transfer rate in bytes per second: "21 MB/s".
func Rate(bytesPerSecond float64) string { return Float(bytesPerSecond) + "/s" }
