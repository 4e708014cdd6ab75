package cli

import (
	"errors"

	"github.com/spf13/cobra"
)

// newTemplateCmd is replaced by the real 'saji template' command.
func newTemplateCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "template",
		Short:  "not yet available",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			return errors.New("template: not yet available")
		},
	}
}
