package app

import (
	"errors"
	"testing"
)

func TestCheckDisplay(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		want error
	}{
		{"linux", nil, errNoDisplay},
		{"linux", map[string]string{"DISPLAY": ":0"}, nil},
		{"linux", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, nil},
		{"freebsd", nil, errNoDisplay},
		{"darwin", nil, nil},
		{"windows", nil, nil},
	}
	for _, tt := range tests {
		err := checkDisplay(tt.goos, func(k string) string { return tt.env[k] })
		if !errors.Is(err, tt.want) {
			t.Errorf("%s %v: %v, want %v", tt.goos, tt.env, err, tt.want)
		}
	}
}
