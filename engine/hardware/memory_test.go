package hardware

import "testing"

func TestReadMemory(t *testing.T) {
	if m, err := ReadMemory(); err != nil || m.Total == 0 || m.Available > m.Total {
		t.Errorf("ReadMemory() = %+v, %v", m, err)
	}
}
