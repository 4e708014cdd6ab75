package app

// Number fields of the settings and preset forms: blank means "use the
// default", anything else must be a number in range.

import (
	"fmt"
	"strconv"
	"strings"
)

// formatFloat writes an optional number ("" for nil).
func formatFloat(x *float32) string {
	if x == nil {
		return ""
	}
	return strconv.FormatFloat(float64(*x), 'g', -1, 32)
}

// formatInt writes a count ("" for zero, unset).
func formatInt(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// parseFloat reads an optional number (nil for blank); the text has been
// checked.
func parseFloat(s string) *float32 {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	x, err := strconv.ParseFloat(s, 32)
	if err != nil {
		return nil
	}
	f := float32(x)
	return &f
}

// parseInt reads an optional count (0 for blank); the text has been
// checked.
func parseInt(s string) int {
	n, _ := strconv.Atoi(strings.TrimSpace(s))
	return n
}

// formError is a form field's error, a sentence shown under the field.
type formError string

func (e formError) Error() string { return string(e) }

// checkFloat accepts blank or a number from lo to hi.
func checkFloat(lo, hi float64) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < lo || x > hi {
			return formError(fmt.Sprintf("Enter a number from %g to %g, or leave it blank.", lo, hi))
		}
		return nil
	}
}

// checkInt accepts blank or a whole number from lo to hi.
func checkInt(lo, hi int) func(string) error {
	return func(s string) error {
		s = strings.TrimSpace(s)
		if s == "" {
			return nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return formError(fmt.Sprintf("Enter a whole number from %s to %s, or leave it blank.", groupDigits(int64(lo)), groupDigits(int64(hi))))
		}
		return nil
	}
}

// valueOf returns *f, or 0 for nil (unset).
func valueOf(f *float32) float32 {
	if f == nil {
		return 0
	}
	return *f
}
