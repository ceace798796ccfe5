package sandbox

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/traefik/yaegi/interp"
)

// runF validates and rewrites a policy source whose F returns a string,
// then interprets F in this (trusted, test) process.
func runF(t *testing.T, src string) string {
	t.Helper()
	c, err := Validate([]byte(src))
	if err != nil {
		t.Fatalf("validate: %v", err)
	}
	code, err := rewriteForYaegi(c)
	if err != nil {
		t.Fatalf("rewrite: %v", err)
	}
	i := interp.New(interp.Options{SourcecodeFilesystem: fstest.MapFS{}, Stdout: io.Discard, Stderr: io.Discard, Env: []string{}})
	if err := i.Use(yaegiExports()); err != nil {
		t.Fatal(err)
	}
	if _, err := i.Eval(string(code)); err != nil {
		t.Fatalf("yaegi: %v\n%s", err, code)
	}
	v, err := i.Eval("policy.F()")
	if err != nil {
		t.Fatalf("yaegi: %v\n%s", err, code)
	}
	return v.String()
}

// nativeF compiles the same source with the Go toolchain, the way the
// native backend does, and returns what F returns.
func nativeF(t *testing.T, src string) string {
	t.Helper()
	c, err := Validate([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte(workerModule))
	files, err := ssdSourceFiles("ssd")
	if err != nil {
		t.Fatal(err)
	}
	for n, b := range files {
		write(n, b)
	}
	main, err := nativeSource(c)
	if err != nil {
		t.Fatal(err)
	}
	write("cmd/f/policy.go", main)
	write("cmd/f/main.go", []byte("package main\n\nimport __pe_os \"os\"\n\nfunc main() { __pe_os.Stdout.WriteString(F()) }\n"))
	cmd := exec.Command("go", "run", "-gcflags="+policyGCFlags, "./cmd/f")
	cmd.Dir = dir
	cmd.Env = buildEnv()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v", err)
	}
	return string(out)
}

const rwHeader = "package policy\n\nimport (\n\t\"math\"\n\t\"sort\"\n\t\"ssd\"\n\t\"strconv\"\n\t\"strings\"\n)\n\n" +
	"var _ = math.Pi\nvar _ = sort.Ints\nvar _ = strconv.Itoa\nvar _ = strings.ToUpper\n\n" +
	"func Policy(v *ssd.View, agent int) int { return 0 }\n\n"

// TestRewriteSemantics: what yaegi runs after the rewrite means what the Go
// compiler makes of the original (the expected values are Go's).
func TestRewriteSemantics(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"min max ints", `func F() string {
	a, b := 3, 1
	return strconv.Itoa(min(a, b, 2)) + strconv.Itoa(max(a, b, 2)) + strconv.Itoa(min(a))
}`, "133"},
		{"min max strings and constants", `const k = min(4, 2, 9)
type dist int
func F() string {
	var d1, d2 dist = 5, 3
	return min("b", "a", "c") + max("b", "a") + strconv.Itoa(k) + strconv.Itoa(int(max(d1, d2)))
}`, "ab25"},
		{"min max floats", `func F() string {
	nan := math.NaN()
	neg := math.Copysign(0, -1)
	x, y := 2.5, -1.0
	return strconv.FormatFloat(max(x, y), 'g', -1, 64) + " " +
		strconv.FormatBool(math.IsNaN(min(x, nan))) + strconv.FormatBool(math.IsNaN(max(nan, x, y))) + " " +
		strconv.FormatBool(math.Signbit(min(0.0, neg))) + strconv.FormatBool(math.Signbit(max(neg, 0.0)))
}`, "2.5 truetrue truefalse"},
		{"clear", `func F() string {
	m := map[string]int{"a": 1, "b": 2}
	s := []int{1, 2, 3}
	clear(m)
	clear(s)
	return strconv.Itoa(len(m)) + strconv.Itoa(len(s)) + strconv.Itoa(s[0]+s[1]+s[2])
}`, "030"},
		{"range over int", `func F() string {
	out := ""
	for i := range 3 {
		out += strconv.Itoa(i)
		i += 10 // changes the copy, not the iteration
	}
	var n int64 = 2
	for j := range n {
		var k int64 = j // j is an int64
		out += strconv.FormatInt(k, 10)
	}
	count := 0
	for range 4 {
		count++
	}
	var i int
	for i = range 3 {
	}
	return out + strconv.Itoa(count) + strconv.Itoa(i)
}`, "012" + "01" + "4" + "2"},
		{"closures capture per-iteration variables", `func F() string {
	var fs []func() int
	for i := 0; i < 3; i++ {
		fs = append(fs, func() int { return i })
	}
	for _, x := range []int{7, 8} {
		fs = append(fs, func() int { return x })
	}
	for k := range 2 {
		fs = append(fs, func() int { return k * 10 })
	}
	var ps []*int
	for _, i := range []int{0, 1} {
		ps = append(ps, &i)
	}
	out := ""
	for _, f := range fs {
		out += strconv.Itoa(f()) + ","
	}
	return out + strconv.Itoa(*ps[0]) + strconv.Itoa(*ps[1])
}`, "0,1,2,7,8,0,10,01"},
		{"method values of compiled types", `func F() string {
	s := sort.IntSlice{3, 1, 2}
	less := s.Less
	sorter := sort.IntSlice.Sort
	sorter(s)
	s2 := sort.IntSlice{5, 4}
	f := s2.Len
	s2 = append(s2, 9) // the method value keeps the old slice
	return strconv.FormatBool(less(1, 0)) + strconv.Itoa(s[0]) + strconv.Itoa(f())
}`, "false12"},
		{"constant min and max keep their kind", `func F() string {
	var d float64 = min(0.25, 3)
	x := min(1.5, 2)
	r := max('a', 'b')
	const c = min(0.1, 0.5)
	return strconv.FormatFloat(d, 'g', -1, 64) + " " + strconv.FormatFloat(x, 'g', -1, 64) + " " +
		string(r) + " " + strconv.FormatFloat(c*10, 'g', -1, 64)
}`, "0.25 1.5 b 1"},
		{"method values bind like Go", `type box struct{ n int }
func (b *box) inc()    { b.n++ }
func (b box) get() int { return b.n }
func F() string {
	var sb strings.Builder
	w := sb.WriteString // binds &sb
	w("hello")
	st := ssd.State{Step: 3}
	p := &st
	hash := p.Hash // a pointer method through a pointer
	st.Step = 4
	var q *ssd.Pos = &ssd.Pos{R: 1}
	_ = q
	return sb.String() + strconv.FormatBool(hash() == st.Hash())
}`, "hellotrue"},
		{"loop bodies may redeclare the copied names", `func F() string {
	var fs []func() int
	for i := 0; i < 2; i++ {
		fs = append(fs, func() int { return i })
		i := 10 * i // a new i, legal in Go
		_ = i
	}
	for i := range 2 {
		i := i + 100
		fs = append(fs, func() int { return i })
	}
	a := []int{0}
	for a[0] = range 3 {
	}
	out := ""
	for _, f := range fs {
		out += strconv.Itoa(f()) + ","
	}
	return out + strconv.Itoa(a[0])
}`, "0,1,100,101,2"},
		{"range over a string gives byte offsets", `func F() string {
	out := ""
	for i, r := range "aéb" + string([]byte{0xe2, 0x82}) + "z" {
		out += strconv.Itoa(i) + ":" + strconv.Itoa(int(r)) + " "
	}
	n := 0
	for range "日本" {
		n++
	}
	var k int
	var c rune
	for k, c = range "xé" {
	}
	return out + strconv.Itoa(n) + " " + strconv.Itoa(k) + string(c)
}`, "0:97 1:233 3:98 4:65533 5:65533 6:122 2 1é"},
		{"range assigning to declared variables", `func F() string {
	var k, v int
	for k, v = range []int{4, 5, 6} {
	}
	m := map[string]int{"a": 1}
	var key string
	for key = range m {
	}
	var e int
	for _, e = range [2]int{8, 9} {
	}
	return strconv.Itoa(k) + strconv.Itoa(v) + key + strconv.Itoa(e)
}`, "26a9"},
		{"return of several values to named results", `func swap(a, b int) (x, y int) {
	x, y = a, b
	return y, x
}
func F() string {
	p, q := swap(1, 2)
	return strconv.Itoa(p) + strconv.Itoa(q)
}`, "21"},
		{"named results start at zero", `var gx int
func setr() (r int) {
	r = 10
	r += gx
	return
}
func inner() (r int) {
	r++
	return
}
func outer() (r int) {
	r = 5
	return inner()
}
func F() string {
	gx = 1
	gx = setr()
	x := 5
	f := func() (r int) { r += 1; return }
	x = f()
	return strconv.Itoa(gx) + " " + strconv.Itoa(x) + " " + strconv.Itoa(outer())
}`, "11 1 1"},
		{"map literal in the left operand of a logical operator", `func F() string {
	ok := len("3") > 0
	b := len(map[int]bool{4: false}) > 0 && ok
	c := len(map[ssd.Pos]int{{R: 1, C: 2}: 1}) > 5 || ok && len(map[int]int{1: 1}) > 0
	return strconv.FormatBool(b) + strconv.FormatBool(c)
}`, "truetrue"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			src := rwHeader + c.body + "\n"
			native := nativeF(t, src)
			if native != c.want {
				t.Fatalf("the Go compiler gives %q; the test expects %q", native, c.want)
			}
			if got := runF(t, src); got != native {
				t.Fatalf("yaegi gives %q, Go gives %q", got, native)
			}
		})
	}
}

func TestRewriteRefuses(t *testing.T) {
	for _, c := range []struct {
		name, body, want string
	}{
		{"captured and modified", `func F() string {
	var fs []func() int
	for i := 0; i < 6; i++ {
		fs = append(fs, func() int { return i })
		i++
	}
	return ""
}`, "loop variable i is captured by a closure"},
		{"changed through a pointer method", `type queue struct{ items []int }
func (q *queue) pop() int { x := q.items[0]; q.items = q.items[1:]; return x }
func F() string {
	var fs []func() int
	for q := (queue{items: []int{5, 6}}); len(q.items) > 0; {
		fs = append(fs, func() int { return len(q.items) })
		q.pop()
	}
	return ""
}`, "loop variable q is captured by a closure"},
		{"changed through an element", `func F() string {
	var fs []func() int
	for a := [1]int{0}; a[0] < 3; {
		fs = append(fs, func() int { return a[0] })
		a[0]++
	}
	return ""
}`, "loop variable a is captured by a closure"},
		{"address taken and modified", `func F() string {
	var ps []*int
	for i := 0; i < 2; i++ {
		ps = append(ps, &i)
	}
	return ""
}`, "loop variable i is captured by a closure (or its address is taken)"},
		{"range over func", `func F() string {
	seq := func(yield func(int) bool) { yield(1) }
	for x := range seq {
		_ = x
	}
	return ""
}`, "range over a function"},
		{"clear NaN keys", `func F() string {
	m := map[float64]int{}
	clear(m)
	return ""
}`, "clear on a map whose keys may be NaN"},
		{"local type", `func F() string {
	type cell struct{ r, c int }
	a, b := cell{1, 2}, cell{0, 0}
	_ = min(len([]cell{a, b}), 3)
	m := map[cell]int{}
	clear(m)
	return ""
}`, "type map[cell]int is declared inside a function"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cc, err := Validate([]byte(rwHeader + c.body + "\n"))
			if err != nil {
				t.Fatalf("validate: %v", err)
			}
			_, err = rewriteForYaegi(cc)
			var ve *ValidationError
			if !errors.As(err, &ve) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "the yaegi backend cannot run this") {
				t.Fatalf("got %v, want a refusal mentioning %q", err, c.want)
			}
		})
	}
}

// TestRewriteKeepsLines: every line of the original is still where it was,
// so panic and compile positions refer to the author's source.
func TestRewriteKeepsLines(t *testing.T) {
	src := rwHeader + `func F() string {
	x := min(1.5, 2)
	for i := range 3 {
		x += float64(max(i, 1))
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
`
	c, err := Validate([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	code, err := rewriteForYaegi(c)
	if err != nil {
		t.Fatal(err)
	}
	orig := strings.Split(src, "\n")
	got := strings.Split(string(code), "\n")
	for i, l := range orig {
		if strings.Contains(l, "return strconv") && got[i] != l {
			t.Fatalf("line %d moved: %q vs %q", i+1, got[i], l)
		}
	}
	if got, want := runF(t, src), nativeF(t, src); got != want || want != "5.5" {
		t.Fatalf("yaegi %q, Go %q, want 5.5", got, want)
	}
}
