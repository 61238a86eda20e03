package experiment

import (
	"crypto/sha256"
	"encoding/hex"
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
	Time     string // Slurm's time limit of a task, e.g. "2:00:00" ("": the partition's)
	// Partition is Slurm's partition ("": the default one).
	Partition string
	// Image and Claim are Kubernetes' container image holding wadn and the
	// persistent volume claim holding the output and data directories,
	// mounted at the same paths as on the machine that emits.
	Image, Claim string
}

var slurmScript = template.Must(template.New("slurm").Parse(`#!/bin/bash
# A job array of {{.Tasks}} tasks, one run each, of the sweep {{.File}}
# (digest {{.Digest}}); submit with sbatch. Each task writes its run
# directory under {{.Out}}; a finished task is skipped when the array is
# submitted again, an interrupted one continues from its checkpoint.
#SBATCH --job-name=wadn-sweep-{{.Digest}}
#SBATCH --array=0-{{.Last}}{{if .Throttle}}%{{.Throttle}}{{end}}
#SBATCH --cpus-per-task={{.Threads}}
#SBATCH --output={{.Out}}/logs/task-%a.log
#SBATCH --open-mode=append
{{- if .Time}}
#SBATCH --time={{.Time}}{{end}}
{{- if .Partition}}
#SBATCH --partition={{.Partition}}{{end}}
#SBATCH --signal=TERM@60
exec {{.Program}} sweep {{.File}} --index "$SLURM_ARRAY_TASK_ID" --digest {{.Digest}} --threads {{.Threads}} --out {{.Out}}{{if .DataDir}} --data {{.DataDir}}{{end}}
`))

var k8sManifest = template.Must(template.New("k8s").Parse(`# An Indexed Job of {{.Tasks}} tasks, one run each, of the sweep {{.File}}
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
        image: {{.Image}}
        command: ["{{.Program}}", "sweep", "{{.File}}", "--digest", "{{.Digest}}", "--threads", "{{.Threads}}", "--out", "{{.Out}}"{{if .DataDir}}, "--data", "{{.DataDir}}"{{end}}]
        resources:
          requests:
            cpu: "{{.Threads}}"
        volumeMounts:
        - name: shared
          mountPath: {{.Mount}}
      volumes:
      - name: shared
        persistentVolumeClaim:
          claimName: {{.Claim}}
`))

// WriteSlurm writes a Slurm job array script running the sweep's tasks.
func (e *Emit) WriteSlurm(w io.Writer) error {
	if err := e.check(); err != nil {
		return err
	}
	return slurmScript.Execute(w, struct {
		*Emit
		Last int
	}{e, e.Tasks - 1})
}

// WriteK8s writes a Kubernetes Indexed Job manifest running the sweep's
// tasks; the claim is mounted at the longest directory the output
// directory, the data directory and the file share.
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
	return k8sManifest.Execute(w, struct {
		*Emit
		Mount string
	}{e, commonDir(paths)})
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
