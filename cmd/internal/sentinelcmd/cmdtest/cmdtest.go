// Package cmdtest checks a program's sentinelcmd.Registry the same way for both of Sentinel's
// programs. Only tests import it.
package cmdtest

import (
	"bytes"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
	"github.com/mcp-sentinel/sentinel/cmd/internal/sentinelcmd"
)

// CheckNames: the name and aliases each subcommand is registered under are the ones the command
// it builds answers to, no two registrations share one, and the whole tree (bare with every
// registration) holds exactly the registered commands. RootFor relies on all three to build one
// command alone.
func CheckNames(t *testing.T, r *sentinelcmd.Registry, bare func() *cobra.Command) {
	t.Helper()
	seen := map[string]bool{}
	for _, s := range r.All() {
		c := s.Build()
		if c.Name() != s.Name || !slices.Equal(c.Aliases, s.Aliases) {
			t.Errorf("registered as %q %q, but the command it builds is %q %q", s.Name, s.Aliases, c.Name(), c.Aliases)
		}
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			if seen[n] {
				t.Errorf("%q is registered twice", n)
			}
			seen[n] = true
		}
	}
	var built []string
	for _, c := range r.RootFor(bare, nil).Commands() {
		built = append(built, c.Name())
	}
	var registered []string
	for _, s := range r.All() {
		registered = append(registered, s.Name)
	}
	slices.Sort(built)
	slices.Sort(registered)
	if !slices.Equal(built, registered) {
		t.Errorf("the whole tree has %q, the registrations %q", built, registered)
	}
}

// CheckPartialTreeHelp: for every command but those skip names (first words), what `CMD...
// --help` and a bad flag print is the same whether the process built the whole tree or only the
// command named first.
func CheckPartialTreeHelp(t *testing.T, r *sentinelcmd.Registry, bare func() *cobra.Command, skip ...string) {
	t.Helper()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if len(path) == 1 && slices.Contains(skip, path[0]) {
			return
		}
		if len(path) > 0 {
			paths = append(paths, path)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(r.RootFor(bare, nil), nil)
	if len(paths) < len(r.All())-len(skip) {
		t.Fatalf("walked %d commands, fewer than the %d registered", len(paths), len(r.All())-len(skip))
	}
	run := func(root *cobra.Command, args []string) (int, string) {
		var out bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&out)
		code := cli.Main(root, args, &out)
		return code, out.String()
	}
	for _, path := range paths {
		for _, extra := range [][]string{{"--help"}, {"--no-such-flag"}} {
			args := append(slices.Clone(path), extra...)
			wantCode, want := run(r.RootFor(bare, nil), args)
			gotCode, got := run(r.RootFor(bare, args), args)
			if gotCode != wantCode || got != want {
				t.Errorf("%q: the partial tree exits %d and prints\n%s\nthe whole tree exits %d and prints\n%s", args, gotCode, got, wantCode, want)
			}
		}
	}
}
