package planner

import (
	"errors"
	"strings"
	"testing"
)

const goodPolicy = "package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn v.GreedyAction(agent)\n}\n"

func TestExtract(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		want         string // "" for ErrNoPolicy
		notes        string
	}{
		{"one block", "I collect greedily.\n\n```go\n" + goodPolicy + "```\nDone.", goodPolicy, "I collect greedily."},
		{"crlf", strings.ReplaceAll("Why.\n```go\n"+goodPolicy+"```\n", "\n", "\r\n"), goodPolicy, "Why."},
		{"truncated fence", "Why.\n```go\n" + goodPolicy, goodPolicy + "\n", "Why."},
		{"several blocks", "A helper:\n```go\nfunc helper() int { return 1 }\n```\nThe policy:\n```go\n" + goodPolicy + "```\nUsage:\n```sh\ngo run .\n```",
			goodPolicy, "A helper:\n```go\nfunc helper() int { return 1 }\n```\nThe policy:"},
		{"draft then final", "```go\npackage policy\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n```\nBetter:\n```go\n" + goodPolicy + "```",
			goodPolicy, "```go\npackage policy\nfunc Policy(v *ssd.View, agent int) int { return 0 }\n```\nBetter:"},
		{"untagged fence", "```\n" + goodPolicy + "```", goodPolicy, ""},
		{"golang tag", "```golang\n" + goodPolicy + "```", goodPolicy, ""},
		{"no package, no import", "```go\nfunc Policy(v *ssd.View, agent int) int {\n\treturn ssd.Stand\n}\n```",
			"package policy; import \"ssd\"; func Policy(v *ssd.View, agent int) int {\n\treturn ssd.Stand\n}\n", ""},
		{"package main, math used", "```go\npackage main // mine\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn int(math.Abs(-1))\n}\n```",
			"package policy; import \"math\" // mine\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int {\n\treturn int(math.Abs(-1))\n}\n", ""},
		{"comment first", "```go\n// greedy\nfunc Policy(v *ssd.View, agent int) int { return sort.SearchInts(nil, 0) }\n```",
			"package policy; import (\"sort\"; \"ssd\"); // greedy\nfunc Policy(v *ssd.View, agent int) int { return sort.SearchInts(nil, 0) }\n", ""},
		{"unfenced", "Here it is:\npackage policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }",
			"package policy\n\nimport \"ssd\"\n\nfunc Policy(v *ssd.View, agent int) int { return ssd.Stand }\n", "Here it is:"},
		{"prose only", "I would write a greedy policy.", "", ""},
		{"code without Policy", "```go\nfunc Act() int { return 0 }\n```", "", ""},
		{"empty", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src, notes, err := Extract(tc.answer)
			if tc.want == "" {
				if !errors.Is(err, ErrNoPolicy) || src != nil || !strings.Contains(err.Error(), "func Policy(v *ssd.View, agent int) int") {
					t.Fatalf("got %q, %v; want ErrNoPolicy naming the signature", src, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(src) != tc.want {
				t.Errorf("source\n%q\nwant\n%q", src, tc.want)
			}
			if notes != tc.notes {
				t.Errorf("notes %q, want %q", notes, tc.notes)
			}
		})
	}
}

// TestExtractKeepsLineNumbers: what Extract adds goes on existing lines,
// so a validation error's line is the line the model wrote.
func TestExtractKeepsLineNumbers(t *testing.T) {
	body := "// a comment\n\nfunc Policy(v *ssd.View, agent int) int {\n\tx := math.Sqrt(2)\n\treturn int(x)\n}"
	src, _, err := Extract("```go\n" + body + "\n```")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Split(string(src), "\n")
	want := strings.Split(body, "\n")
	for i := 1; i < len(want); i++ {
		if got[i] != want[i] {
			t.Errorf("line %d: %q, want %q", i+1, got[i], want[i])
		}
	}
}

// startsWithPackagePolicy: the first line that is not blank or a comment
// is package policy's clause.
func startsWithPackagePolicy(src string) bool {
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		return packageClause.MatchString(l) && strings.HasPrefix(t, "package policy")
	}
	return false
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"```go\n" + goodPolicy + "```",
		"text\r\n```go\r\nfunc Policy(v *ssd.View, agent int) int { return 0 }",
		"```\n```\n```go\npackage x\nfunc Policy(",
		"~~~go\nfunc Policy(v *ssd.View, agent int) int { return strings.Count(\"\", \"\") }\n~~~",
		"package policy\nfunc Policy() {}",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, answer string) {
		src, _, err := Extract(answer)
		if err != nil {
			if !errors.Is(err, ErrNoPolicy) || src != nil {
				t.Fatalf("error %v with source %q", err, src)
			}
			return
		}
		if !policyFunc.Match(src) {
			t.Fatalf("extracted source without func Policy(: %q", src)
		}
		if !startsWithPackagePolicy(string(src)) {
			t.Fatalf("extracted source is not package policy: %q", src)
		}
		if strings.Contains(answer, "\r") {
			return
		}
		// CRLF and LF answers extract alike.
		src2, _, err2 := Extract(strings.ReplaceAll(answer, "\n", "\r\n"))
		if err2 != nil || string(src2) != string(src) {
			t.Fatalf("CRLF answer extracts differently: %q vs %q (%v)", src2, src, err2)
		}
	})
}
