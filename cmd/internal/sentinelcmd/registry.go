package sentinelcmd

import (
	"slices"

	"github.com/spf13/cobra"
)

// Subcommand is a top-level command as registered: its name and aliases, known without building
// it, and what builds it.
type Subcommand struct {
	Name    string
	Aliases []string
	Build   func() *cobra.Command
}

// Registry is a program's top-level commands. They are registered by the files that define them
// (rules.go, probe.go, ...), so adding a command touches one file, and built lazily, so a
// process builds only the command it runs (RootFor).
type Registry struct {
	subs []Subcommand
}

// Register adds a top-level command built by build, named name (the first word of its Use) with
// aliases.
func (r *Registry) Register(build func() *cobra.Command, name string, aliases ...string) {
	r.subs = append(r.subs, Subcommand{Name: name, Aliases: aliases, Build: build})
}

// All is every registered subcommand, in registration order.
func (r *Registry) All() []Subcommand { return r.subs }

// Lookup is the registered subcommand called name or one of its aliases.
func (r *Registry) Lookup(name string) (Subcommand, bool) {
	for _, s := range r.subs {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s, true
		}
	}
	return Subcommand{}, false
}

// RootFor builds the command tree args need under the root bare returns. When args start with
// the name or an alias of a registered subcommand, that subcommand is the only one built:
// defining the flags of all of them (a hundred-odd, each with its help text and completion) and
// cobra's completion command was about a tenth of `sentinel version`, for commands the process
// would never run. Anything else (no arguments, a flag first, help, completion, a typo that
// wants suggestions) gets the whole tree. What a command prints, its help included, is the same
// in both trees (TestPartialTreeHelpIsTheSame).
func (r *Registry) RootFor(bare func() *cobra.Command, args []string) *cobra.Command {
	root := bare()
	if len(args) > 0 {
		if s, ok := r.Lookup(args[0]); ok {
			root.AddCommand(s.Build())
			// The completion command is never the one run here (it is not registered).
			root.CompletionOptions.DisableDefaultCmd = true
			return root
		}
	}
	for _, s := range r.subs {
		root.AddCommand(s.Build())
	}
	return root
}
