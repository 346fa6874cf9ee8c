package main

import (
	"bytes"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/cmd/internal/cli"
)

// TestSubcommandNames: the name and aliases each subcommand is registered under are the ones
// the command it builds answers to, no two registrations share one, and the whole tree holds
// exactly the registered commands. newRootFor relies on all three to build one command alone.
func TestSubcommandNames(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range subcommands {
		c := s.build()
		if c.Name() != s.name || !slices.Equal(c.Aliases, s.aliases) {
			t.Errorf("registered as %q %q, but the command it builds is %q %q", s.name, s.aliases, c.Name(), c.Aliases)
		}
		for _, n := range append([]string{s.name}, s.aliases...) {
			if seen[n] {
				t.Errorf("%q is registered twice", n)
			}
			seen[n] = true
		}
	}
	var built []string
	for _, c := range newRoot().Commands() {
		built = append(built, c.Name())
	}
	var registered []string
	for _, s := range subcommands {
		registered = append(registered, s.name)
	}
	slices.Sort(built)
	slices.Sort(registered)
	if !slices.Equal(built, registered) {
		t.Errorf("the whole tree has %q, the registrations %q", built, registered)
	}
}

// TestPartialTreeHelpIsTheSame: for every command, what `sentinel CMD... --help` and a bad flag
// print is the same whether the process built the whole tree or only the command named first.
func TestPartialTreeHelpIsTheSame(t *testing.T) {
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		if len(path) > 0 {
			paths = append(paths, path)
		}
		for _, sub := range c.Commands() {
			walk(sub, append(slices.Clone(path), sub.Name()))
		}
	}
	walk(newRoot(), nil)
	if len(paths) < len(subcommands) {
		t.Fatalf("walked %d commands, fewer than the %d registered", len(paths), len(subcommands))
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
			wantCode, want := run(newRoot(), args)
			gotCode, got := run(newRootFor(args), args)
			if gotCode != wantCode || got != want {
				t.Errorf("sentinel %q: the partial tree exits %d and prints\n%s\nthe whole tree exits %d and prints\n%s", args, gotCode, got, wantCode, want)
			}
		}
	}
	if len(newRootFor([]string{"scan"}).Commands()) != 1 {
		t.Error("an alias did not build its command alone")
	}
}
