package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/wadn-go/wadn/wadn/experiment"
)

// writeMethodsHelp writes every method: its scenarios, what it is, and the
// loss terms its epoch log holds besides class (report --csv's columns).
func writeMethodsHelp(w io.Writer) {
	fmt.Fprintln(w, "The methods, their scenarios and the terms of their epoch logs (epochs.jsonl, report --csv)")
	fmt.Fprintln(w, "besides every method's class loss per source (class.SOURCE):")
	for _, m := range experiment.Methods {
		var sc []string
		for _, s := range m.Scenarios {
			sc = append(sc, s.String())
		}
		fmt.Fprintf(w, "\n%s (%s): %s\n", m.Name, strings.Join(sc, ", "), m.Summary)
		if len(m.Terms) == 0 {
			fmt.Fprintln(w, "  no terms of its own")
		}
		for _, t := range m.Terms {
			col := t.Name
			if t.PerSource {
				col += ".SOURCE"
			}
			fmt.Fprintf(w, "  %-20s %s\n", col, t.Help)
		}
	}
}
