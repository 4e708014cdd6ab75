//go:build linux || windows

package offload

import (
	"testing"

	"saji/kernels/cuda"
)

func TestCUDAOptions(t *testing.T) {
	tests := []struct {
		env     map[string]string
		want    cuda.Options
		wantErr bool
	}{
		{nil, cuda.Options{}, false},
		{map[string]string{envCUDALibrary: "/usr/lib/wsl/lib/libcuda.so.1"}, cuda.Options{Library: "/usr/lib/wsl/lib/libcuda.so.1"}, false},
		{map[string]string{envCUDADevice: "1"}, cuda.Options{Ordinal: 1}, false},
		{map[string]string{envCUDADevice: "one"}, cuda.Options{}, true},
		{map[string]string{envCUDADevice: "-1"}, cuda.Options{}, true},
	}
	for _, tt := range tests {
		got, err := cudaOptions(func(k string) string { return tt.env[k] })
		if (err != nil) != tt.wantErr {
			t.Errorf("%v: error %v", tt.env, err)
			continue
		}
		if !tt.wantErr && got != tt.want {
			t.Errorf("%v: %+v, want %+v", tt.env, got, tt.want)
		}
	}
}
