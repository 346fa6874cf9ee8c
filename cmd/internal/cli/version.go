package cli

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is the release version; `make build` sets it with -ldflags, and a plain `go build`
// falls back to the module version recorded in the binary.
var Version = "dev"

// VersionString returns the version with the VCS revision when the build recorded one.
func VersionString() string {
	v := Version
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " (" + s.Value[:12] + ")"
			}
		}
	}
	return v
}

// VersionCommand prints "<program> <version>". It is Instant: no signal handler is installed
// for it.
func VersionCommand(program string) *cobra.Command {
	return Instant(&cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s %s\n", program, VersionString())
			return err
		},
	})
}
