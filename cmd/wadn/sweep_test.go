package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wadn-go/wadn/internal/datadir"
)

// writeSweep writes a 4-task sweep of quick Amazon runs to a file in dir.
func writeSweep(t *testing.T, dir string) string {
	t.Helper()
	file := filepath.Join(dir, "sweep.json")
	sweep := `{"method": ["source", "dann"], "seeds": [0, 1], "train-size": 200, "test-size": 100,
		"hidden": [32, 16, 8], "epochs": 1, "mu": [0.01], "out": "` + filepath.Join(dir, "out") + `"}`
	if err := os.WriteFile(file, []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestSweepListAndEmit(t *testing.T) {
	t.Setenv(datadir.Env, "") // Amazon's embedded copy: no data directory to mount
	dir := t.TempDir()
	file := writeSweep(t, dir)
	code, stdout, errOut := runArgs(t, "", "sweep", file, "--list")
	if code != 0 || strings.Count(stdout, "\n") != 4 || !strings.Contains(stdout, "3\tamazon uda dann target kitchen seed 1") || !strings.Contains(errOut, "4 tasks") {
		t.Fatalf("--list: exit %d\n%s%s", code, stdout, errOut)
	}
	code, stdout, errOut = runArgs(t, "", "sweep", file, "--emit", "slurm", "--throttle", "2", "--time", "1:00:00", "--threads", "1")
	for _, want := range []string{"#SBATCH --array=0-3%2", "#SBATCH --time=1:00:00", "#SBATCH --cpus-per-task=1",
		"#SBATCH --output=\"" + filepath.Join(dir, "out", "logs", "task-%a.log") + "\"", `--index "$SLURM_ARRAY_TASK_ID" --digest `,
		"#SBATCH --requeue", "#SBATCH --signal=B:USR1@60", `scontrol requeue "${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}"`} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--emit slurm: exit %d, lacks %q:\n%s%s", code, want, stdout, errOut)
		}
	}
	code, stdout, errOut = runArgs(t, "", "sweep", file, "--emit", "k8s", "--image", "wadn:1", "--claim", "shared")
	for _, want := range []string{"completionMode: Indexed", "completions: 4", `claimName: "shared"`, `image: "wadn:1"`, `"--digest"`, `mountPath: "` + dir + `"`} {
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("--emit k8s: exit %d, lacks %q:\n%s%s", code, want, stdout, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sweep", file, "--emit", "k8s"}, 2, "give --image and --claim"},
		{[]string{"sweep", file, "--emit", "pbs"}, 2, `--emit "pbs": want slurm or k8s`},
		{[]string{"sweep", file}, 2, "say what to do"},
		{[]string{"sweep", file, "--list", "--local"}, 2, "exclude one another"},
		{[]string{"sweep", file, "--status", "--store", dir}, 2, "exclude one another"},
		{[]string{"sweep", file, "--index", "4"}, 2, "task 4: the sweep has 4 tasks, 0 to 3"},
		{[]string{"sweep", file, "--index", "0", "--digest", "000000000000"}, 1, "not the 000000000000 it had"},
		{[]string{"sweep", filepath.Join(dir, "none.json"), "--list"}, 2, "no such file"},
		{[]string{"sweep"}, 2, "want one experiment FILE"},
	} {
		code, _, errOut := runArgs(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args[1:], code, errOut, tc.code, tc.want)
		}
	}
}

// TestSweepTasks runs the tasks one by one as a job array does, one from
// $SLURM_ARRAY_TASK_ID and one from $JOB_COMPLETION_INDEX, the rest here,
// and checks that a finished task is skipped.
func TestSweepTasks(t *testing.T) {
	dir := t.TempDir()
	file := writeSweep(t, dir)
	status := func(wantLines, wantSummary string) {
		t.Helper()
		code, stdout, errOut := runArgs(t, "", "sweep", file, "--status")
		if code != 0 || !strings.Contains(errOut, wantSummary) {
			t.Errorf("--status: exit %d, stderr %q, want %q", code, errOut, wantSummary)
		}
		var states []string
		for _, l := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			f := strings.Split(l, "\t")
			states = append(states, strings.SplitN(f[len(f)-1], ":", 2)[0])
		}
		if got := strings.Join(states, ","); got != wantLines {
			t.Errorf("--status: states %s, want %s\n%s", got, wantLines, stdout)
		}
	}
	status("not started,not started,not started,not started", "4 tasks under "+filepath.Join(dir, "out")+": 0 finished, 0 started, 4 not started; not finished: 0-3\n")
	t.Setenv("SLURM_ARRAY_TASK_ID", "2")
	if code, _, errOut := runArgs(t, "", "sweep", file, "--quiet"); code != 0 || !strings.Contains(errOut, "task 2 from $SLURM_ARRAY_TASK_ID") {
		t.Fatalf("task from Slurm: exit %d: %s", code, errOut)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "")
	t.Setenv("JOB_COMPLETION_INDEX", "0")
	if code, _, errOut := runArgs(t, "", "sweep", file, "--quiet"); code != 0 || !strings.Contains(errOut, "task 0 from $JOB_COMPLETION_INDEX") {
		t.Fatalf("task from Kubernetes: exit %d: %s", code, errOut)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "x")
	if code, _, errOut := runArgs(t, "", "sweep", file, "--quiet"); code != 2 || !strings.Contains(errOut, `JOB_COMPLETION_INDEX="x"`) {
		t.Errorf("a bad index: exit %d: %s", code, errOut)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "")
	status("finished,not started,finished,not started", "2 finished, 0 started, 2 not started; not finished: 1,3\n")
	code, _, errOut := runArgs(t, "", "sweep", file, "--local", "--jobs", "2", "--quiet")
	if code != 0 || strings.Count(errOut, "finished earlier") != 2 || strings.Count(errOut, "starting in") != 2 {
		t.Fatalf("--local: exit %d: %s", code, errOut)
	}
	status("finished,finished,finished,finished", "4 finished, 0 started, 0 not started\n")
	code, stdout, _ := runArgs(t, "", "report", "--json", filepath.Join(dir, "out"))
	if code != 0 || strings.Count(stdout, `"n": 2`) != 2 {
		t.Errorf("report: exit %d\n%s", code, stdout)
	}
	// --store copies the finished runs' small files, once; the report of
	// the copies is the report of the runs.
	stored := filepath.Join(dir, "results")
	code, stdout, errOut = runArgs(t, "", "sweep", file, "--store", stored)
	if code != 0 || strings.Count(stdout, "\tstored: ") != 4 || !strings.Contains(errOut, "4 finished; 4 stored under "+stored+" now, 0 there already\n") {
		t.Errorf("--store: exit %d, stderr %q\n%s", code, errOut, stdout)
	}
	code, stdout, errOut = runArgs(t, "", "sweep", file, "--store", stored)
	if code != 0 || stdout != "" || !strings.Contains(errOut, "4 finished; 0 stored under "+stored+" now, 4 there already\n") {
		t.Errorf("--store again: exit %d, stderr %q\n%s", code, errOut, stdout)
	}
	if weights, _ := filepath.Glob(filepath.Join(stored, "*", "model.wadn")); len(weights) != 0 {
		t.Errorf("--store copied the weights: %v", weights)
	}
	results, err := filepath.Glob(filepath.Join(stored, "*", "result.json"))
	if err != nil || len(results) != 4 {
		t.Fatalf("stored results %v, %v; want 4", results, err)
	}
	if err := os.WriteFile(results[0], []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runArgs(t, "", "sweep", file, "--store", stored)
	if code != 1 || !strings.Contains(errOut, results[0]+" holds another result.json") || !strings.Contains(errOut, "0 stored under "+stored+" now, 3 there already, 1 not stored\n") {
		t.Errorf("--store over a changed copy: exit %d, stderr %q", code, errOut)
	}
	if err := os.Remove(results[0]); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(filepath.Dir(results[0]), "run.json")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut = runArgs(t, "", "sweep", file, "--store", stored); code != 0 || !strings.Contains(errOut, "1 stored under "+stored+" now, 3 there already\n") {
		t.Errorf("--store over a copy without its record and result: exit %d, stderr %q", code, errOut)
	}
	_, fromRuns, _ := runArgs(t, "", "report", "--json", filepath.Join(dir, "out"))
	_, fromStored, _ := runArgs(t, "", "report", "--json", stored)
	if strings.ReplaceAll(fromStored, stored, filepath.Join(dir, "out")) != fromRuns {
		t.Errorf("the report of the stored runs differs from the runs':\n%s\n%s", fromStored, fromRuns)
	}
	// A directory that has lost its record is one that running its task
	// refuses: --status says which and fails after listing every task.
	runs, err := filepath.Glob(filepath.Join(dir, "out", "*", "run.json"))
	if err != nil || len(runs) != 4 {
		t.Fatalf("run records %v, %v; want 4", runs, err)
	}
	if err := os.Remove(runs[0]); err != nil {
		t.Fatal(err)
	}
	code, stdout, errOut = runArgs(t, "", "sweep", file, "--status")
	if code != 1 || strings.Count(stdout, "\trefused: "+filepath.Dir(runs[0])+" holds ") != 1 || strings.Count(stdout, "\tfinished: ") != 3 ||
		!strings.Contains(errOut, "3 finished, 0 started, 0 not started, 1 refused; not finished: ") || !strings.Contains(errOut, "1 of the tasks' directories would be refused") {
		t.Errorf("--status with a record removed: exit %d, stderr %q\n%s", code, errOut, stdout)
	}
}

func TestIndexRanges(t *testing.T) {
	for _, tc := range []struct {
		ix   []int
		want string
	}{
		{nil, ""},
		{[]int{4}, "4"},
		{[]int{0, 1}, "0-1"},
		{[]int{0, 2, 5, 6, 7, 8, 10, 11, 13}, "0,2,5-8,10-11,13"},
	} {
		if got := indexRanges(tc.ix); got != tc.want {
			t.Errorf("indexRanges(%v) = %q, want %q", tc.ix, got, tc.want)
		}
	}
}

// TestSweepRefusesHugeGrid: a grid of 10^6 runs is refused at once,
// naming the limit, rather than listed for minutes.
func TestSweepRefusesHugeGrid(t *testing.T) {
	file := filepath.Join(t.TempDir(), "huge.json")
	ten := "[1,2,3,4,5,6,7,8,9,10]"
	grid := fmt.Sprintf(`{"seeds": [0,1,2,3,4,5,6,7,8,9], "lr": %s, "c0": %s, "c2": %s, "gp": %s, "centroid-keep": [0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9]}`, ten, ten, ten, ten)
	if err := os.WriteFile(file, []byte(grid), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, stderr := runArgs(t, "", "sweep", file, "--list")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	if code != 2 || stdout != "" || !strings.Contains(stderr, "more than 10000 runs (the most a plan may have)") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want 2, none and the limit", code, len(stdout), stderr)
	}
}

// TestSweepEmitChecks: --emit refuses what would fail on every node or
// hide the container's files: a program in go run's build cache, a k8s
// mount over the root when the paths share only it, a bad time limit.
func TestSweepEmitChecks(t *testing.T) {
	for path, want := range map[string]bool{
		"/tmp/go-build3381/b001/exe/wadn": true, "/root/.cache/go-build/x/exe/wadn": true,
		"/usr/local/bin/wadn": false, "/home/me/go/bin/wadn": false, "/srv/exe/wadn": false,
	} {
		if fromBuildCache(path) != want {
			t.Errorf("fromBuildCache(%s) = %v", path, !want)
		}
	}
	dir := t.TempDir()
	file := writeSweep(t, dir)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--emit", "k8s", "--image", "reg/wadn:1", "--claim", "pvc", "--out", "/srv/runs"}, "share only /, over which the claim would be mounted"},
		{[]string{"--emit", "slurm", "--program", "/opt/wadn", "--time", "soon"}, `--emit slurm: time limit: "soon" is not a time limit`},
		{[]string{"--emit", "slurm", "--program", "/opt/wadn", "--out", filepath.Join(dir, "100%")}, "cannot hold a double quote, '%' or a line break"},
	} {
		code, stdout, stderr := runArgs(t, "", append([]string{"sweep", file}, tc.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2, nothing and %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
}
