// Package sqlitebusy retries an operation on a SQLite file while another process holds the lock
// it needs. Two stores opening one fresh file together (proxies or broker replicas started at
// once) race to switch it to WAL, and the loser's connection can fail with SQLITE_BUSY before its
// busy timeout applies; the findings store and the broker's store both open files that way.
package sqlitebusy

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Wait bounds how long Retry retries.
const Wait = 5 * time.Second

// Retry runs f, and again while it fails with SQLITE_BUSY, for at most Wait or until ctx ends.
// There is no event to wait on — the lock is another process's — so it backs off from 5 ms up to
// 200 ms between tries. Any other error, or success, returns at once.
func Retry(ctx context.Context, f func() error) error {
	deadline := time.Now().Add(Wait)
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		err := f()
		if err == nil || !IsBusy(err) || time.Now().After(deadline) {
			return err
		}
		backoff := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			backoff.Stop()
			return fmt.Errorf("%w (last try: %w)", ctx.Err(), err)
		case <-backoff.C:
		}
	}
}

// IsBusy reports whether err is SQLite's SQLITE_BUSY (code 5, with any extended code).
func IsBusy(err error) bool {
	var coded interface{ Code() int }
	return errors.As(err, &coded) && coded.Code()&0xff == 5
}
