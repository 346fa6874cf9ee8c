package pgtest

import (
	"context"
	"fmt"
	"path/filepath"
)

// Pause stops the server but keeps its data, so a test can observe how a client behaves while
// the database is down; Resume starts it again on the same socket.
func (c *Cluster) Pause(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	if out, err := c.run(ctx, "pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-m", "fast", "-w", "stop"); err != nil {
		return fmt.Errorf("pausing the cluster in %s: %w\n%s", c.Dir, err, out)
	}
	return nil
}

// Resume starts a paused server with the options Start used.
func (c *Cluster) Resume(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	opts := fmt.Sprintf("-c listen_addresses='' -k %s -c fsync=off -c full_page_writes=off", c.Dir)
	if out, err := c.run(ctx, "pg_ctl", "-D", filepath.Join(c.Dir, "data"), "-l", filepath.Join(c.Dir, "log"), "-w", "-t", "50", "-o", opts, "start"); err != nil {
		return fmt.Errorf("resuming the cluster in %s: %w\n%s", c.Dir, err, out)
	}
	return nil
}
