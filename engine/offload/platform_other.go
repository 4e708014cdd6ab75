//go:build !linux && !windows && !darwin

package offload

// platform has no GPU: Saji has no GPU backend on this system.
func platform() Platform { return Platform{} }
