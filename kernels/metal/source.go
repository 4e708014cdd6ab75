package metal

import _ "embed"

// mslSource is the Metal Shading Language source of every kernel of
// gpu.Kernels, compiled by the device at Open.
//
//go:embed kernels.metal
var mslSource string
