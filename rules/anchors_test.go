package rules

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"testing"
)

// readAnchors loads testdata/anchors.txt, generated from the spec source by
// testdata/gen-anchors.sh, so that this test needs neither the network nor the spec mirror.
func readAnchors(t *testing.T) map[string]bool {
	t.Helper()
	f, err := os.Open("testdata/anchors.txt")
	if err != nil {
		t.Fatalf("opening the anchor list: %v", err)
	}
	defer f.Close()
	set := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		set[sc.Text()] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the anchor list: %v", err)
	}
	return set
}

func TestEveryRuleURLNamesARealHeading(t *testing.T) {
	anchors := readAnchors(t)
	urls := map[string]string{}
	for _, r := range All() {
		urls[r.SpecURL] = "rule " + r.Name
	}
	for _, d := range Deprecations() {
		urls[d.SpecURL] = "deprecation " + d.Key
	}
	for _, r := range Removals() {
		urls[r.SpecURL] = "removal " + r.Key
	}
	for u, who := range urls {
		page, anchor, ok := SplitSpecURL(u)
		if !ok {
			t.Errorf("%s: URL %s is not under SpecBase", who, u)
			continue
		}
		key := page
		if anchor != "" {
			key += "#" + anchor
		}
		if !anchors[key] {
			t.Errorf("%s: %s is not a heading of the spec (regenerate testdata/anchors.txt if the spec moved)", who, key)
		}
	}
}

func TestSpecPagesMatchTheSpecSource(t *testing.T) {
	var fromFile []string
	for k := range readAnchors(t) {
		if !strings.Contains(k, "#") {
			fromFile = append(fromFile, k)
		}
	}
	sort.Strings(fromFile)
	pages := append([]string(nil), SpecPages...)
	sort.Strings(pages)
	if strings.Join(fromFile, "\n") != strings.Join(pages, "\n") {
		t.Fatalf("SpecPages = %q\nspec source pages = %q", pages, fromFile)
	}
}
