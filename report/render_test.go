package report

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/mcp-sentinel/sentinel/rules"
)

func TestNewRejectsUnknownFormat(t *testing.T) {
	_, err := New("pdf", nil)
	if err == nil {
		t.Fatal(`New("pdf") = nil error, want one listing the valid formats`)
	}
	for _, f := range Formats() {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("New(%q) error %q does not list %q", "pdf", err, f)
		}
	}
}

func TestNewAcceptsEveryFormatWithNilOptions(t *testing.T) {
	for _, f := range Formats() {
		rd, err := New(f, nil)
		if err != nil || rd == nil {
			t.Fatalf("New(%q, nil) = %v, %v; want a renderer", f, rd, err)
		}
		var buf bytes.Buffer
		if err := rd.Render(&buf, testResult(rules.Must, rules.Fail)); err != nil || buf.Len() == 0 {
			t.Errorf("%s Render = %v with %d bytes, want output and no error", f, err, buf.Len())
		}
	}
}

// failingWriter accepts `budget` writes, then fails every write and counts the attempts.
type failingWriter struct {
	budget, attempts int
}

var errDiskFull = errors.New("disk full")

func (w *failingWriter) Write(p []byte) (int, error) {
	w.attempts++
	if w.budget > 0 {
		w.budget--
		return len(p), nil
	}
	return 0, errDiskFull
}

// TestRenderReturnsTheFirstWriteError: every format surfaces the writer's error (wrapped), and
// the streaming text renderer stops writing after the first failure.
func TestRenderReturnsTheFirstWriteError(t *testing.T) {
	r := bigResult(20)
	for _, f := range Formats() {
		budgets := []int{0}
		if f == FormatText { // the only streaming format; the others write once
			budgets = append(budgets, 3)
		}
		for _, budget := range budgets {
			rd, _ := New(f, nil)
			w := &failingWriter{budget: budget}
			err := rd.Render(w, r)
			if !errors.Is(err, errDiskFull) {
				t.Errorf("%s Render after %d good writes = %v, want it to wrap %v", f, budget, err, errDiskFull)
			}
			if w.attempts > budget+1 {
				t.Errorf("%s Render kept writing after the first error: %d attempts, want at most %d", f, w.attempts, budget+1)
			}
		}
	}
}

// TestRenderDoesNotModifyResult: renderers sort a copy; the caller's result is untouched.
func TestRenderDoesNotModifyResult(t *testing.T) {
	r := testResult(rules.Must, rules.Pass, rules.Should, rules.Fail)
	r.Rules[0], r.Rules[1] = r.Rules[1], r.Rules[0]
	first := r.Rules[0].Rule.ID
	for _, f := range Formats() {
		rd, _ := New(f, nil)
		if err := rd.Render(&bytes.Buffer{}, r); err != nil {
			t.Fatal(err)
		}
		if r.Rules[0].Rule.ID != first {
			t.Fatalf("%s Render reordered the caller's rules", f)
		}
	}
}

// TestRenderIsDeterministic: the same result renders to the same bytes every time.
func TestRenderIsDeterministic(t *testing.T) {
	r := bigResult(60)
	for _, f := range Formats() {
		rd, _ := New(f, &Options{SARIFAnchor: "main.go"})
		var a, b bytes.Buffer
		if err := rd.Render(&a, r); err != nil {
			t.Fatal(err)
		}
		if err := rd.Render(&b, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("%s renders the same result differently on two runs", f)
		}
	}
}

func TestRenderNilResultIsAnError(t *testing.T) {
	for _, f := range Formats() {
		rd, _ := New(f, nil)
		if err := rd.Render(&bytes.Buffer{}, nil); !errors.Is(err, errNilResult) {
			t.Errorf("%s Render(nil) = %v, want errNilResult", f, err)
		}
	}
}
