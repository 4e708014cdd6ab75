package cuda

// ptxSource stands in for the embedded PTX of kernels.cu until ptx.go
// lands; this file is deleted then.
var ptxSource = []byte("// placeholder\n")
