package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
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

// sweepFlags are the flags of wadn sweep.
type sweepFlags struct {
	list, status, local, wait, quiet            bool
	jobs, index, threads, throttle              int
	emit, digest, out, dir, store               string
	timeLimit, partition, image, claim, program string
	fs                                          *flag.FlagSet
}

// sweepMode is what one wadn sweep does.
type sweepMode int

const (
	sweepList  sweepMode = iota // --list
	sweepState                  // --status
	sweepLocal                  // --local
	sweepTask                   // --index, or the task the environment names
	sweepEmit                   // --emit
	sweepSave                   // --store
)

// sweep is an experiment file read for wadn sweep: its absolute path, its
// digest (experiment.Digest), its plan and the plan's tasks, in order.
type sweep struct {
	file, digest string
	plan         *experiment.Plan
	specs        []*experiment.Spec
}

func runSweep(ctx context.Context, e *env, args []string) error {
	f := &sweepFlags{fs: newFlagSet(commands["sweep"], e)}
	arg, err := f.parse(args)
	if err != nil {
		return err
	}
	usage := func(format string, a ...any) error {
		fmt.Fprintf(e.stderr, "wadn sweep: "+format+"\n", a...)
		return errUsage
	}
	mode, err := f.mode()
	if err != nil {
		return usage("%v", err)
	}
	sw, err := readSweep(arg, f.digest)
	if err != nil {
		var u cmdLineError
		if errors.As(err, &u) {
			return usage("%v", u.error)
		}
		return err
	}
	if f.out == "" {
		f.out = cmp.Or(sw.plan.Out, "runs")
	}
	if f.dir == "" {
		f.dir = cmp.Or(sw.plan.DataDir, datadir.Default())
	}
	switch mode {
	case sweepList:
		return listSweep(ctx, e, sw, f.out)
	case sweepEmit:
		return emitSweep(e, sw, f)
	case sweepTask:
		if !f.given("index") {
			i, from, ok, err := experiment.TaskIndex(os.Getenv)
			if err != nil {
				return usage("%v", err)
			}
			if !ok {
				return usage("say what to do: --list, --status, --local, --index I (or $%s), --emit slurm|k8s, or --store DIR", experiment.TaskEnv[0])
			}
			f.index = i
			fmt.Fprintf(e.stderr, "task %d from $%s\n", i, from)
		}
		if f.index >= len(sw.specs) {
			return usage("task %d: the sweep has %d tasks, 0 to %d", f.index, len(sw.specs), len(sw.specs)-1)
		}
		sw.specs = sw.specs[f.index : f.index+1]
		f.jobs = 1
	}
	if !sw.specs[0].Dataset.Embedded && f.dir == "" {
		return usage("%s has no embedded copy: give its data directory with --data DIR, \"data\" in the file, or $%s", sw.specs[0].Dataset, datadir.Env)
	}
	switch mode {
	case sweepState:
		return sweepStatus(e, &experiment.Runner{Out: f.out, DataDir: f.dir}, sw.specs)
	case sweepSave:
		return sweepStore(e, &experiment.Runner{Out: f.out, DataDir: f.dir}, sw.specs, f.store)
	}
	return trainSweep(ctx, e, sw.specs, f)
}

// parse defines the flags of wadn sweep, parses args and returns the
// experiment file's name.
func (f *sweepFlags) parse(args []string) (string, error) {
	fs := f.fs
	fs.BoolVar(&f.list, "list", false, "print the tasks, numbered from 0, and their count")
	fs.BoolVar(&f.status, "status", false, "print how far each task has got in the output directory (finished and its accuracy, the epochs logged and the process its lock names, or not started) and the tasks not finished")
	fs.BoolVar(&f.local, "local", false, "run every task on this machine, --jobs at a time")
	fs.IntVar(&f.jobs, "jobs", 1, "with --local: tasks trained at once")
	fs.IntVar(&f.index, "index", 0, "run task I alone, numbered from 0 (default: $SLURM_ARRAY_TASK_ID or $JOB_COMPLETION_INDEX, when set)")
	fs.StringVar(&f.emit, "emit", "", "write a job array running the tasks to stdout: slurm (an sbatch script) or k8s (an Indexed Job)")
	fs.StringVar(&f.digest, "digest", "", "refuse FILE unless its digest is this (set by --emit, so that tasks never run a changed file)")
	fs.StringVar(&f.out, "out", "", "the sweep's output directory, shared by its tasks (default: the file's \"out\", else runs)")
	fs.StringVar(&f.dir, "data", "", "data directory (default: the file's \"data\", else "+datadir.Help+")")
	fs.IntVar(&f.threads, "threads", 0, "worker threads of a task's kernels (0: all cores; --emit: 1)")
	fs.BoolVar(&f.wait, "wait", false, "wait for a run directory another process has locked, instead of failing")
	fs.IntVar(&f.throttle, "throttle", 0, "--emit: at most this many tasks at once (0: no limit)")
	fs.StringVar(&f.timeLimit, "time", "", "--emit slurm: a task's time limit, e.g. 2:00:00")
	fs.StringVar(&f.partition, "partition", "", "--emit slurm: the partition")
	fs.StringVar(&f.image, "image", "", "--emit k8s: the container image holding wadn")
	fs.StringVar(&f.claim, "claim", "", "--emit k8s: the persistent volume claim holding the output and data directories")
	fs.StringVar(&f.program, "program", "", "--emit: the wadn executable as the nodes reach it (default: this one; wadn for k8s)")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress")
	fs.StringVar(&f.store, "store", "", "copy every finished task's config, epoch log, result and record (not its weights) to a directory of the run's name under DIR, to be committed; a run stored already is left, one stored with other files is an error")
	return oneArgument(fs, args, "experiment FILE")
}

// given reports whether the command line set the flag called name.
func (f *sweepFlags) given(name string) bool { return flagSet(f.fs, name) }

// mode returns what the flags ask for: one mode at most, and with none
// the task the environment names (sweepTask). It checks the counts.
func (f *sweepFlags) mode() (sweepMode, error) {
	if f.given("index") && f.index < 0 {
		return 0, fmt.Errorf("--index %d: want a task number from 0 (wadn sweep FILE --list numbers them)", f.index)
	}
	if f.threads < 0 || f.jobs < 1 || f.throttle < 0 {
		return 0, fmt.Errorf("--threads %d, --jobs %d, --throttle %d: want threads >= 0, jobs >= 1, throttle >= 0", f.threads, f.jobs, f.throttle)
	}
	var modes []sweepMode
	for m, on := range map[sweepMode]bool{sweepList: f.list, sweepState: f.status, sweepLocal: f.local,
		sweepTask: f.given("index"), sweepEmit: f.emit != "", sweepSave: f.store != ""} {
		if on {
			modes = append(modes, m)
		}
	}
	switch len(modes) {
	case 0:
		return sweepTask, nil
	case 1:
		return modes[0], nil
	}
	return 0, errors.New("--list, --status, --local, --index, --emit and --store exclude one another")
}

// readSweep reads the experiment file name and expands its tasks, each
// validated, refusing a file whose digest is not digest (when given). A
// mistake in the file is a cmdLineError naming the file.
func readSweep(name, digest string) (*sweep, error) {
	file, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, usagef("%v", err)
	}
	sw := &sweep{file: file, digest: experiment.Digest(raw)}
	if digest != "" && sw.digest != digest {
		return nil, fmt.Errorf("%s has digest %s, not the %s it had when its job array was made: its tasks may be numbered otherwise; make the array again", file, sw.digest, digest)
	}
	if sw.plan, err = experiment.ReadPlan(bytes.NewReader(raw)); err != nil {
		return nil, usagef("%s: %v", file, err)
	}
	if sw.specs, err = sw.plan.Specs(); err != nil {
		return nil, usagef("%s: %v", file, flagNames(err))
	}
	for i, s := range sw.specs {
		if err := s.Validate(); err != nil {
			return nil, usagef("%s: task %d (%s): %v", file, i, s.Describe(), flagNames(err))
		}
	}
	return sw, nil
}

// listSweep prints the tasks, numbered, and on stderr their count.
func listSweep(ctx context.Context, e *env, sw *sweep, out string) error {
	w := bufio.NewWriter(e.stdout)
	for i, s := range sw.specs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		fmt.Fprintf(w, "%d\t%s\n", i, s.Describe())
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "%d tasks; digest %s; output under %s\n", len(sw.specs), sw.digest, out)
	return nil
}

// emitSweep writes the job array running the sweep's tasks to stdout. A
// mistake in the flags or paths is a usage error naming it.
func emitSweep(e *env, sw *sweep, f *sweepFlags) error {
	usage := func(format string, a ...any) error {
		fmt.Fprintf(e.stderr, "wadn sweep: --emit %s: "+format+"\n", append([]any{f.emit}, a...)...)
		return errUsage
	}
	absOut, err := filepath.Abs(f.out)
	if err != nil {
		return err
	}
	absData := f.dir
	if absData != "" {
		if absData, err = filepath.Abs(absData); err != nil {
			return err
		}
	}
	em := &experiment.Emit{Program: f.program, File: sw.file, Digest: sw.digest, Out: absOut, DataDir: absData,
		Tasks: len(sw.specs), Throttle: f.throttle, Threads: max(f.threads, 1), Time: f.timeLimit, Partition: f.partition,
		Image: f.image, Claim: f.claim}
	var buf bytes.Buffer
	switch f.emit {
	case "slurm":
		if em.Program == "" {
			if em.Program, err = os.Executable(); err != nil {
				return err
			}
			if fromBuildCache(em.Program) {
				return usage("this wadn runs from go run's build cache (%s), which go run removes and the nodes may not reach: build it (go build -o DIR/wadn ./cmd/wadn) and run that, or give --program", em.Program)
			}
		}
		if err := em.WriteSlurm(&buf); err != nil {
			return usage("%v", err)
		}
		if err := os.MkdirAll(filepath.Join(absOut, "logs"), 0o755); err != nil {
			return err
		}
	case "k8s":
		if f.image == "" || f.claim == "" {
			return usage("give --image and --claim (the container image holding wadn and the volume claim holding the runs)")
		}
		if em.Program == "" {
			em.Program = "wadn"
		}
		if err := em.WriteK8s(&buf); err != nil {
			return usage("%v", err)
		}
	default:
		fmt.Fprintf(e.stderr, "wadn sweep: --emit %q: want slurm or k8s\n", f.emit)
		return errUsage
	}
	_, err = e.stdout.Write(buf.Bytes())
	return err
}

// fromBuildCache reports whether the executable at path is one go run
// built: in a go-build directory of the temporary directory, where go run
// puts it ($TMPDIR/go-build*/b001/exe/NAME) and removes it when it ends.
func fromBuildCache(path string) bool {
	dir := filepath.ToSlash(filepath.Dir(path))
	return strings.HasSuffix(dir, "/exe") && strings.Contains(dir, "/go-build")
}

// trainSweep trains the tasks specs on this machine, --jobs at a time, and
// prints their results. A task that fails stops no other; the failures are
// listed at the end and the exit status is 1.
func trainSweep(ctx context.Context, e *env, specs []*experiment.Spec, f *sweepFlags) error {
	kernel.SetThreads(f.threads)
	rn := &experiment.Runner{Out: f.out, DataDir: f.dir, Jobs: f.jobs, Wait: f.wait, KeepGoing: true}
	rn.Note = func(s *experiment.Spec, msg string) { fmt.Fprintf(e.stderr, "%s: %s\n", s.Describe(), msg) }
	if !f.quiet {
		rn.Progress = progressPrinter(e.stderr, true)
	}
	fmt.Fprintf(e.stderr, "%d task(s), %d at a time, %d threads (%s kernels, %s numerics); output under %s\n",
		len(specs), min(f.jobs, len(specs)), kernel.Threads(), kernel.Impl(), specs[0].Numerics, f.out)
	e.savesOnInterrupt()
	outs, err := rn.Run(ctx, specs)
	if errors.Is(err, trainer.ErrInterrupted) {
		fmt.Fprintf(e.stderr, "interrupted; every run saved its state: the same command continues it\n")
		return &exitError{code: e.interruptedCode()}
	}
	var done []*experiment.Outcome
	for _, o := range outs {
		if o != nil {
			done = append(done, o)
		}
	}
	if perr := printOutcomes(e.stdout, done, false); perr != nil {
		return perr
	}
	if err != nil {
		// A failed task stops no other: the failures are listed once every
		// task has been trained.
		var failed []error
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			failed = j.Unwrap()
		} else {
			failed = []error{err}
		}
		fmt.Fprintf(e.stderr, "wadn sweep: %d of %d task(s) failed (the others finished; the same command trains the failed ones again, from their checkpoints):\n", len(failed), len(specs))
		for _, f := range failed {
			fmt.Fprintf(e.stderr, "  %v\n", f)
		}
		return &exitError{1}
	}
	return nil
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
