package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ArtifactsEnv names the folder where the report test keeps what
// Chromium made of the page (screenshots, DOM) and the page itself; by
// default a temporary folder, removed after the test.
const ArtifactsEnv = "POLICYEVOLVE_REPORT_ARTIFACTS"

// chromiumTimeout bounds one Chromium run. Starting a browser on a busy
// 2-core machine takes seconds to tens of seconds: minutes is generous.
const chromiumTimeout = 5 * time.Minute

// testChromium opens the page in headless Chromium: a screenshot at a
// wide and at a phone's width, kept as artefacts, in which the charts'
// colours must appear; and the DOM as Chromium built it, which must hold
// the SVG charts, the replay and the champion's id.
func testChromium(t *testing.T, page, champion string) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("no chromium or chromium-browser on PATH: the page is not rendered (.ci/run installs Debian's chromium)")
	}
	art := os.Getenv(ArtifactsEnv)
	if art == "" {
		art = t.TempDir()
	} else if err := os.MkdirAll(art, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(art, "report.html"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	url := "file://" + page
	for i, shot := range []struct {
		name string
		w, h int
	}{{"wide", 1280, 2400}, {"phone", 390, 2400}} {
		file := filepath.Join(art, "report-"+shot.name+".png")
		args := []string{fmt.Sprintf("--window-size=%d,%d", shot.w, shot.h), "--hide-scrollbars", "--screenshot=" + file}
		if i == 0 {
			args = append(args, "--dump-dom") // one start of the browser for both
		}
		out := chromium(t, bin, append(args, url)...)
		if i == 0 {
			checkDOM(t, string(out), string(src), champion)
			os.WriteFile(filepath.Join(art, "report-dom.html"), out, 0o644)
		}
		f, err := os.Open(file)
		if err != nil {
			t.Fatalf("%s screenshot: %v", shot.name, err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s screenshot: %v", shot.name, err)
		}
		// The champion's line (red) and the best's (blue) are drawn.
		red, blue := countNear(img, 0xd1, 0x49, 0x5b), countNear(img, 0x2e, 0x6f, 0xdb)
		if img.Bounds().Dx() != shot.w || red < 50 || blue < 50 {
			t.Errorf("%s screenshot %v: %d red and %d blue pixels of the charts", shot.name, img.Bounds(), red, blue)
		}
		t.Logf("%s screenshot: %s (%d red, %d blue chart pixels)", shot.name, file, red, blue)
	}
}

// checkDOM checks the DOM Chromium built from the page src: its SVG
// charts, the replay image and the champion's id.
func checkDOM(t *testing.T, dom, src, champion string) {
	t.Helper()
	if got, want := strings.Count(dom, "<svg"), strings.Count(src, "<svg"); got != want || got == 0 {
		t.Errorf("Chromium's DOM has %d svg elements, the page %d", got, want)
	}
	if n := strings.Count(dom, "<polyline"); n == 0 {
		t.Error("Chromium's DOM has no chart lines")
	}
	if m := regexp.MustCompile(`id="champion-id"[^>]*>([0-9a-f]+)<`).FindStringSubmatch(dom); m == nil || m[1] != champion {
		t.Errorf("Chromium's DOM does not name the champion %.12s in #champion-id", champion)
	}
	if !strings.Contains(dom, `src="data:image/gif;base64,`) {
		t.Error("Chromium's DOM has no replay image")
	}
}

// chromium runs headless Chromium with args and returns its standard
// output. It runs in a process group of its own, with its profile and
// home in a temporary folder, and the whole group is killed when it ends,
// times out or the test ends: no browser process outlives the test.
func chromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), chromiumTimeout)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-dev-shm-usage", "--user-data-dir=" + filepath.Join(home, "profile")}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+home, "XDG_CACHE_HOME="+home)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 30 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // helpers left behind, if any
	}
	if err != nil {
		t.Fatalf("chromium %s: %v (timeout %v)\n%s", strings.Join(args, " "), err, chromiumTimeout, stderr.String())
	}
	return stdout.Bytes()
}

// countNear counts the pixels within a small distance of a colour.
func countNear(img image.Image, r, g, b uint8) int {
	n := 0
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr>>8, r) && near(cg>>8, g) && near(cb>>8, b) {
				n++
			}
		}
	}
	return n
}

func near(a uint32, b uint8) bool { return a+24 >= uint32(b) && a <= uint32(b)+24 }
