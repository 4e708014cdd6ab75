package cli

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"saji/engine/hardware"
)

// newHWProbeCmd is the hidden 'saji hwprobe': with --gpu it queries the GPU
// drivers in this process and prints what it found as JSON, which is how
// hardware.Detect runs the probe in a child process that a crashing driver
// can take down alone. Without --gpu it prints the whole hardware.Machine.
func newHWProbeCmd() *cobra.Command {
	var gpu, bandwidth bool
	cmd := &cobra.Command{
		Use:    "hwprobe [--gpu]",
		Short:  "Print the detected hardware as JSON (internal)",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var v any
			if gpu {
				v = hardware.ProbeGPUs(cmd.Context())
			} else {
				m, err := hardware.Detect(cmd.Context(), hardware.DetectOptions{SkipBandwidth: !bandwidth})
				if err != nil {
					return err
				}
				v = m
			}
			data, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("hwprobe: %w", err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", data)
			return err
		},
	}
	cmd.Flags().BoolVar(&gpu, "gpu", false, "query the GPU drivers in this process and print only the GPUs")
	cmd.Flags().BoolVar(&bandwidth, "bandwidth", false, "also measure the memory bandwidth (not cached)")
	return cmd
}
