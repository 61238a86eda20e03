package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wadn-go/wadn/autodiff/kernel"
	"github.com/wadn-go/wadn/internal/datadir"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/trainer"
)

func init() {
	register(&command{
		name:    "sweep",
		summary: "run a grid of runs from an experiment file: list it, show how far its tasks got, run it here, run one task of a cluster's job array, write the job array, or copy the finished runs' small files",
		usage:   "FILE (--list | --status | --local [--jobs N] | --index I | --emit slurm|k8s | --store DIR) [--out DIR] [--data DIR] [--threads N]",
		run:     runSweep,
	})
}

func runSweep(ctx context.Context, e *env, args []string) error {
	c := commands["sweep"]
	fs := newFlagSet(c, e)
	list := fs.Bool("list", false, "print the tasks, numbered from 0, and their count")
	status := fs.Bool("status", false, "print how far each task has got in the output directory (finished and its accuracy, the epochs logged and the process its lock names, or not started) and the tasks not finished")
	local := fs.Bool("local", false, "run every task on this machine, --jobs at a time")
	jobs := fs.Int("jobs", 1, "with --local: tasks trained at once")
	index := fs.Int("index", -1, "run task I alone (default: $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX, when set)")
	emit := fs.String("emit", "", "write a job array running the tasks to stdout: slurm (an sbatch script) or k8s (an Indexed Job)")
	digest := fs.String("digest", "", "refuse FILE unless its digest is this (set by --emit, so that tasks never run a changed file)")
	out := fs.String("out", "", "the sweep's output directory, shared by its tasks (default: the file's \"out\", else runs)")
	dir := fs.String("data", "", "data directory (default: the file's \"data\", else $"+datadir.Env+")")
	threads := fs.Int("threads", 0, "worker threads of a task's kernels (0: all cores; --emit: 1)")
	wait := fs.Bool("wait", false, "wait for a run directory another process has locked, instead of failing")
	throttle := fs.Int("throttle", 0, "--emit: at most this many tasks at once (0: no limit)")
	timeLimit := fs.String("time", "", "--emit slurm: a task's time limit, e.g. 2:00:00")
	partition := fs.String("partition", "", "--emit slurm: the partition")
	image := fs.String("image", "", "--emit k8s: the container image holding wadn")
	claim := fs.String("claim", "", "--emit k8s: the persistent volume claim holding the output and data directories")
	program := fs.String("program", "", "--emit: the wadn executable as the nodes reach it (default: this one; wadn for k8s)")
	quiet := fs.Bool("quiet", false, "print no progress")
	store := fs.String("store", "", "copy every finished task's config, epoch log, result and record (not its weights) to a directory of the run's name under DIR, to be committed; a run stored already is left, one stored with other files is an error")
	arg, err := oneArgument(fs, args, e, "experiment FILE")
	if err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(e.stderr, "wadn sweep: "+format+"\n", a...)
		return errUsage
	}
	file, err := filepath.Abs(arg)
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return usage("%v", err)
	}
	if *digest != "" && experiment.Digest(raw) != *digest {
		return fmt.Errorf("%s has digest %s, not the %s it had when its job array was made: its tasks may be numbered otherwise; make the array again", file, experiment.Digest(raw), *digest)
	}
	plan, err := experiment.ReadPlan(bytes.NewReader(raw))
	if err != nil {
		return usage("%s: %v", file, err)
	}
	specs, err := plan.Specs()
	if err != nil {
		return usage("%s: %v", file, flagNames(err))
	}
	for i, s := range specs {
		if err := s.Validate(); err != nil {
			return usage("%s: task %d (%s): %v", file, i, s.Describe(), flagNames(err))
		}
	}
	if *out == "" {
		*out = plan.Out
	}
	if *out == "" {
		*out = "runs"
	}
	if *dir == "" {
		*dir = plan.DataDir
	}
	if *dir == "" {
		*dir = os.Getenv(datadir.Env)
	}
	modes := 0
	for _, m := range []bool{*list, *status, *local, *index >= 0, *emit != "", *store != ""} {
		if m {
			modes++
		}
	}
	if modes > 1 {
		return usage("--list, --status, --local, --index, --emit and --store exclude one another")
	}
	if *threads < 0 || *jobs < 1 || *throttle < 0 {
		return usage("--threads %d, --jobs %d, --throttle %d: want threads >= 0, jobs >= 1, throttle >= 0", *threads, *jobs, *throttle)
	}
	switch {
	case *list:
		for i, s := range specs {
			fmt.Fprintf(e.stdout, "%d\t%s\n", i, s.Describe())
		}
		fmt.Fprintf(e.stderr, "%d tasks; digest %s; output under %s\n", len(specs), experiment.Digest(raw), *out)
		return nil
	case *emit != "":
		absOut, err := filepath.Abs(*out)
		if err != nil {
			return err
		}
		absData := *dir
		if absData != "" {
			if absData, err = filepath.Abs(absData); err != nil {
				return err
			}
		}
		em := &experiment.Emit{Program: *program, File: file, Digest: experiment.Digest(raw), Out: absOut, DataDir: absData,
			Tasks: len(specs), Throttle: *throttle, Threads: max(*threads, 1), Time: *timeLimit, Partition: *partition,
			Image: *image, Claim: *claim}
		switch *emit {
		case "slurm":
			if em.Program == "" {
				if em.Program, err = os.Executable(); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(filepath.Join(absOut, "logs"), 0o755); err != nil {
				return err
			}
			return em.WriteSlurm(e.stdout)
		case "k8s":
			if em.Program == "" {
				em.Program = "wadn"
			}
			if err := em.WriteK8s(e.stdout); err != nil {
				return usage("--emit k8s: %v (give --image and --claim)", err)
			}
			return nil
		}
		return usage("--emit %q: want slurm or k8s", *emit)
	}
	if !*local && !*status && *store == "" && *index < 0 {
		i, from, ok, err := experiment.TaskIndex(os.Getenv)
		if err != nil {
			return usage("%v", err)
		}
		if !ok {
			return usage("say what to do: --list, --status, --local, --index I (or $%s), --emit slurm|k8s, or --store DIR", experiment.TaskEnv[0])
		}
		*index = i
		fmt.Fprintf(e.stderr, "task %d from $%s\n", i, from)
	}
	if *index >= 0 {
		if *index >= len(specs) {
			return usage("task %d: the sweep has %d tasks, 0 to %d", *index, len(specs), len(specs)-1)
		}
		specs = specs[*index : *index+1]
		*jobs = 1
	}
	if !specs[0].Dataset.Embedded && *dir == "" {
		return usage("%s has no embedded copy: give its data directory with --data DIR, \"data\" in the file, or $%s", specs[0].Dataset, datadir.Env)
	}
	if *status {
		return sweepStatus(e, &experiment.Runner{Out: *out, DataDir: *dir}, specs)
	}
	if *store != "" {
		return sweepStore(e, &experiment.Runner{Out: *out, DataDir: *dir}, specs, *store)
	}
	kernel.SetThreads(*threads)
	rn := &experiment.Runner{Out: *out, DataDir: *dir, Jobs: *jobs, Wait: *wait}
	rn.Note = func(s *experiment.Spec, msg string) { fmt.Fprintf(e.stderr, "%s: %s\n", s.Describe(), msg) }
	if !*quiet {
		rn.Progress = progressPrinter(e.stderr, true)
	}
	fmt.Fprintf(e.stderr, "%d task(s), %d at a time, %d threads (%s kernels, %s numerics); output under %s\n",
		len(specs), min(*jobs, len(specs)), kernel.Threads(), kernel.Impl(), specs[0].Numerics, *out)
	outs, err := rn.Run(ctx, specs)
	if errors.Is(err, trainer.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "interrupted; every run saved its state: the same command continues it\n")
		return &exitError{code: e.interruptedCode()}
	}
	if err != nil {
		return err
	}
	return printOutcomes(e.stdout, outs, false)
}

// sweepStatus prints the state of every task's run directory, one line a
// task as --list numbers them, and then, on stderr, the counts and the
// tasks not finished in the form of a job array's indices. It fails,
// after printing every task, when running a task would refuse its
// directory.
func sweepStatus(e *env, rn *experiment.Runner, specs []*experiment.Spec) error {
	var finished, started, refused int
	var open []int
	for i, s := range specs {
		st, err := rn.State(s)
		if err != nil {
			return fmt.Errorf("task %d (%s): %w", i, s.Describe(), err)
		}
		var what string
		switch {
		case st.Refused != nil:
			refused++
			what = "refused: " + st.Refused.Error()
		case st.Result != nil:
			finished++
			what = fmt.Sprintf("finished: %.2f%%", st.Result.Accuracy)
		case st.Started:
			started++
			what = fmt.Sprintf("started: %d of %d epochs logged", st.Epochs, s.Train.Epochs)
			if !st.Logged.IsZero() {
				what += ", the last at " + st.Logged.UTC().Format(time.RFC3339)
			}
			if st.Holder != "" {
				what += "; its lock names " + st.Holder
			} else {
				what += "; not locked"
			}
		default:
			what = "not started"
		}
		if st.Result == nil {
			open = append(open, i)
		}
		fmt.Fprintf(e.stdout, "%d\t%s\t%s\n", i, s.Describe(), what)
	}
	fmt.Fprintf(e.stderr, "%d tasks under %s: %d finished, %d started, %d not started", len(specs), rn.Out, finished, started, len(specs)-finished-started-refused)
	endSummary(e.stderr, refused, "refused", open)
	if refused > 0 {
		return fmt.Errorf("%d of the tasks' directories would be refused (see their lines); move the files away", refused)
	}
	return nil
}

// sweepStore copies the small files of every finished task's run under
// dest (experiment.Store), printing a line for each it writes, and then,
// on stderr, the counts and the tasks not finished. It goes through every
// task before failing on those it could not store.
func sweepStore(e *env, rn *experiment.Runner, specs []*experiment.Spec, dest string) error {
	var wrote, had, failed int
	var open []int
	for i, s := range specs {
		st, err := rn.State(s)
		if err != nil {
			return fmt.Errorf("task %d (%s): %w", i, s.Describe(), err)
		}
		if st.Result == nil {
			open = append(open, i)
			continue
		}
		w, err := experiment.Store(st.Dir, dest)
		switch {
		case err != nil:
			failed++
			fmt.Fprintf(e.stderr, "task %d (%s): %v\n", i, s.Describe(), err)
		case w:
			wrote++
			fmt.Fprintf(e.stdout, "%d\t%s\tstored: %.2f%%\t%s\n", i, s.Describe(), st.Result.Accuracy, filepath.Join(dest, filepath.Base(st.Dir)))
		default:
			had++
		}
	}
	fmt.Fprintf(e.stderr, "%d tasks under %s: %d finished; %d stored under %s now, %d there already", len(specs), rn.Out, wrote+had+failed, wrote, dest, had)
	endSummary(e.stderr, failed, "not stored", open)
	if failed > 0 {
		return fmt.Errorf("%d finished tasks could not be stored (see their lines)", failed)
	}
	return nil
}

// endSummary ends a summary line begun on w: ", N WHAT" when n > 0, the
// tasks not finished as a job array's indices, and a newline.
func endSummary(w io.Writer, n int, what string, open []int) {
	if n > 0 {
		fmt.Fprintf(w, ", %d %s", n, what)
	}
	if len(open) > 0 {
		fmt.Fprintf(w, "; not finished: %s", indexRanges(open))
	}
	fmt.Fprintln(w)
}

// indexRanges writes ascending indices as a job array's list: runs of
// consecutive indices as "a-b", joined by commas.
func indexRanges(ix []int) string {
	var b strings.Builder
	for i := 0; i < len(ix); {
		j := i
		for j+1 < len(ix) && ix[j+1] == ix[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		if j > i {
			fmt.Fprintf(&b, "%d-%d", ix[i], ix[j])
		} else {
			fmt.Fprintf(&b, "%d", ix[i])
		}
		i = j + 1
	}
	return b.String()
}
