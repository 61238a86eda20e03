package main

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
)

// flagError is a mistake in a command's flags, which the flag package has
// printed with the usage already. It is errUsage (exit status 2) to
// errors.Is, and keeps the flag package's message for those who read it
// (renamedFlag).
type flagError struct{ err error }

func (e *flagError) Error() string        { return e.err.Error() }
func (e *flagError) Unwrap() error        { return e.err }
func (e *flagError) Is(target error) bool { return target == errUsage }

// parseArgs parses args into fs and returns the operands, in order. Flags
// may come before, between and after the operands, as users type them
// ("wadn report DIR --json", "wadn report --json DIR"); "--" ends the
// flags, every argument after it being an operand, and "-" alone is an
// operand (standard input, for some commands). A flag mistake is returned
// as a *flagError (errUsage); -h and --help as flag.ErrHelp, itself.
//
// Every command parses its arguments here, so that they all read flags
// the same way.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, &flagError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		// fs.Parse stops at the first operand, or consumes "--" and stops
		// after it: then every remaining argument is an operand.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(pos, rest...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// noOperands parses args for a command that takes none, saying which
// argument was not expected.
func noOperands(fs *flag.FlagSet, args []string) error {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		fmt.Fprintf(fs.Output(), "%s: unexpected argument %q (this command takes flags only)\n", fs.Name(), pos[0])
		return errUsage
	}
	return nil
}

// oneArgument parses args as parseArgs does and returns the one operand,
// what, or errUsage after saying what was wanted.
func oneArgument(fs *flag.FlagSet, args []string, what string) (string, error) {
	pos, err := parseArgs(fs, args)
	if err != nil {
		return "", err
	}
	if len(pos) != 1 {
		fmt.Fprintf(fs.Output(), "%s: want one %s, got %d arguments\n", fs.Name(), what, len(pos))
		return "", errUsage
	}
	return pos[0], nil
}

// subcommand finds the subcommand among args, wherever the flags put it
// ("wadn data ls --json", "wadn data --json ls"): the first argument that
// is neither a flag nor the value of one of valueFlags (the flags, of any
// subcommand, that take a value when given without "="). It returns the
// subcommand's name and the other arguments, in order; name is "" when
// there is none. Arguments after "--" are left as they are.
func subcommand(args []string, valueFlags []string) (name string, rest []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return "", args
		case strings.HasPrefix(a, "-") && a != "-":
			f := strings.TrimLeft(a, "-")
			if !strings.Contains(f, "=") && slices.Contains(valueFlags, f) {
				i++ // its value
			}
		default:
			return a, append(append([]string{}, args[:i]...), args[i+1:]...)
		}
	}
	return "", args
}
