package eval

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"
)

// StubJudge is a deterministic Judge for tests and demos: a fixed verdict, optionally after a
// delay, or a fixed error. Calls counts invocations, which is how tests prove the judge was (or
// was not) consulted.
type StubJudge struct {
	// Verdict is returned when Err is nil and the delay elapses before the deadline.
	Verdict JudgeVerdict
	// Delay is how long each call takes; 0 answers at once.
	Delay time.Duration
	// IgnoreDeadline makes the stub sleep through its context's deadline, like a misbehaving
	// client would; the Evaluator must still return on time.
	IgnoreDeadline bool
	// Err, when set, is returned instead of a verdict.
	Err error
	// Name is what Model reports; "" means "stub".
	Name  string
	calls atomic.Int64
}

var _ Judge = (*StubJudge)(nil)

// FixedJudge answers every request with score and reason at once.
func FixedJudge(score float64, reason string) *StubJudge {
	return &StubJudge{Verdict: JudgeVerdict{Score: score, Reason: reason}, Name: "stub-fixed"}
}

// SlowJudge answers score 0 after d, honouring its context's deadline.
func SlowJudge(d time.Duration) *StubJudge {
	return &StubJudge{Delay: d, Verdict: JudgeVerdict{Reason: "slow stub"}, Name: "stub-slow"}
}

// ErrorJudge fails every request with err.
func ErrorJudge(err error) *StubJudge {
	return &StubJudge{Err: err, Name: "stub-error"}
}

// Judge returns the configured verdict or error.
func (s *StubJudge) Judge(ctx context.Context, _ JudgeRequest) (JudgeVerdict, error) {
	s.calls.Add(1)
	if s.Delay > 0 {
		if s.IgnoreDeadline {
			time.Sleep(s.Delay)
		} else {
			t := time.NewTimer(s.Delay)
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
				return JudgeVerdict{}, fmt.Errorf("stub judge: %w", ctx.Err())
			}
		}
	}
	if s.Err != nil {
		return JudgeVerdict{}, s.Err
	}
	return s.Verdict, nil
}

// Model names the stub.
func (s *StubJudge) Model() string {
	if s.Name == "" {
		return "stub"
	}
	return s.Name
}

// Calls reports how many times Judge was called.
func (s *StubJudge) Calls() int { return int(s.calls.Load()) }
