package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// Start-up is work no command asked for: every package linked into the binary runs its
// initialisers before main, whatever the command. These tests read what `sentinel version`
// initialises (GODEBUG=inittrace=1) and hold it to a list and a budget, so a regular expression
// compiled at package level, a table built at start-up or a new heavy dependency shows up here
// instead of as a slower CLI. Allocation counts are deterministic for a build; times are not,
// and no test asserts one (make measure times start-up).

// initsFile lists, one per line, our packages and the third-party modules whose initialisers run
// for `sentinel version`. Regenerate it with `go test ./cmd/sentinel -run TestVersionInitialisers
// -update` and review the diff: a new line is start-up cost every command pays.
const initsFile = "testdata/version-inits.txt"

// ownInitBudget bounds what one of our packages may allocate at initialisation: error values and
// small literal maps fit; a regular expression, a parsed template or a built index does not.
// The allocation count allows for sync.OnceValue, the fix the budget asks for, at two small
// allocations each (eval declares sixty-odd: 126–130 allocations, about 7 KiB, depending on
// what else is linked); the byte budget is what keeps real work out of initialisation.
const (
	ownInitBytes  = 8 << 10
	ownInitAllocs = 192
)

// thirdPartyInitBytes bounds one third-party package's initialisation, except the ones in
// heavyInits, each with the reason it is still linked.
const thirdPartyInitBytes = 64 << 10

// heavyInits are the third-party packages allowed past thirdPartyInitBytes, and why. None is
// left: the JSON Schema validator that compiled five drafts' meta-schemas at init (1.7 MB, 21k
// allocations, half of start-up) was replaced by internal/jsonschema, which builds nothing
// before it is called; the old one is linked into tests only, as an oracle.
var heavyInits = map[string]string{}

// initRecord is one "init" line of GODEBUG=inittrace=1.
type initRecord struct {
	pkg           string
	bytes, allocs int
}

// versionInits runs `sentinel version` with the init trace on and returns its records.
func versionInits(t *testing.T) []initRecord {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), sentinelBin(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sentinel version: %v\n%s", err, out)
	}
	var recs []initRecord
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		// init github.com/x/y @1.2 ms, 0.01 ms clock, 264 bytes, 8 allocs
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," || f[10] != "allocs" {
			continue
		}
		b, err1 := strconv.Atoi(f[7])
		a, err2 := strconv.Atoi(f[9])
		if err1 != nil || err2 != nil {
			t.Fatalf("unreadable init trace line %q", sc.Text())
		}
		recs = append(recs, initRecord{pkg: f[1], bytes: b, allocs: a})
	}
	if len(recs) < 10 {
		t.Fatalf("the init trace had %d records; GODEBUG=inittrace=1 did not take:\n%s", len(recs), out)
	}
	return recs
}

// initLines are the lines of initsFile for recs: each of our packages, then each third-party
// module (the standard library is not listed: it comes with the toolchain). mods are the module
// paths linked into the binary.
func initLines(t *testing.T, recs []initRecord, mods []string) []string {
	own, modules := map[string]bool{}, map[string]bool{}
	for _, r := range recs {
		switch {
		case strings.HasPrefix(r.pkg, modulePath+"/") || r.pkg == modulePath:
			own[r.pkg] = true
		case strings.Contains(strings.SplitN(r.pkg, "/", 2)[0], "."):
			m := moduleFor(r.pkg, mods)
			if m == "" {
				t.Fatalf("package %s belongs to no module linked into the binary (go version -m)", r.pkg)
			}
			modules[m] = true
		}
	}
	var lines []string
	for _, set := range []map[string]bool{own, modules} {
		part := make([]string, 0, len(set))
		for k := range set {
			part = append(part, k)
		}
		slices.Sort(part)
		lines = append(lines, part...)
	}
	return lines
}

const modulePath = "github.com/mcp-sentinel/sentinel"

// linkedModules lists the module paths `go version -m` reports for the binary.
func linkedModules(t *testing.T) []string {
	t.Helper()
	out, err := exec.CommandContext(t.Context(), "go", "version", "-m", sentinelBin(t)).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	var mods []string
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "dep" {
			mods = append(mods, f[1])
		}
	}
	return mods
}

// moduleFor is the longest of mods that contains pkg (the init trace escapes a dot in the last
// path element as %2e).
func moduleFor(pkg string, mods []string) string {
	pkg = strings.ReplaceAll(pkg, "%2e", ".")
	best := ""
	for _, m := range mods {
		if (pkg == m || strings.HasPrefix(pkg, m+"/")) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// TestVersionInitialisers: the packages of ours and the third-party modules whose initialisers
// run for `sentinel version` are exactly those testdata/version-inits.txt lists, so a new one
// is a reviewed decision.
func TestVersionInitialisers(t *testing.T) {
	got := initLines(t, versionInits(t), linkedModules(t))
	path := filepath.FromSlash(initsFile)
	header := "# Packages of ours and third-party modules whose initialisers run for `sentinel version`.\n" +
		"# Every command pays for them at start-up. Regenerate: go test ./cmd/sentinel -run TestVersionInitialisers -update\n"
	if *update {
		if err := os.WriteFile(path, []byte(header+strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading %s (run with -update to create it): %v", path, err)
	}
	var want []string
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			want = append(want, l)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("%s now runs initialisers for `sentinel version`; if that is start-up cost worth paying on every command, add it to %s (-update)", g, initsFile)
		}
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("%s no longer runs initialisers for `sentinel version`: remove it from %s (-update)", w, initsFile)
		}
	}
	if n := len(got); n > 40 {
		t.Errorf("%d packages and modules initialise for `sentinel version`; the list is meant to stay short", n)
	}
}

// TestVersionInitialisersStayInBudget: none of our packages builds anything at initialisation,
// and no third-party package allocates past thirdPartyInitBytes unless heavyInits says why.
func TestVersionInitialisersStayInBudget(t *testing.T) {
	for _, r := range versionInits(t) {
		switch {
		case strings.HasPrefix(r.pkg, modulePath):
			if r.bytes > ownInitBytes || r.allocs > ownInitAllocs {
				t.Errorf("%s allocates %d bytes in %d allocations at initialisation (budget %d bytes, %d allocations): build it on first use (sync.OnceValue)",
					r.pkg, r.bytes, r.allocs, ownInitBytes, ownInitAllocs)
			}
		case heavyInits[r.pkg] != "":
		case r.bytes > thirdPartyInitBytes:
			t.Errorf("%s allocates %d bytes at initialisation, past %d: every command pays for it (add it to heavyInits only with the reason it must stay linked)",
				r.pkg, r.bytes, thirdPartyInitBytes)
		}
	}
	for pkg := range heavyInits {
		found := false
		for _, r := range versionInits(t) {
			found = found || r.pkg == pkg
		}
		if !found {
			t.Errorf("heavyInits names %s, which no longer initialises: remove it", pkg)
		}
	}
}

// TestModuleFor pins how a package is placed in its module: the longest module path wins, and
// the trace's escaped dot is read as a dot.
func TestModuleFor(t *testing.T) {
	mods := []string{"go.opentelemetry.io/otel", "go.opentelemetry.io/otel/sdk", "gopkg.in/yaml.v3", "github.com/jackc/pgx/v5"}
	for in, want := range map[string]string{
		"go.opentelemetry.io/otel/sdk/trace":  "go.opentelemetry.io/otel/sdk",
		"go.opentelemetry.io/otel/attribute":  "go.opentelemetry.io/otel",
		"gopkg.in/yaml%2ev3":                  "gopkg.in/yaml.v3",
		"github.com/jackc/pgx/v5/pgtype":      "github.com/jackc/pgx/v5",
		"github.com/jackc/pgxpool":            "",
		"go.opentelemetry.io/otelx/something": "",
	} {
		if got := moduleFor(in, mods); got != want {
			t.Errorf("moduleFor(%q) = %q, want %q", in, got, want)
		}
	}
}
