package atomic

import "runtime"

// isChmodUnsupported reports a system whose files ignore Unix modes.
func isChmodUnsupported() bool {
	return runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1"
}
