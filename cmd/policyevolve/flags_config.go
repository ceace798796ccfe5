package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"policyevolve/internal/infile"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// applyConfigFile sets flags from a TOML (.toml) or YAML (.yaml, .yml)
// file whose keys are the flags' names (a list sets a repeatable flag
// once per element). It runs before the command line is parsed, so the
// command line wins. A key that names a table the command registered
// (flagSet.table) is read by it. A key that names no flag, or a value a
// flag refuses, is an error naming the file and the key.
// maxConfigFile bounds a --config file: a few hundred flags' worth is
// a few KiB.
const maxConfigFile = 1 << 20

func applyConfigFile(fs *flagSet, path string) error {
	fs.applyRules()
	data, err := infile.Read(path, maxConfigFile)
	if err != nil {
		return usagef("--config: %v", err)
	}
	values := map[string]any{}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		if _, err := toml.Decode(string(data), &values); err != nil {
			return usagef("--config %s: %v", path, err)
		}
	case ".yaml", ".yml":
		if err := yaml.Unmarshal(data, &values); err != nil {
			return usagef("--config %s: %v", path, err)
		}
	default:
		return usagef("--config %s: want a .toml, .yaml or .yml file", path)
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.ReplaceAll(k, "_", "-")
		if set := fs.tables[name]; set != nil {
			table, ok := values[k].(map[string]any)
			if !ok {
				return usagef("--config %s: %s: want a table", path, k)
			}
			if err := set(table); err != nil {
				return usagef("--config %s: %s: %v", path, k, err)
			}
			continue
		}
		if fs.Lookup(name) == nil || name == "config" || name == "resume" {
			return usagef("--config %s: %q is not a flag of this command", path, k)
		}
		items := []any{values[k]}
		if list, ok := values[k].([]any); ok {
			items = list
		}
		for _, v := range items {
			if err := fs.Set(name, fmt.Sprint(v)); err != nil {
				var re *ruleError
				if errors.As(err, &re) {
					return usagef("--config %s: %v", path, err)
				}
				return usagef("--config %s: %s: %v", path, k, err)
			}
		}
	}
	return nil
}

// configFlag finds --config FILE (or --config=FILE) among args, before the
// flags are parsed.
func configFlag(args []string) string {
	for i, a := range args {
		for _, p := range []string{"-config", "--config"} {
			if a == p && i+1 < len(args) {
				return args[i+1]
			}
			if v, ok := strings.CutPrefix(a, p+"="); ok {
				return v
			}
		}
	}
	return ""
}
