package main

import (
	"encoding/json"
	"fmt"
	"math"
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
	slurm := slurmCommand(t, cluster)
	dir := t.TempDir()
	bin := wadnBinary(t)
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
	waitDone := func(id string) { waitJob(t, slurm, id, 10*time.Minute) }
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
	got := sweepReport(t, bin, out, 2)

	local := filepath.Join(dir, "local")
	if b, err := exec.Command(bin, "sweep", file, "--local", "--jobs", "2", "--threads", "1", "--out", local, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("local sweep: %v\n%s", err, b)
	}
	want := sweepReport(t, bin, local, 2)
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
func sweepReport(t *testing.T, bin, dir string, seeds int) map[string][]float64 {
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
		if r.N != seeds {
			t.Errorf("%s %s: %d seeds", r.Method, r.Target, r.N)
		}
		out[r.Method+" "+r.Target] = r.Accuracy
	}
	return out
}

// slurmCommand returns a function running a Slurm command beside the
// cluster of scripts/slurm-local.sh in dir, failing the test if it fails.
func slurmCommand(t *testing.T, dir string) func(args ...string) string {
	return func(args ...string) string {
		t.Helper()
		out, err := exec.Command(filepath.Join(dir, "exec"), args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// waitJob waits for the job id to leave the queue (a requeued task is
// in it while it waits to start again).
func waitJob(t *testing.T, slurm func(args ...string) string, id string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if slurm("squeue", "-h", "-j", id) == "" {
			return
		}
		time.Sleep(time.Second)
	}
	t.Fatalf("job %s did not finish in %v", id, limit)
}

// TestSlurmTimeLimit submits, through a real Slurm, the job array that
// wadn sweep --emit slurm writes for a run longer than its time limit of
// two minutes: Slurm warns the task before the limit, wadn saves its run,
// the task is requeued and continues from its checkpoint, perhaps more
// than once, and the run ends with the weights, bit for bit, and the
// accuracy of the same run trained here without a break. It needs a
// cluster of scripts/slurm-local.sh (.ci/run brings one up) named by
// $WADN_SLURM.
func TestSlurmTimeLimit(t *testing.T) {
	cluster := os.Getenv(slurmEnv)
	if cluster == "" {
		t.Skip("no Slurm cluster: run scripts/slurm-local.sh start DIR as root and set " + slurmEnv + "=DIR (.ci/run does)")
	}
	slurm := slurmCommand(t, cluster)
	bin := wadnBinary(t)
	dir := t.TempDir()
	// Slurm warns a two-minute task some 80 s after its start: the run is
	// made to take 180 s, from the fastest of three epochs on one thread
	// now, so that it is warned even if the machine then runs it more
	// than twice as fast (a load that went away: at 150 s from the median
	// of the epochs, a run of 34 epochs took 58 s and ended before the
	// warning).
	epochs := int(math.Ceil(180 / epochSeconds(t, bin, dir)))
	epochs = min(max(epochs, 10), 1000)
	// A load that lifts between the calibration and the run can make the
	// run end within its first allocation, before Slurm warns it (under a
	// sweep on both cores, the calibration's epochs took 7 times those of
	// the run: 18 epochs ended in 27 s). Such an attempt tests nothing:
	// it is made again, twice at most, with twice the epochs.
	var out, local string
	var log []byte
	for attempt := 1; ; attempt++ {
		out, local, log = slurmAttempt(t, slurm, bin, filepath.Join(dir, fmt.Sprint("attempt-", attempt)), epochs)
		if strings.Contains(string(log), "interrupted; every run saved its state") || attempt == 3 {
			break
		}
		t.Logf("attempt %d: the run of %d epochs ended before Slurm warned it; again with %d", attempt, epochs, 2*epochs)
		epochs *= 2
	}
	for _, want := range []string{"interrupted; every run saved its state", "requeued to continue", "continuing from its checkpoint"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the task's log does not say %q:\n%s", want, log)
		}
	}
	runs, _ := filepath.Glob(filepath.Join(out, "amazon-kitchen-uda-wadn-seed0-*"))
	if len(runs) != 1 {
		t.Fatalf("run directories %v, want one", runs)
	}
	if _, err := os.Stat(filepath.Join(runs[0], experiment.ResultFile)); err != nil {
		t.Fatalf("the task did not finish: %v\n%s", err, log)
	}
	mine, _ := filepath.Glob(filepath.Join(local, "amazon-kitchen-uda-wadn-seed0-*"))
	if len(mine) != 1 || filepath.Base(mine[0]) != filepath.Base(runs[0]) {
		t.Fatalf("the run here is %v, through Slurm %v", mine, runs)
	}
	if b, err := exec.Command(bin, "compare", runs[0], mine[0]).CombinedOutput(); err != nil {
		t.Errorf("weights through Slurm and here differ: %v\n%s", err, b)
	}
	if got, want := sweepReport(t, bin, out, 1), sweepReport(t, bin, local, 1); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("accuracies %v through Slurm, %v here", got, want)
	}
}

// slurmAttempt submits, through slurm, the array that wadn sweep --emit
// slurm writes for a WADN run of the given epochs with a time limit of two
// minutes, and trains the same run here meanwhile, both under dir. It
// returns the array's and the local sweep's directories and the log of the
// array's task.
func slurmAttempt(t *testing.T, slurm func(...string) string, bin, dir string, epochs int) (out, local string, log []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out = filepath.Join(dir, "slurm")
	file := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(file, []byte(fmt.Sprintf(`{"dataset": "amazon", "target": "kitchen", "method": "wadn", "seeds": [0], "epochs": %d}`, epochs)), 0o644); err != nil {
		t.Fatal(err)
	}
	script, err := exec.Command(bin, "sweep", file, "--emit", "slurm", "--threads", "1", "--time", "0:02:00", "--out", out).Output()
	if err != nil {
		t.Fatal(err)
	}
	job := filepath.Join(dir, "job.sh")
	if err := os.WriteFile(job, script, 0o755); err != nil {
		t.Fatal(err)
	}
	id := slurm("sbatch", "--parsable", job)
	// The same run here, uninterrupted, meanwhile.
	local = filepath.Join(dir, "local")
	here := exec.Command(bin, "sweep", file, "--local", "--threads", "1", "--out", local, "--quiet")
	var hereOut strings.Builder
	here.Stdout, here.Stderr = &hereOut, &hereOut
	start := time.Now()
	if err := here.Start(); err != nil {
		t.Fatal(err)
	}
	waitJob(t, slurm, id, 15*time.Minute)
	t.Logf("the array, a run of %d epochs with its requeues, took %v", epochs, time.Since(start).Round(time.Second))
	if err := here.Wait(); err != nil {
		t.Fatalf("the run here: %v\n%s", err, hereOut.String())
	}
	log, _ = os.ReadFile(filepath.Join(out, "logs", "task-0.log"))
	return out, local, log
}

// epochSeconds returns the time of an epoch of WADN on Amazon's kitchen,
// on one thread: the fastest of three.
func epochSeconds(t *testing.T, bin, dir string) float64 {
	t.Helper()
	out := filepath.Join(dir, "calibration")
	if b, err := exec.Command(bin, "run", "--epochs", "3", "--threads", "1", "--quiet", "--out", out).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	runs, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(runs) != 1 {
		t.Fatalf("calibration runs %v", runs)
	}
	hist, err := experiment.ReadHistory(runs[0])
	if err != nil || len(hist) != 3 {
		t.Fatalf("calibration: %v, %d epochs", err, len(hist))
	}
	return min(hist[0].Seconds, hist[1].Seconds, hist[2].Seconds)
}
