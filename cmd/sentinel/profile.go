package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// profileRateHz is the CPU profile's sampling rate: a scan takes tens of milliseconds, which the
// default 100 Hz samples a handful of times; at 1 kHz one scan gives enough samples to compare
// (and profiles of several scans merge with `go tool pprof a b c`).
const profileRateHz = 1000

// profileFlags are probe's hidden developer flags: where to write a CPU and a heap-allocation
// profile of the whole command. Hidden because they are for whoever makes the scan faster
// (docs/performance.md), not for an operator.
type profileFlags struct {
	cpu, mem string
}

func addProfileFlags(cmd *cobra.Command, p *profileFlags) {
	f := cmd.Flags()
	f.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of the command to this file (developers)")
	f.StringVar(&p.mem, "memprofile", "", "write an allocation profile of the command to this file (developers)")
	_ = f.MarkHidden("cpuprofile")
	_ = f.MarkHidden("memprofile")
}

// start begins the CPU profile, if asked for, turns the allocation profile on only if asked for,
// and returns what writes both profiles at the end.
func (p profileFlags) start() (stop func() error, err error) {
	var cpu *os.File
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		runtime.SetCPUProfileRate(profileRateHz)
		if err := pprof.StartCPUProfile(cpu); err != nil {
			_ = cpu.Close()
			return nil, fmt.Errorf("--cpuprofile: starting the profile: %w", err)
		}
	}
	// The runtime samples one allocation per 512 KiB by default, each with a stack walk and,
	// the first time, a 1.4 MB bucket table: about 2% of a scan's CPU for a profile that only
	// --memprofile reads. Set before scanGC's allocation, the first of the scan.
	runtime.MemProfileRate = 0
	if p.mem != "" {
		runtime.MemProfileRate = 4096
	}
	return func() error {
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
		}
		if p.mem == "" {
			return nil
		}
		f, err := os.Create(p.mem)
		if err != nil {
			return fmt.Errorf("--memprofile: %w", err)
		}
		// The allocation profile holds only what the last collection published; a scan at
		// GOGC=400 often ends before its first, which left a profile of prepareHeap alone.
		runtime.GC()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			_ = f.Close()
			return fmt.Errorf("--memprofile: writing the profile: %w", err)
		}
		return f.Close()
	}, nil
}
