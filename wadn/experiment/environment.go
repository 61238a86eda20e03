package experiment

import (
	"os"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/numerics"
)

// Environment records where and with what a run (or a part of it) was
// trained. Only the process that finished the run has Finished. One that
// caught an interruption has Interrupted; one that was killed or failed has
// neither, and the next environment's FromEpoch says how far it got. Result
// files written before these two fields became optional give an unfinished
// part's Finished as 0001-01-01T00:00:00Z.
type Environment struct {
	Module   string    `json:"module"`   // the main module's path and version
	Revision string    `json:"revision"` // the VCS revision it was built from, "+dirty" if modified
	Go       string    `json:"go"`       // the Go version it was built with
	Platform string    `json:"platform"` // GOOS/GOARCH
	Kernels  string    `json:"kernels"`  // the float32 kernels: avx512, avx2 or go
	Threads  int       `json:"threads"`  // the kernels' worker threads
	Numerics string    `json:"numerics"` // the numerics mode: default or reference
	Host     string    `json:"host"`
	Started  time.Time `json:"started"`
	// Finished is when this process finished the run; nil if it did not.
	Finished *time.Time `json:"finished,omitempty"`
	// Interrupted is when this process stopped on an interruption it caught
	// (a signal or a cancelled context), after saving its checkpoint; nil
	// otherwise.
	Interrupted *time.Time `json:"interrupted,omitempty"`
	FromEpoch   int        `json:"from_epoch"` // epochs done before this process took over
}

// environment returns this process's environment, started now.
func environment() Environment {
	e := Environment{Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		Kernels: kernel.Impl(), Threads: kernel.Threads(), Numerics: numerics.Get().String(), Started: time.Now().UTC()}
	e.Host, _ = os.Hostname()
	if bi, ok := debug.ReadBuildInfo(); ok {
		e.Module = bi.Main.Path + "@" + bi.Main.Version
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		e.Revision = rev + dirty
	}
	return e
}
