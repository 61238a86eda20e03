package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/wadn-go/wadn/data"
	"github.com/wadn-go/wadn/internal/settings"
	"github.com/wadn-go/wadn/wadn/dataset"
	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/method"
)

// assignment is one setting given on the command line.
type assignment struct{ name, value string }

// settingFlags collects the settings a command line gives, in order: as
// --set NAME=VALUE or as --NAME VALUE (--NAME alone for a true bool).
type settingFlags struct {
	list  []assignment
	names map[string]bool // the flags that are settings, hidden from the usage
}

// setFlag is the flag.Value of one setting given as --NAME.
type setFlag struct {
	sf      *settingFlags
	name    string
	boolean bool
}

func (f *setFlag) String() string { return "" }
func (f *setFlag) Set(v string) error {
	f.sf.list = append(f.sf.list, assignment{f.name, v})
	return nil
}
func (f *setFlag) IsBoolFlag() bool { return f.boolean }

// setValue is the flag.Value of --set NAME=VALUE.
type setValue struct{ sf *settingFlags }

func (v setValue) String() string { return "" }
func (v setValue) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("%q: want NAME=VALUE", s)
	}
	v.sf.list = append(v.sf.list, assignment{name, value})
	return nil
}

// register defines --set and a flag for every setting any run has on fs.
func (sf *settingFlags) register(fs *flag.FlagSet) { sf.registerFields(fs, allSettings()) }

// registerFields defines --set and a flag for every setting of fields on fs.
func (sf *settingFlags) registerFields(fs *flag.FlagSet, fields []settings.Field) {
	fs.Var(setValue{sf}, "set", "set a setting: `NAME=VALUE` (repeatable; any setting also as --NAME VALUE; 'wadn help settings' lists them)")
	sf.names = map[string]bool{}
	for _, f := range fields {
		if fs.Lookup(f.Name) != nil || sf.names[f.Name] {
			continue // a common flag of the same name (epochs)
		}
		sf.names[f.Name] = true
		fs.Var(&setFlag{sf: sf, name: f.Name, boolean: f.IsBool()}, f.Name, f.Help)
	}
}

// allSettings returns one field of every setting name any run has: the
// training settings, the data sets' and the methods'.
func allSettings() []settings.Field {
	var out []settings.Field
	seen := map[string]bool{}
	add := func(fs []settings.Field) {
		for _, f := range fs {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	tr := method.DefaultTrain(dataset.Amazon)
	add(settings.Fields(&tr))
	for _, ds := range dataset.All {
		add(settings.Fields(ds.Settings()))
	}
	for _, m := range experiment.Methods {
		for _, ds := range dataset.All {
			for _, sc := range m.Scenarios {
				add(settings.Fields(m.Settings(ds, sc)))
			}
		}
	}
	return out
}

// apply sets the settings given, in order, on fields; an error names the
// setting, or says that fields have none of that name.
func (sf *settingFlags) apply(fields []settings.Field) error {
	for _, a := range sf.list {
		f, err := settings.Lookup(fields, a.name)
		if err != nil {
			return fmt.Errorf("--%s: not a setting here", a.name)
		}
		if err := f.Set(a.value); err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	return nil
}

// settingsLine lists fields as NAME VALUE, comma-separated.
func settingsLine(fields []settings.Field) string {
	var parts []string
	for _, f := range fields {
		parts = append(parts, f.Name+" "+f.String())
	}
	return strings.Join(parts, ", ")
}

// printUsage writes the flags of fs that are not settings.
func (sf *settingFlags) printUsage(w io.Writer, fs *flag.FlagSet) {
	hidden := flag.NewFlagSet(fs.Name(), flag.ContinueOnError)
	hidden.SetOutput(w)
	fs.VisitAll(func(f *flag.Flag) {
		if !sf.names[f.Name] {
			hidden.Var(f.Value, f.Name, f.Usage)
		}
	})
	hidden.PrintDefaults()
}

// renamed maps flags of earlier versions to the settings that replaced them.
var renamed = map[string]string{
	"centroid-mse":     "--explicit squared (--explicit paper for the paper's distance)",
	"code-centroids":   "--explicit code",
	"hidden-centroids": "--centroids hidden",
	"eval-estimate":    "--alpha eval",
	"held-out":         "--alpha held-out",
	"oracle-alpha":     "--alpha oracle",
}

// writeSettingsHelp writes every setting with its type, what it does and its
// defaults by data set and scenario.
func writeSettingsHelp(w io.Writer) {
	fmt.Fprintln(w, "Settings of wadn run and wadn sweep: give them as --set NAME=VALUE or --NAME VALUE, or")
	fmt.Fprintln(w, "as \"NAME\": VALUE in an experiment file (--config FILE). A run refuses a setting it does not read.")
	type cell struct {
		ds *dataset.Dataset
		sc data.Scenario
	}
	var cells []cell
	for _, ds := range dataset.All {
		for _, sc := range ds.Scenarios {
			cells = append(cells, cell{ds, sc})
		}
	}
	// defaults returns "value" when every cell has the same, or
	// "ds sc: value; ..." grouped by value.
	defaults := func(get func(c cell) (string, bool)) string {
		byValue := map[string][]string{}
		var order []string
		n := 0
		for _, c := range cells {
			v, ok := get(c)
			if !ok {
				continue
			}
			n++
			if byValue[v] == nil {
				order = append(order, v)
			}
			byValue[v] = append(byValue[v], c.ds.Name+" "+c.sc.String())
		}
		if len(order) == 1 {
			return order[0]
		}
		var parts []string
		for _, v := range order {
			parts = append(parts, strings.Join(compress(byValue[v]), ", ")+": "+v)
		}
		return strings.Join(parts, "; ")
	}
	section := func(title string, names []string, get func(c cell, name string) (settings.Field, bool)) {
		fmt.Fprintf(w, "\n%s\n", title)
		for _, name := range names {
			var f settings.Field
			for _, c := range cells {
				if g, ok := get(c, name); ok {
					f = g
					break
				}
			}
			typ := f.Type()
			if f.Bounds != nil {
				typ += ", " + f.Bounds.String()
			}
			fmt.Fprintf(w, "  %s (%s)\n      %s\n      default: %s\n", name, typ, f.Help,
				defaults(func(c cell) (string, bool) {
					g, ok := get(c, name)
					if !ok {
						return "", false
					}
					return g.String(), true
				}))
		}
	}
	fieldsOf := func(p any, sc data.Scenario) []settings.Field {
		var out []settings.Field
		for _, f := range settings.Fields(p) {
			if f.Reads(sc.String()) {
				out = append(out, f)
			}
		}
		return out
	}
	names := func(fs []settings.Field) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}
	tr := method.DefaultTrain(dataset.Amazon)
	section("Training, every method:", names(settings.Fields(&tr)), func(c cell, name string) (settings.Field, bool) {
		t := method.DefaultTrain(c.ds)
		f, err := settings.Lookup(fieldsOf(&t, c.sc), name)
		return f, err == nil
	})
	var dsNames []string
	for _, ds := range dataset.All {
		for _, n := range names(settings.Fields(ds.Settings())) {
			if !slices.Contains(dsNames, n) {
				dsNames = append(dsNames, n)
			}
		}
	}
	section("Data sets:", dsNames, func(c cell, name string) (settings.Field, bool) {
		f, err := settings.Lookup(fieldsOf(c.ds.Settings(), c.sc), name)
		return f, err == nil
	})
	for _, m := range experiment.Methods {
		var mNames []string
		for _, c := range cells {
			if m.Runs(c.sc) {
				for _, n := range names(settings.Fields(m.Settings(c.ds, c.sc))) {
					if !slices.Contains(mNames, n) {
						mNames = append(mNames, n)
					}
				}
			}
		}
		if len(mNames) == 0 {
			fmt.Fprintf(w, "\nMethod %s: no settings of its own.\n", m.Name)
			continue
		}
		section("Method "+m.Name+":", mNames, func(c cell, name string) (settings.Field, bool) {
			if !m.Runs(c.sc) {
				return settings.Field{}, false
			}
			f, err := settings.Lookup(fieldsOf(m.Settings(c.ds, c.sc), c.sc), name)
			return f, err == nil
		})
	}
	fmt.Fprintln(w, "\nFlags of earlier versions and the settings that replaced them:")
	for _, k := range mapKeys(renamed) {
		fmt.Fprintf(w, "  --%s: %s\n", k, renamed[k])
	}
}

// compress lists cells "ds sc" with the scenarios of one data set joined:
// "amazon uda, amazon limited" becomes "amazon uda/limited".
func compress(cells []string) []string {
	var order []string
	scs := map[string][]string{}
	for _, c := range cells {
		ds, sc, _ := strings.Cut(c, " ")
		if scs[ds] == nil {
			order = append(order, ds)
		}
		scs[ds] = append(scs[ds], sc)
	}
	var out []string
	for _, ds := range order {
		out = append(out, ds+" "+strings.Join(scs[ds], "/"))
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
