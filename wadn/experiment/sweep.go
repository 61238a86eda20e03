package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/template"
)

// A sweep is a plan whose runs are numbered tasks, 0 to n-1 in the plan's
// order (Plan.Specs), so that a job array of a cluster can give each task
// to a process: Slurm's SLURM_ARRAY_TASK_ID, Kubernetes' Indexed Jobs'
// JOB_COMPLETION_INDEX. Every task writes its own run directory under the
// sweep's output directory, which the tasks share (a cluster's shared file
// system); a task whose run has finished is skipped, one interrupted
// continues, and two processes never train one run at once (its directory's
// lock).

// TaskEnv are the environment variables, in order, that name a process's
// task when it is not given: Slurm's array index, then Kubernetes'.
var TaskEnv = []string{"SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"}

// TaskIndex returns the task the environment names (TaskEnv), and the
// variable it came from; ok is false when none is set.
func TaskIndex(getenv func(string) string) (index int, from string, ok bool, err error) {
	for _, name := range TaskEnv {
		v := getenv(name)
		if v == "" {
			continue
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			return 0, name, false, fmt.Errorf("%s=%q is not a task index (a non-negative integer)", name, v)
		}
		return i, name, true, nil
	}
	return 0, "", false, nil
}

// Digest returns a short hash of an experiment file's bytes: a job array
// records it so that its tasks refuse a file changed since it was
// submitted, whose numbering may differ.
func Digest(file []byte) string {
	h := sha256.Sum256(file)
	return hex.EncodeToString(h[:6])
}

// Describe returns a one-line description of a task's run.
func (s *Spec) Describe() string {
	d := fmt.Sprintf("%s %s %s target %s seed %d", s.Dataset, s.Scenario, s.Method.Name, s.Target, s.Seed)
	if s.Sources != nil {
		d += " sources " + strings.Join(s.Sources, ",")
	}
	if l := s.Label(); l != "" {
		d += " [" + l + "]"
	}
	return d
}

// Emit are the settings of a job array's script.
type Emit struct {
	Program  string // the wadn executable as the nodes reach it
	File     string // the experiment file, an absolute path the nodes reach
	Digest   string // Digest of the file
	Out      string // the sweep's output directory, shared by the nodes
	DataDir  string // the data directory ("" for the embedded copy)
	Tasks    int    // the number of tasks
	Throttle int    // at most this many tasks at once (0: no limit)
	Threads  int    // the kernels' threads of a task (and its CPUs)
	// Time is Slurm's time limit of a task, in one of sbatch's forms
	// ("2:00:00", "90", "1-12"); "" for the partition's.
	Time string
	// Partition is Slurm's partition ("": the default one).
	Partition string
	// Image and Claim are Kubernetes' container image holding wadn and the
	// persistent volume claim holding the output and data directories,
	// mounted at the same paths as on the machine that emits.
	Image, Claim string
}

// MaxRequeues is how many times a Slurm task warned of its time limit is
// put back in the queue, each time continuing from the state it saved: a
// bound for a task that never gets far enough to finish.
const MaxRequeues = 50

// The Slurm script runs wadn in the background and waits for it, so that
// the batch shell can answer signals. Slurm sends USR1 to the batch shell
// alone (--signal=B:USR1@Warn) some time before the time limit; the shell
// passes it on to wadn as SIGTERM, wadn saves its run and exits 143, and
// the shell puts the task back in the queue (scontrol requeue, which
// --requeue allows), where it continues from its checkpoint with a time
// limit of its own. A task cancelled (scancel), or one that reaches its
// limit unwarned, gets SIGTERM from Slurm itself: it saves and is not
// requeued. The shell ignores SIGTERM so as to wait for wadn's saving.
var slurmScript = template.Must(template.New("slurm").Funcs(template.FuncMap{"sh": ShellQuote}).Parse(`#!/bin/bash
# A job array of {{.Tasks}} tasks, one run each, of the sweep {{.File}}
# (digest {{.Digest}}); submit with sbatch. Each task writes its run
# directory under {{.Out}}; a finished task is skipped when the array is
# submitted again, an interrupted one continues from its checkpoint.
#SBATCH --job-name=wadn-sweep-{{.Digest}}
#SBATCH --array=0-{{.Last}}{{if .Throttle}}%{{.Throttle}}{{end}}
#SBATCH --cpus-per-task={{.Threads}}
#SBATCH --output="{{.Out}}/logs/task-%a.log"
#SBATCH --open-mode=append
{{- if .Time}}
#SBATCH --time={{.Time}}
#SBATCH --requeue
#SBATCH --signal=B:USR1@{{.Warn}}
# About {{.Warn}} s before the time limit (Slurm may send it up to a minute
# earlier), Slurm sends USR1 to this script: wadn is told to stop, saves
# its run, and the task is requeued to continue from there, at most
# {{.MaxRequeues}} times. A cancelled task saves and stays cancelled.{{end}}
{{- if .Partition}}
#SBATCH --partition={{.Partition}}{{end}}
{{sh .Program}} sweep {{sh .File}} --index "$SLURM_ARRAY_TASK_ID" --digest {{.Digest}} --threads {{.Threads}} --out {{sh .Out}}{{if .DataDir}} --data {{sh .DataDir}}{{end}} &
pid=$!
warned=
trap 'warned=1; kill -TERM "$pid" 2>/dev/null' USR1
trap ':' TERM
wait "$pid"
while kill -0 "$pid" 2>/dev/null; do wait "$pid"; done
wait "$pid"
status=$?
if [ -n "$warned" ] && [ "$status" = 143 ] && [ "${SLURM_RESTART_COUNT:-0}" -lt {{.MaxRequeues}} ]; then
	echo "wadn sweep: task $SLURM_ARRAY_TASK_ID saved before its time limit; requeued to continue (restart ${SLURM_RESTART_COUNT:-0})" >&2
	scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}" && exit 0
fi
exit "$status"
`))

var k8sManifest = template.Must(template.New("k8s").Funcs(template.FuncMap{"q": yamlQuote}).Parse(`# An Indexed Job of {{.Tasks}} tasks, one run each, of the sweep {{.File}}
# (digest {{.Digest}}); apply with kubectl apply -f. Each pod reads its task
# from JOB_COMPLETION_INDEX and writes its run directory under {{.Out}} on the
# claim {{.Claim}}; a finished task is skipped when the job runs again, an
# interrupted one continues from its checkpoint.
apiVersion: batch/v1
kind: Job
metadata:
  name: wadn-sweep-{{.Digest}}
spec:
  completionMode: Indexed
  completions: {{.Tasks}}
  parallelism: {{if .Throttle}}{{.Throttle}}{{else}}{{.Tasks}}{{end}}
  backoffLimitPerIndex: 2
  maxFailedIndexes: {{.Tasks}}
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 60
      containers:
      - name: wadn
        image: {{q .Image}}
        command: [{{q .Program}}, "sweep", {{q .File}}, "--digest", "{{.Digest}}", "--threads", "{{.Threads}}", "--out", {{q .Out}}{{if .DataDir}}, "--data", {{q .DataDir}}{{end}}]
        resources:
          requests:
            cpu: "{{.Threads}}"
        volumeMounts:
        - name: shared
          mountPath: {{q .Mount}}
      volumes:
      - name: shared
        persistentVolumeClaim:
          claimName: {{q .Claim}}
`))

// WriteSlurm writes a Slurm job array script running the sweep's tasks.
// Every path is quoted for the shell; a path that sbatch's directives
// cannot hold (a double quote, '%', a line break) is refused, and so is a
// time limit sbatch would not read.
func (e *Emit) WriteSlurm(w io.Writer) error {
	if err := e.check(); err != nil {
		return err
	}
	if strings.ContainsAny(e.Out, "\"%\n\r") {
		return fmt.Errorf("output directory %q: a job array's log path cannot hold a double quote, '%%' or a line break; choose another --out", e.Out)
	}
	if strings.ContainsAny(e.Partition, " \t\n\r\"'") {
		return fmt.Errorf("partition %q: not a partition's name", e.Partition)
	}
	warn := 0
	if e.Time != "" {
		limit, err := SlurmSeconds(e.Time)
		if err != nil {
			return fmt.Errorf("time limit: %w", err)
		}
		if limit < MinTime {
			return fmt.Errorf("time limit %s: under %d minutes, which Slurm, warning at a minute's resolution, cannot warn a task of before its end; give at least %d:00", e.Time, MinTime/60, MinTime/60)
		}
		warn = WarnBefore(limit)
	}
	return slurmScript.Execute(w, struct {
		*Emit
		Last, Warn, MaxRequeues int
	}{e, e.Tasks - 1, warn, MaxRequeues})
}

// MinTime is the shortest time limit of a Slurm task, in seconds.
const MinTime = 120

// WarnBefore is how many seconds before a task's time limit of limit
// seconds Slurm is asked to warn it: a minute, and a quarter of the limit
// for limits under four minutes, which Slurm's minute of resolution would
// otherwise warn at their start (30 s for 2 minutes: Slurm warns about 40
// s before the limit then).
func WarnBefore(limit int) int { return max(min(60, limit/4), 1) }

// SlurmSeconds reads a time limit as sbatch's --time does: "minutes",
// "minutes:seconds", "hours:minutes:seconds", "days-hours",
// "days-hours:minutes" or "days-hours:minutes:seconds", and returns it in
// seconds. "0", "infinite" and "unlimited", which set no limit, are
// refused: then leave --time out.
func SlurmSeconds(s string) (int, error) {
	bad := func() (int, error) {
		return 0, fmt.Errorf("%q is not a time limit of sbatch (minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes or days-hours:minutes:seconds)", s)
	}
	days, rest, hasDays := strings.Cut(s, "-")
	if !hasDays {
		days, rest = "0", s
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return bad()
	}
	var n []int
	for _, p := range append([]string{days}, parts...) {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || len(p) > 6 {
			return bad()
		}
		n = append(n, v)
	}
	secs := n[0] * 86400
	switch n = n[1:]; {
	case hasDays: // days-hours[:minutes[:seconds]]
		for i, v := range n {
			secs += v * []int{3600, 60, 1}[i]
		}
	case len(n) == 1: // minutes
		secs += n[0] * 60
	case len(n) == 2: // minutes:seconds
		secs += n[0]*60 + n[1]
	default: // hours:minutes:seconds
		secs += n[0]*3600 + n[1]*60 + n[2]
	}
	if secs <= 0 {
		return 0, fmt.Errorf("%q sets no time limit: leave --time out for the partition's", s)
	}
	return secs, nil
}

// ShellQuote quotes s for a POSIX shell: in single quotes, each single
// quote written as '\”. A word of letters, digits and the characters
// "-_./:=@%+," alone is left as it is.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// yamlQuote writes s as a double-quoted YAML scalar (JSON's string form,
// which YAML reads alike).
func yamlQuote(s string) string {
	b, _ := json.Marshal(s) // a string always marshals
	return string(b)
}

// WriteK8s writes a Kubernetes Indexed Job manifest running the sweep's
// tasks; the claim is mounted at the longest directory the output
// directory, the data directory and the file share. It refuses to mount
// the claim over the root or a system directory (SystemDir), which would
// hide the container's own files: the three paths must share a directory
// of their own.
func (e *Emit) WriteK8s(w io.Writer) error {
	if err := e.check(); err != nil {
		return err
	}
	if e.Image == "" || e.Claim == "" {
		return fmt.Errorf("a Kubernetes job needs the container image and the volume claim")
	}
	paths := []string{e.Out, filepath.Dir(e.File)}
	if e.DataDir != "" {
		paths = append(paths, e.DataDir)
	}
	mount := commonDir(paths)
	if SystemDir(mount) {
		named := "the output directory " + e.Out + ", the experiment file's directory " + filepath.Dir(e.File)
		if e.DataDir != "" {
			named += " and the data directory " + e.DataDir
		}
		return fmt.Errorf("%s share only %s, over which the claim would be mounted, hiding the container's own files: put them under one directory of their own (--out, --data, or the file's place)", named, mount)
	}
	return k8sManifest.Execute(w, struct {
		*Emit
		Mount string
	}{e, mount})
}

// SystemDir reports whether mounting a volume at the absolute path dir
// would hide a container's system files: the root; a directory, at any
// depth, of those the system keeps its files in (/bin, /boot, /dev, /etc,
// /lib and its kin, /proc, /sbin, /sys, /usr); or /root, /run, /tmp or
// /var themselves, though not a directory below them.
func SystemDir(dir string) bool {
	dir = filepath.Clean(dir)
	top, below, _ := strings.Cut(strings.TrimPrefix(dir, "/"), "/")
	switch top {
	case "", "bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr":
		return true
	case "root", "run", "tmp", "var":
		return below == ""
	}
	return false
}

func (e *Emit) check() error {
	for _, p := range []string{e.File, e.Out} {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%q is not an absolute path: the nodes must reach it", p)
		}
	}
	if e.Tasks < 1 || e.Threads < 1 || e.Throttle < 0 {
		return fmt.Errorf("tasks %d, threads %d, throttle %d: want at least one task and one thread", e.Tasks, e.Threads, e.Throttle)
	}
	return nil
}

// commonDir returns the longest directory that holds every path.
func commonDir(paths []string) string {
	dir := paths[0]
	for _, p := range paths[1:] {
		for !strings.HasPrefix(p+"/", strings.TrimSuffix(dir, "/")+"/") {
			i := strings.LastIndex(strings.TrimSuffix(dir, "/"), "/")
			if i <= 0 {
				return "/"
			}
			dir = dir[:i]
		}
	}
	return dir
}
