// Command wadn trains and evaluates the Wasserstein Aggregation Domain Network
// and the tools around it: numerics audit, benchmarks, the convex solvers and the
// data sets.
//
// Usage:
//
//	wadn <command> [flags] [arguments]
//
// Run "wadn help" for the list of commands and "wadn help <command>" (or
// "wadn <command> -h") for the flags of one. WADN_PROFILE=cpu (or mem, block,
// mutex, trace) writes a pprof profile of the run into WADN_PROFILE_DIR
// (default the working directory).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pkg/profile"
)

// command is one subcommand of wadn. Each lives in its own file and registers
// itself from an init function.
type command struct {
	name    string // as typed on the command line
	summary string // one line for "wadn help"
	usage   string // argument synopsis after the name, e.g. "[--json] [FILE]"
	// run executes the command. args excludes the command name. A flag.ErrHelp
	// error prints nothing more and exits 0; an *exitError sets the exit code.
	run func(ctx context.Context, env *env, args []string) error
}

// env carries the process streams so commands can be run from tests.
type env struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	signal func() os.Signal // the signal that cancelled the context, if any
	// saving is set by a command from the moment it answers an
	// interruption by saving its state (training): the process then waits
	// for it to return rather than ending at stopWithin.
	saving atomic.Bool
}

// savesOnInterrupt tells that the command answers an interruption by
// saving its state and returning, however long that takes, from now on.
func (e *env) savesOnInterrupt() { e.saving.Store(true) }

// stopWithin is how long after SIGINT or SIGTERM a command that does not
// save its state may take to return before the process ends regardless,
// with the same exit status: every command stops within a second, whether
// or not it was reading a file or a pipe that never ends, or computing.
const stopWithin = 500 * time.Millisecond

// exitError asks for a specific exit status without printing anything more.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit status %d", e.code) }

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("wadn: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

// newFlagSet returns a flag set for c that writes its usage to e.stderr.
func newFlagSet(c *command, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet("wadn "+c.name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: wadn %s %s\n\n%s\n", c.name, c.usage, c.summary)
		if hasFlags(fs) {
			fmt.Fprintf(e.stderr, "\nflags:\n")
			fs.PrintDefaults()
		}
	}
	return fs
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func main() {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	var ctx context.Context
	ctx, e.signal = withSignals(context.Background(), func() {
		time.Sleep(stopWithin)
		if !e.saving.Load() {
			fmt.Fprintf(os.Stderr, "wadn: interrupted\n")
			os.Exit(e.interruptedCode())
		}
	})
	prof, err := startProfile(os.Getenv("WADN_PROFILE"), os.Getenv("WADN_PROFILE_DIR"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "wadn: %v\n", err)
		os.Exit(2)
	}
	code := runMain(ctx, e, os.Args[1:])
	prof.Stop()
	os.Exit(code)
}

// withSignals returns a context cancelled by the first SIGINT or SIGTERM,
// and a function that tells which of them came (nil before one does).
// After cancelling the context it calls then, when not nil, on its own
// goroutine.
func withSignals(parent context.Context, then func()) (context.Context, func() os.Signal) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	var got atomic.Value
	go func() {
		s := <-ch
		got.Store(&s)
		signal.Stop(ch)
		cancel()
		if then != nil {
			then()
		}
	}()
	return ctx, func() os.Signal {
		if s, ok := got.Load().(*os.Signal); ok {
			return *s
		}
		return nil
	}
}

// interruptedCode returns the exit status of a command interrupted by a
// signal, by the shells' convention 128 + the signal's number: 143 for
// SIGTERM, 130 for an interrupt (SIGINT, Ctrl-C).
func (e *env) interruptedCode() int {
	if e.signal != nil && e.signal() == syscall.SIGTERM {
		return 128 + 15
	}
	return 128 + 2
}

// noProfile is the stopper when no profile is asked for.
type noProfile struct{}

func (noProfile) Stop() {}

// startProfile starts the profile named by kind ("cpu", "mem", "block",
// "mutex" or "trace"; "" for none), written to dir (default "."), as set by
// the environment variables WADN_PROFILE and WADN_PROFILE_DIR.
func startProfile(kind, dir string) (interface{ Stop() }, error) {
	var mode func(*profile.Profile)
	switch kind {
	case "":
		return noProfile{}, nil
	case "cpu":
		mode = profile.CPUProfile
	case "mem":
		mode = profile.MemProfile
	case "block":
		mode = profile.BlockProfile
	case "mutex":
		mode = profile.MutexProfile
	case "trace":
		mode = profile.TraceProfile
	default:
		return nil, fmt.Errorf("WADN_PROFILE=%q: want cpu, mem, block, mutex or trace", kind)
	}
	if dir == "" {
		dir = "."
	}
	return profile.Start(mode, profile.ProfilePath(dir), profile.Quiet, profile.NoShutdownHook), nil
}

// runMain dispatches args to a command and returns the process exit status.
func runMain(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		args = []string{defaultCommand}
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 && args[1] == "settings" {
			writeSettingsHelp(e.stdout)
			return 0
		}
		if len(args) > 1 && args[1] == "methods" {
			writeMethodsHelp(e.stdout)
			return 0
		}
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(e.stderr, "wadn: unknown command %q\n", args[1])
				return 2
			}
			// Asked for, help is the output: "wadn help run | less".
			return runCommand(ctx, &env{stdin: e.stdin, stdout: e.stdout, stderr: e.stdout, signal: e.signal}, c, []string{"-h"})
		}
		printHelp(e.stdout)
		return 0
	}
	if strings.HasPrefix(name, "-") {
		// Flags alone are the default command's: "wadn --threads 1".
		name, args = defaultCommand, append([]string{defaultCommand}, args...)
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "wadn: unknown command %q; run 'wadn help' for the list\n", name)
		return 2
	}
	return runCommand(ctx, e, c, args[1:])
}

func runCommand(ctx context.Context, e *env, c *command, args []string) int {
	err := c.run(ctx, e, args)
	var ee *exitError
	if e.signal != nil && e.signal() != nil {
		// Interrupted: whatever the command made of it, the exit status
		// says so, as the shells' convention has it.
		if !errors.As(err, &ee) || ee.code != e.interruptedCode() {
			fmt.Fprintf(e.stderr, "wadn %s: interrupted\n", c.name)
		}
		return e.interruptedCode()
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, errUsage):
		return 2
	default:
		// The package's own "wadn: " prefix would repeat the command's.
		fmt.Fprintf(e.stderr, "wadn %s: %s\n", c.name, strings.TrimPrefix(err.Error(), "wadn: "))
		return 1
	}
}

// errUsage reports a command-line mistake whose message was already printed.
var errUsage = errors.New("usage")

// defaultCommand runs when wadn is started with no arguments.
var defaultCommand = "help"

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "wadn: multi-source domain adaptation under label shift (WADN)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "usage: wadn <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'wadn help <command>' for the flags of a command, 'wadn help settings' for every")
	fmt.Fprintln(w, "setting of the methods and data sets with its defaults, 'wadn help methods' for the")
	fmt.Fprintln(w, "methods and the terms of their epoch logs.")
}
