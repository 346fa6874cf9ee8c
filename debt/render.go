package debt

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Format names an output format of the inventory.
type Format string

// The two formats.
const (
	FormatText Format = "text"
	FormatJSON Format = "json"
)

// Render writes r in format f. It returns an error for an unknown format and the first write
// error, so a full disk or a closed pipe is not silent.
func Render(w io.Writer, r Report, f Format) error {
	switch f {
	case FormatText, "":
		return Text(w, r)
	case FormatJSON:
		return JSON(w, r)
	}
	return fmt.Errorf("rendering the inventory: unknown format %q (want text or json)", f)
}

// JSON writes r as one indented JSON document, without HTML escaping (evidence quotes peers).
func JSON(w io.Writer, r Report) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("writing the inventory as JSON: %w", err)
	}
	return nil
}

// printer keeps the first write error, so Text can write line by line and report once.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format, args...)
}

// Text writes r for people: a summary line, then one block per item with its date sentence,
// source, replacement and evidence.
func Text(w io.Writer, r Report) error {
	p := &printer{w: w}
	target := r.Target
	if target == "" {
		target = "(unknown target)"
	}
	p.f("%s\n", r.Total())
	p.f("Deprecation inventory for %s as of %s (%d exchange(s) examined)\n", target, r.Today.Format(time.DateOnly), r.Exchanges)
	if r.LegacyOnly {
		p.f("The server speaks only the initialize-era protocol: every removal it relies on is listed.\n")
	}
	if len(r.Items) == 0 {
		p.f("\nNo deprecated or removed feature was seen in use.\n")
		return wrap(p.err)
	}
	side := ""
	for _, it := range r.Items {
		if it.Side != side {
			side = it.Side
			p.f("\n%s debt:\n", strings.ToUpper(side[:1])+side[1:])
		}
		p.f("\n  [%s] %s\n", it.Status, it.Name)
		p.f("    %s\n", it.Due)
		if !it.DeprecatedIn.IsZero() {
			p.f("    deprecated since %s by %s\n", it.DeprecatedIn.Format(time.DateOnly), it.Source)
		} else {
			p.f("    removed by %s\n", it.Source)
		}
		p.f("    migrate: %s\n", it.Replacement)
		p.f("    spec: %s\n", it.SpecURL)
		for _, e := range it.Evidence {
			if e.Exchange != "" {
				p.f("    seen (%s): %s\n", e.Exchange, e.What)
			} else {
				p.f("    seen: %s\n", e.What)
			}
		}
		if it.Note != "" {
			p.f("    note: %s\n", it.Note)
		}
	}
	return wrap(p.err)
}

func wrap(err error) error {
	if err != nil {
		return fmt.Errorf("writing the inventory as text: %w", err)
	}
	return nil
}

// Total is the inventory in one line, the most urgent item named: what a reader needs first.
func (r Report) Total() string {
	if len(r.Items) == 0 {
		return "No deprecated or removed feature was seen in use."
	}
	dep, rem := 0, 0
	for _, it := range r.Items {
		if it.Status == Removed {
			rem++
		} else {
			dep++
		}
	}
	first := r.Items[0]
	return fmt.Sprintf("%d feature(s) in use that 2026-07-28 deprecated (%d) or removed (%d); most urgent: %s, %s.", len(r.Items), dep, rem, first.Name, first.Due)
}
