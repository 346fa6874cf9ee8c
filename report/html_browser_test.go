package report

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// EnvChromium names the headless browser the HTML report is checked in; scripts/deps.sh installs
// Debian's chromium and `make test` exports its path.
const EnvChromium = "SENTINEL_CHROMIUM"

func requireChromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(EnvChromium); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	msg := "headless Chromium is missing: run `make test` (scripts/deps.sh installs Debian's chromium) or set " + EnvChromium
	if testing.Short() {
		t.Skip(msg)
	}
	t.Fatal(msg)
	return ""
}

// trap is a loopback HTTP proxy that records the request line of every connection it gets and
// answers none: the browser is pointed at it, so any request the page makes (a CDN, a font, an
// image) is seen, and nothing the browser sends leaves the machine.
type trap struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

// browserOwn matches the browser's own background requests to its vendor's services (time,
// accounts, search warm-up, the component updater's POSTs), which no flag turns off entirely; the
// page's requests are everything else.
var browserOwn = regexp.MustCompile(`^(CONNECT|GET|POST) (http://)?[a-z0-9.-]*\.(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)[:/]`)

func (tr *trap) pageRequests() []string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	var out []string
	for _, l := range tr.seen {
		if !browserOwn.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

func startTrap(t *testing.T) *trap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
			line, _ := bufio.NewReader(c).ReadString('\n')
			tr.mu.Lock()
			tr.seen = append(tr.seen, strings.TrimSpace(line))
			tr.mu.Unlock()
			_ = c.Close()
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return tr
}

// chromium runs the browser headless on page with the flags the team runs it with, and extra.
func chromium(t *testing.T, bin, page, proxy string, extra ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir(), "--proxy-server=http://" + proxy, "--proxy-bypass-list=<-loopback>"}, extra...)
	cmd := exec.CommandContext(ctx, bin, append(args, "file://"+page)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
	}
	return stdout.Bytes()
}

// browserCase is a result with a deprecation inventory and a baseline comparison, so every
// section of the page is drawn.
func browserCase(t *testing.T) *Result {
	r := loadCase(t, "testdata/fixture.result.json")
	today := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	r.Deprecations = &Inventory{Today: today, Exchanges: 127, LegacyOnly: true, Items: []DebtItem{
		{Key: "sessions", Name: "Sessions (Mcp-Session-Id)", Status: "removed", Side: "server", Source: "SEP-2575",
			RemovableOn: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC), Months: -4, Due: "removed in 2026-07-28",
			Replacement: "explicit state identifiers passed on each request"},
		{Key: "logging", Name: "Logging", Status: "deprecated", Side: "server", Source: "SEP-2577",
			DeprecatedIn: time.Date(2026, 7, 28, 0, 0, 0, 0, time.UTC), RemovableOn: time.Date(2027, 7, 28, 0, 0, 0, 0, time.UTC),
			Months: 7, Due: "removable on or after 2027-07-28 (7 months from now)", Replacement: "per-request logLevel in _meta"},
	}}
	return r
}

// TestHTMLReportInABrowser renders the HTML report of a real scan in headless Chromium and checks
// what is on the page: the DOM as the browser built it (the verdict, one article per finding, the
// chart's bars, the timeline, the indeterminate rules collapsed), that the page made no request
// at all, and, from a screenshot, that the style sheet was applied (the chart's bars are drawn in
// the report's colours, which only its CSS gives them). -update refreshes the screenshot under
// testdata/browser.
func TestHTMLReportInABrowser(t *testing.T) {
	bin := requireChromium(t)
	r := browserCase(t)
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var buf bytes.Buffer
	rd, _ := New(FormatHTML, nil)
	if err := rd.Render(&buf, r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := startTrap(t)
	dom := string(chromium(t, bin, page, tr.ln.Addr().String(), "--dump-dom"))

	tl := r.Tally()
	checks := []struct {
		what string
		re   string
		want int
	}{
		{"the verdict heading", `<h1>` + regexp.QuoteMeta(htmlText(r.VerdictLine())) + `</h1>`, 1},
		{"one article per finding", `<article class="finding `, tl.Findings},
		{"the chart", `<svg class="chart"`, 1},
		{"one timeline item per deprecation", `<g class="item `, len(r.Deprecations.Items)},
		{"the indeterminate rules, collapsed", `<details>\s*<summary>Indeterminate: `, 1},
		{"no script", `<script`, 0},
	}
	for _, c := range checks {
		if got := len(regexp.MustCompile(c.re).FindAllStringIndex(dom, -1)); got != c.want {
			t.Errorf("%s: %d matches of %q in the DOM, want %d", c.what, got, c.re, c.want)
		}
	}
	bars := regexp.MustCompile(`<rect class="bar seg-fail" data-level="(MUST|SHOULD)" data-status="fail" data-count="(\d+)"`).FindAllStringSubmatch(dom, -1)
	failBars := 0
	for _, m := range bars {
		var n int
		for _, d := range m[2] {
			n = n*10 + int(d-'0')
		}
		failBars += n
	}
	if failBars != tl.Must.Fail+tl.Should.Fail {
		t.Errorf("the chart's fail bars add up to %d rules, want %d", failBars, tl.Must.Fail+tl.Should.Fail)
	}

	shot := filepath.Join(dir, "report.png")
	chromium(t, bin, page, tr.ln.Addr().String(), "--window-size=1280,1600", "--hide-scrollbars", "--screenshot="+shot)
	img := decodePNG(t, shot)
	red, grey := countColour(img, 0xc6, 0x28, 0x28), countColour(img, 0x6d, 0x7f, 0x99)
	if red < 5000 || grey < 5000 {
		t.Errorf("the screenshot has %d pixels of the fail colour and %d of the indeterminate colour: the CSS was not applied", red, grey)
	}
	if reqs := tr.pageRequests(); len(reqs) > 0 {
		t.Errorf("the page made requests %q; the report must be self-contained", reqs)
	}
	for _, ref := range []string{"src=", "<link", "url(", "@import"} {
		if strings.Contains(buf.String(), ref) {
			t.Errorf("the page refers to an outside resource (%q)", ref)
		}
	}
	if *update {
		data, err := os.ReadFile(shot)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll("testdata/browser", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/browser/report.png", data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// htmlText escapes s the way html/template writes text.
func htmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("the screenshot is %v, want 1280x1600", b)
	}
	return img
}

// countColour counts the pixels within a small distance of one colour.
func countColour(img image.Image, r, g, b uint8) int {
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr>>8, r) && near(pg>>8, g) && near(pb>>8, b) {
				n++
			}
		}
	}
	return n
}

func near(a uint32, b uint8) bool { return a+6 >= uint32(b) && a <= uint32(b)+6 }

// TestBrowserTrapSeesAPageRequest proves the no-network check can fail: a page that loads an
// image from elsewhere is caught by the trap.
func TestBrowserTrapSeesAPageRequest(t *testing.T) {
	bin := requireChromium(t)
	page := filepath.Join(t.TempDir(), "leaky.html")
	if err := os.WriteFile(page, []byte(`<!DOCTYPE html><html><body><img src="http://cdn.sentinel-test.invalid/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := startTrap(t)
	chromium(t, bin, page, tr.ln.Addr().String(), "--dump-dom")
	if reqs := tr.pageRequests(); len(reqs) == 0 || !strings.Contains(strings.Join(reqs, " "), "cdn.sentinel-test.invalid") {
		t.Errorf("the trap saw %q, want the page's image request", reqs)
	}
}
