// Package cmdtest checks a program's sentinelcmd.Registry the same way for both of Sentinel's
// programs. Only tests import it.
package cmdtest

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

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

// Execute runs root with args as cobra does, errors silenced, and returns what it printed on
// standard output (with "error: " and the error appended when it failed) and the exit code the
// contract gives the error.
func Execute(t *testing.T, root *cobra.Command, args ...string) (string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errOut)
	root.SetArgs(args)
	root.SilenceErrors, root.SilenceUsage = true, true
	err := root.Execute()
	if err != nil {
		out.WriteString("error: " + err.Error())
	}
	return out.String(), cli.ExitCode(err)
}

// Main runs root with args through cli.Main, as a program's main does, and returns the exit code
// and what it printed on each stream.
func Main(root *cobra.Command, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	code = cli.Main(root, args, &errb)
	return code, out.String(), errb.String()
}

// CheckNoFakeArgument: cobra reads a `backquoted` word in a flag's usage as the name of its
// argument, so "--mitm sentinel ca init" looked like a flag taking three words. No usage in the
// tree under root quotes with backticks, and a boolean flag shows no argument at all.
func CheckNoFakeArgument(t *testing.T, root *cobra.Command) {
	t.Helper()
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if strings.Contains(f.Usage, "`") {
				t.Errorf("%s --%s: usage %q has a backtick", c.CommandPath(), f.Name, f.Usage)
			}
			if name, _ := pflag.UnquoteUsage(f); f.Value.Type() == "bool" && name != "" {
				t.Errorf("%s --%s is a boolean but shows the argument %q", c.CommandPath(), f.Name, name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
