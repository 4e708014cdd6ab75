package jinja

import (
	"strings"
	"testing"
)

func TestDecodeJSON(t *testing.T) {
	v, err := DecodeJSON([]byte(` {"b": [1, 2.0, -0, 1e2, 12345678901234567890, "é", null, true], "a": {}} `))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := repr(v), `{'b': [1, 2.0, 0, 100.0, 1.2345678901234567e+19, 'é', None, True], 'a': {}}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	for _, bad := range []string{``, `{`, `{"a": 1} x`, `[1,]`, strings.Repeat("[", 2000) + strings.Repeat("]", 2000)} {
		if _, err := DecodeJSON([]byte(bad)); err == nil {
			t.Errorf("%.20q: no error", bad)
		}
	}
}
