// Package sentinelcmd holds what Sentinel's two programs share: the report output flags and
// writers, flag values, completion helpers, the registry their top-level commands are built
// from, and the hand-off from `sentinel` to `sentinel-proxy`.
//
// Sentinel ships as two binaries so that the commands run most often start fast. `sentinel`
// holds probe, deprecations, rules, diff, baseline and badge; `sentinel-proxy` holds the
// long-running commands about live traffic (proxy, shim, tui, ca, findings), which link the
// HTTP proxy, the SQLite and PostgreSQL drivers and the terminal UI. Go runs every linked
// package's initialisers at start whatever the command, and those dependencies' were about
// half of `sentinel version`'s start-up (docs/performance.md). A user still types
// `sentinel proxy ...`: sentinel hands those commands to sentinel-proxy (Live, ExecLive).
//
// It imports the harness (report, rules, wire), so the broker's and the fixture's commands
// must not import it; what every program shares is in cmd/internal/cli.
package sentinelcmd
