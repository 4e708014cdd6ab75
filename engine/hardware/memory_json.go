package hardware

import (
	"encoding/json"
	"fmt"
)

// memoryJSON is Memory's JSON form, in the lower-case keys of the other
// hardware types.
type memoryJSON struct {
	Total     uint64 `json:"total"`
	Available uint64 `json:"available"`
}

// MarshalJSON writes the memory as {"total": ..., "available": ...}.
func (m Memory) MarshalJSON() ([]byte, error) {
	return json.Marshal(memoryJSON(m))
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *Memory) UnmarshalJSON(data []byte) error {
	var j memoryJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("hardware: reading the memory sizes: %w", err)
	}
	*m = Memory(j)
	return nil
}
