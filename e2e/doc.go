// Package e2e holds Sentinel's end-to-end tests: real binaries, real servers on loopback, and
// the official conformance suite. It has no non-test code; this file documents the helpers the
// tests share (helpers_test.go, process_test.go, conformance_helpers_test.go,
// legacy_session_test.go and fixture_test.go). Other suites add their own e2e/<area>_test.go files
// (for instance e2e/probe_*_test.go) and call these helpers.
//
// # Binaries
//
//	bin := BuildBinary(t, "fixture")   // go build -o <tmp>/fixture ./cmd/fixture, once per run
//	out := RunBinary(t, bin, "seeded") // run to completion (deadline 2 min); out.ExitCode, out.Stdout
//
// BuildBinary builds one command of the module (./cmd/<name>) the first time a test asks for it
// and reuses it for the rest of the run; the temporary directory is removed when the run ends.
//
// # Servers
//
//	srv := StartFixture(t, "conformant") // fixture serve conformant --listen 127.0.0.1:0
//	srv.URL                              // http://127.0.0.1:PORT/mcp, read from its stdout
//	srv := StartServer(t, bin, args...)  // any binary that prints "listening on URL"
//	srv := StartEverythingServer(t)      // the Go SDK's everything-server, mounted at "/"
//	srv := StartNodeServer(t, script, "/mcp") // a third-party Node server from SENTINEL_THIRDPARTY
//	ctx := WithDeadline(t, 10*time.Second)
//	names := FixtureSeeded(t)            // the unmigrated fixture's seeded rule names
//
// Every server binds 127.0.0.1 on a free port, must print its ready line within
// ReadyTimeout, and is stopped by PID (SIGTERM, then SIGKILL) in t.Cleanup; on Linux the kernel
// also kills it if the test process dies first. Its stderr is kept in srv.Stderr and logged when
// the test fails.
//
// # A scripted 2025-11-25 client
//
//	s := DriveLegacySession(t, url)     // initialize, every tool/resource/prompt, GET stream, DELETE
//	s.Step("tools/list").Body           // the transcript, step by step
//
// DriveLegacySession is the old client the passive proxy grades: point it at a proxy in front of
// the unmigrated fixture and every seeded violation crosses the proxy at least once. It answers
// the server's roots/list and sampling/createMessage requests as a 2025 client did.
//
// # External tools
//
//	node := RequireTool(t, EnvNodeBin)  // SENTINEL_NODE_BIN, SENTINEL_CONFORMANCE,
//	                                    // SENTINEL_EVERYTHING_SERVER, SENTINEL_PG_BIN,
//	                                    // SENTINEL_THIRDPARTY
//
// scripts/deps.sh installs them and prints their locations; `make test` exports them. A test that
// needs one and does not find it fails and says to run `make test`, except under `go test -short`,
// where it is skipped.
//
// # The official suite
//
//	res := RunConformance(t, srv.URL)   // conformance server --url URL --requirements 2026-07-28
//	res.Scored(), res.Failed(), res.Report(), res.ExitCode
//
// RunConformance runs the suite with Node 22 first on PATH, writes its results to a temporary
// directory, and aggregates every scenario's checks.json, marking which scenarios the suite scores
// for 2026-07-28.
//
// # Proofs of the verdicts
//
// TestMutationHarness (the conformant fixture's single-rule mutants, SENTINEL_MUTANTS selects),
// TestVerdictsAreStable (ten identical scans per server), TestARuleAloneGetsTheVerdictOfTheFullScan,
// the exit-code cases (probe_exit_test.go) and the third-party servers' pinned MUST failures.
//
// This package must not be imported; the fixtures it starts are separate processes, so the
// harness under test never links fixture code.
package e2e
