package tui

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"
)

// RunOptions configures Run.
type RunOptions struct {
	// AdminURL is the proxy's admin API (http://127.0.0.1:9101).
	AdminURL string
	// Token is the admin API's bearer token (sentinel tui finds it in the proxy's state file).
	Token string
	// Color turns on colour; the command passes false under NO_COLOR.
	Color bool
	// Tool names the producer in exported reports.
	Tool string
	// Capacity is how many exchanges are kept; 0 means DefaultCapacity.
	Capacity int
	// Input and Output replace the terminal (tests); nil means the process's terminal.
	Input  io.Reader
	Output io.Writer
	// Log receives Watch's connection warnings; nil discards them (the header shows them).
	Log *slog.Logger
}

// Run attaches to the admin API and runs the TUI until the user quits or ctx ends. It returns
// an error only when the TUI could not start or the terminal failed: an unreachable API is
// shown on screen and retried, not returned.
func Run(ctx context.Context, o RunOptions) error {
	client, err := NewClient(o.AdminURL, nil)
	if err != nil {
		return err
	}
	client = client.WithToken(o.Token)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cache := NewCache(o.Capacity)
	go Watch(ctx, client, cache, o.Log)
	m := New(Options{Source: cache, API: client, Context: ctx, Color: o.Color, Tool: o.Tool, Now: time.Now})
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.Input != nil {
		opts = append(opts, tea.WithInput(o.Input))
	}
	if o.Output != nil {
		opts = append(opts, tea.WithOutput(o.Output))
	}
	if _, err := tea.NewProgram(m, opts...).Run(); err != nil && ctx.Err() == nil {
		return fmt.Errorf("running the terminal UI: %w", err)
	}
	return nil
}
