package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/trainer"
)

// slurmEnv names the directory of a running cluster of
// scripts/slurm-local.sh, whose exec runs Slurm's commands.
const slurmEnv = "WADN_SLURM"

// TestSlurmSweep runs a 16-task Amazon sweep (4 targets x 2 methods x 2
// seeds, 2 epochs) as a job array through a real Slurm, cancels one task
// mid-way, submits the array again, and checks that the sweep finishes with
// the results of the same sweep run here. It needs a cluster of
// scripts/slurm-local.sh (.ci/run brings one up) named by $WADN_SLURM.
func TestSlurmSweep(t *testing.T) {
	cluster := os.Getenv(slurmEnv)
	if cluster == "" {
		t.Skip("no Slurm cluster: run scripts/slurm-local.sh start DIR as root and set " + slurmEnv + "=DIR (.ci/run does)")
	}
	slurm := func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(cluster, "exec"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "wadn")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "slurm")
	file := filepath.Join(dir, "sweep.json")
	sweep := fmt.Sprintf(`{"dataset": "amazon", "target": ["books", "dvd", "electronics", "kitchen"], "method": ["wadn", "source"],
		"seeds": [0, 1], "epochs": 2, "out": %q}`, out)
	if err := os.WriteFile(file, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := exec.Command(bin, "sweep", file, "--emit", "slurm", "--threads", "1", "--throttle", "2").Output()
	if err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(job, script, 0o755); err != nil {
		t.Fatal(err)
	}
	// The task to cancel: the first wadn run on kitchen (the 7th task).
	const victim = 6
	tasks, err := exec.Command(bin, "sweep", file, "--list").Output()
	if err != nil || !strings.Contains(string(tasks), fmt.Sprintf("%d\tamazon uda wadn target kitchen seed 0", victim)) {
		t.Fatalf("tasks %q (%v)", tasks, err)
	}
	waitDone := func(id string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Minute)
		for time.Now().Before(deadline) {
			if slurm("squeue", "-h", "-j", id) == "" {
				return
			}
			time.Sleep(time.Second)
		}
		t.Fatalf("job %s did not finish in 10 minutes", id)
	}
	id := slurm("sbatch", "--parsable", job)
	// Cancel the victim once it has saved a checkpoint: its first epoch is
	// done, its second not.
	var victimDir string
	deadline := time.Now().Add(5 * time.Minute)
	for victimDir == "" && time.Now().Before(deadline) {
		m, _ := filepath.Glob(filepath.Join(out, "amazon-kitchen-uda-wadn-seed0-*", trainer.CheckpointFile))
		if len(m) == 1 {
			victimDir = filepath.Dir(m[0])
			slurm("scancel", fmt.Sprintf("%s_%d", id, victim))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if victimDir == "" {
		t.Fatal("the task to cancel never saved a checkpoint")
	}
	waitDone(id)
	if _, err := os.Stat(filepath.Join(victimDir, experiment.ResultFile)); err == nil {
		t.Skip("the task finished before it was cancelled; nothing was interrupted")
	}
	log, _ := os.ReadFile(filepath.Join(out, "logs", fmt.Sprintf("task-%d.log", victim)))
	if !strings.Contains(string(log), "interrupted") {
		t.Errorf("the cancelled task's log does not say it was interrupted:\n%s", log)
	}
	// Again: the finished tasks are skipped, the cancelled one continues.
	waitDone(slurm("sbatch", "--parsable", job))
	log, _ = os.ReadFile(filepath.Join(out, "logs", fmt.Sprintf("task-%d.log", victim)))
	if !strings.Contains(string(log), "continuing from its checkpoint") {
		t.Errorf("the cancelled task did not continue from its checkpoint:\n%s", log)
	}
	got := sweepReport(t, bin, out)

	local := filepath.Join(dir, "local")
	if b, err := exec.Command(bin, "sweep", file, "--local", "--jobs", "2", "--threads", "1", "--out", local, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("local sweep: %v\n%s", err, b)
	}
	want := sweepReport(t, bin, local)
	if len(got) != 8 || len(want) != 8 {
		t.Fatalf("%d rows through Slurm, %d here; want 8", len(got), len(want))
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || fmt.Sprint(g) != fmt.Sprint(w) {
			t.Errorf("%s: accuracies %v through Slurm, %v here", k, g, w)
		}
	}
}

// sweepReport returns the accuracies per seed of each row of wadn report
// --json on dir, by method and target.
func sweepReport(t *testing.T, bin, dir string) map[string][]float64 {
	t.Helper()
	b, err := exec.Command(bin, "report", "--json", dir).Output()
	if err != nil {
		t.Fatalf("report %s: %v", dir, err)
	}
	var rep struct{ Rows []experiment.Row }
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for _, r := range rep.Rows {
		if r.N != 2 {
			t.Errorf("%s %s: %d seeds", r.Method, r.Target, r.N)
		}
		out[r.Method+" "+r.Target] = r.Accuracy
	}
	return out
}
