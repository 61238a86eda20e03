package data

import "fmt"

// Scenarios lists the scenarios in order.
var Scenarios = []Scenario{UDA, Limited, Partial}

// ParseScenario returns the scenario named s ("uda", "limited" or
// "partial").
func ParseScenario(s string) (Scenario, error) {
	for _, sc := range Scenarios {
		if sc.String() == s {
			return sc, nil
		}
	}
	return 0, fmt.Errorf("unknown scenario %q (want uda, limited or partial)", s)
}

// MarshalText returns the scenario's name.
func (s Scenario) MarshalText() ([]byte, error) {
	if s < UDA || s > Partial {
		return nil, fmt.Errorf("data: unknown scenario %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads a scenario's name.
func (s *Scenario) UnmarshalText(b []byte) error {
	v, err := ParseScenario(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
