package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// newGGUFCmd is replaced by the real 'saji gguf' command.
func newGGUFCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "gguf FILE",
		Short: "Describe a GGUF model file",
		Args:  cobra.ExactArgs(1),
		RunE: func(*cobra.Command, []string) error {
			return errors.New("gguf: not yet available")
		},
	}
}
