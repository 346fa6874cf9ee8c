package sqlitebusy

import (
	"context"
	"errors"
	"testing"
)

// codedErr is an error with a SQLite result code, as the driver's errors have.
type codedErr int

func (c codedErr) Error() string { return "sqlite error" }
func (c codedErr) Code() int     { return int(c) }

func TestRetry(t *testing.T) {
	other := errors.New("not busy")
	tests := []struct {
		name      string
		errs      []error // what f returns on each call; the last repeats
		wantCalls int
		wantErr   bool
	}{
		{"succeeds at once", []error{nil}, 1, false},
		{"busy, then free", []error{codedErr(5), codedErr(5 | 2<<8), nil}, 3, false},
		{"another error is not retried", []error{other}, 1, true},
		{"locked (6) is not busy", []error{codedErr(6)}, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := Retry(t.Context(), func() error {
				e := tt.errs[min(calls, len(tt.errs)-1)]
				calls++
				return e
			})
			if calls != tt.wantCalls || (err != nil) != tt.wantErr {
				t.Errorf("Retry: %d calls, err %v; want %d calls, error %v", calls, err, tt.wantCalls, tt.wantErr)
			}
		})
	}
}

func TestRetryStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	err := Retry(ctx, func() error {
		calls++
		if calls == 2 {
			cancel()
		}
		return codedErr(5)
	})
	if !errors.Is(err, context.Canceled) || calls != 2 {
		t.Errorf("Retry after cancel: %d calls, err %v; want 2 calls and context.Canceled", calls, err)
	}
}
