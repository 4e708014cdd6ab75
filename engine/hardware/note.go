package hardware

import "strings"

// noteOf is an error's text as a note for a person: without the package
// prefix.
func noteOf(err error) string {
	return strings.TrimPrefix(err.Error(), "hardware: ")
}
