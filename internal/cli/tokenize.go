package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// newTokenizeCmd is replaced by the real 'saji tokenize' command.
func newTokenizeCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "tokenize",
		Short:  "not yet available",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("tokenize: not yet available")
		},
	}
}
