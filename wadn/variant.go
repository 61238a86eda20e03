package wadn

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/wadn-go/wadn/data"
)

// DefaultProtocol returns the paper's protocol for a data set and scenario:
// data.AmazonProtocol, data.DigitsProtocol or data.OfficeHomeProtocol.
func DefaultProtocol(dataset string, sc data.Scenario) (data.Protocol, error) {
	switch dataset {
	case "amazon":
		return data.AmazonProtocol(sc), nil
	case "digits":
		return data.DigitsProtocol(sc), nil
	case "office-home", "officehome":
		return data.OfficeHomeProtocol(sc), nil
	}
	return data.Protocol{}, fmt.Errorf("wadn: unknown dataset %q (want amazon, digits or office-home)", dataset)
}

// readVariant returns how the settings recorded in an experiment's output
// directory (SettingsFile) differ from the defaults of its data set and
// scenario, as "Field value" items joined by ", " in field-name order (the
// Config settings its method reads in its scenario, Method.Reads), with
// "sources a,b" for a chosen source list: "" when they do not differ. ok
// is false when the directory records no settings (written before they
// were recorded).
func readVariant(dir string) (v string, ok bool, err error) {
	path := filepath.Join(dir, SettingsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	var s settings
	if err := json.Unmarshal(b, &s); err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	if v, err = variant(s); err != nil {
		return "", false, fmt.Errorf("%s: %w", path, err)
	}
	return v, true, nil
}

// variant returns how s differs from the defaults (see readVariant).
func variant(s settings) (string, error) {
	cfg, err := DefaultConfig(s.Dataset, s.Config.Scenario)
	if err != nil {
		return "", err
	}
	cfg.Baseline = DefaultBaselineConfig(cfg.Dataset, cfg.Scenario)
	proto, err := DefaultProtocol(s.Dataset, s.Config.Scenario)
	if err != nil {
		return "", err
	}
	var items []string
	for _, c := range []struct {
		prefix    string
		got, want any
	}{
		{"", s.Config, cfg},
		{"Protocol.", s.Protocol, proto},
	} {
		got, err := leaves(c.got)
		if err != nil {
			return "", err
		}
		want, err := leaves(c.want)
		if err != nil {
			return "", err
		}
		var keys []string
		for k := range got {
			if c.prefix == "" && !readsSetting(s.Method, s.Config.Scenario, k) {
				continue
			}
			if got[k] != want[k] {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			items = append(items, c.prefix+k+" "+got[k])
		}
	}
	if len(s.Sources) > 0 {
		items = append(items, "sources "+strings.Join(s.Sources, ","))
	}
	return strings.Join(items, ", "), nil
}

// leaves returns the JSON encoding of every leaf of v's JSON form, keyed by
// its dotted path ("Baseline.Mu"); lists are leaves.
func leaves(v any) (map[string]string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return nil, err
	}
	out := map[string]string{}
	var walk func(prefix string, t any) error
	walk = func(prefix string, t any) error {
		if m, ok := t.(map[string]any); ok {
			for k, c := range m {
				if err := walk(prefix+k+".", c); err != nil {
					return err
				}
			}
			return nil
		}
		b, err := json.Marshal(t)
		if err != nil {
			return err
		}
		out[strings.TrimSuffix(prefix, ".")] = string(b)
		return nil
	}
	return out, walk("", tree)
}
