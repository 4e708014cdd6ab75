package hardware

import (
	"os"
	"path/filepath"
	"strings"
)

// physicalCores counts the distinct (package, core) pairs of the online
// CPUs in sysfs, or returns 0 when sysfs does not say.
func physicalCores() int {
	dirs, err := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology")
	if err != nil || len(dirs) == 0 {
		return 0
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		pkg, err1 := os.ReadFile(filepath.Join(d, "physical_package_id"))
		core, err2 := os.ReadFile(filepath.Join(d, "core_id"))
		if err1 != nil || err2 != nil {
			return 0
		}
		seen[strings.TrimSpace(string(pkg))+"/"+strings.TrimSpace(string(core))] = true
	}
	return len(seen)
}
