package rules

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Errors Validate reports, wrapped with the rule's name and the detail. Tests and callers match them
// with errors.Is, so each broken property has its own.
var (
	ErrIDMalformed            = errors.New("ID is not MCP/2026-07-28/<LEVEL>/<name>")
	ErrIDMismatch             = errors.New("ID does not match the rule's level and name")
	ErrDuplicateID            = errors.New("duplicate ID")
	ErrNameMalformed          = errors.New("name is not kebab-case")
	ErrDuplicateName          = errors.New("duplicate name")
	ErrLevel                  = errors.New("invalid level")
	ErrCheck                  = errors.New("invalid check mode")
	ErrNoArea                 = errors.New("no area")
	ErrArea                   = errors.New("invalid area")
	ErrDuplicateArea          = errors.New("area listed twice")
	ErrFeature                = errors.New("invalid required feature")
	ErrURLBase                = errors.New("spec URL is not under SpecBase")
	ErrURLPage                = errors.New("spec URL names an unknown spec page")
	ErrURLAnchor              = errors.New("spec URL anchor is malformed")
	ErrNoRequirement          = errors.New("empty requirement")
	ErrNoRemediation          = errors.New("empty remediation")
	ErrIndeterminacyMissing   = errors.New("indeterminate rule without an indeterminacy")
	ErrIndeterminacyPartial   = errors.New("indeterminacy without a reason or a what-would-settle")
	ErrIndeterminacyForbidden = errors.New("checkable rule carries an indeterminacy")
	ErrCatalogue              = errors.New("catalogue row out of range")
	ErrDuplicateCatalogue     = errors.New("catalogue row used twice")
	ErrTransport              = errors.New("invalid transport")
)

var (
	kebab  = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	anchor = regexp.MustCompile(`^[^\s#]+$`)
)

// SpecPages are the pages of the 2026-07-28 specification, as paths under SpecBase ("" is the
// overview). A rule URL must name one of them; the anchors test keeps the list equal to the pages
// of the spec source.
var SpecPages = []string{
	"", "architecture", "basic", "basic/authorization", "basic/authorization/authorization-server-discovery",
	"basic/authorization/client-registration", "basic/authorization/security-considerations",
	"basic/patterns", "basic/patterns/cancellation", "basic/patterns/mrtr", "basic/patterns/progress",
	"basic/patterns/subscriptions", "basic/transports", "basic/transports/stdio",
	"basic/transports/streamable-http", "basic/versioning", "changelog", "client/elicitation",
	"client/roots", "client/sampling", "deprecated", "schema", "server", "server/discover",
	"server/prompts", "server/resources", "server/tools", "server/utilities/caching",
	"server/utilities/completion", "server/utilities/logging", "server/utilities/pagination",
}

// MaxCatalogue is the last row of the spec digest's catalogue; rules added from the spec use 0.
const MaxCatalogue = 223

// Validate checks a set of rules for the properties every consumer relies on and returns one error
// per problem found (nil when the set is sound). It is pure, so tests can feed it deliberately
// broken rules; the registry's own test runs it over All().
func Validate(rs []Rule) []error {
	var errs []error
	fail := func(r Rule, err error, detail string) {
		name := r.Name
		if name == "" {
			name = r.ID
		}
		if detail != "" {
			errs = append(errs, fmt.Errorf("rule %q: %w: %s", name, err, detail))
			return
		}
		errs = append(errs, fmt.Errorf("rule %q: %w", name, err))
	}
	ids, names, rows := map[string]bool{}, map[string]bool{}, map[int]string{}
	for _, r := range rs {
		for _, e := range validateOne(r) {
			fail(r, e.err, e.detail)
		}
		if ids[r.ID] {
			fail(r, ErrDuplicateID, r.ID)
		}
		ids[r.ID] = true
		if names[r.Name] {
			fail(r, ErrDuplicateName, "")
		}
		names[r.Name] = true
		if r.Catalogue > 0 {
			if other, ok := rows[r.Catalogue]; ok {
				fail(r, ErrDuplicateCatalogue, fmt.Sprintf("row %d is also %q", r.Catalogue, other))
			}
			rows[r.Catalogue] = r.Name
		}
	}
	return errs
}

type problem struct {
	err    error
	detail string
}

// validateOne checks the properties of a single rule.
func validateOne(r Rule) []problem {
	var ps []problem
	add := func(err error, detail string) { ps = append(ps, problem{err, detail}) }
	if !kebab.MatchString(r.Name) {
		add(ErrNameMalformed, r.Name)
	}
	if !r.Level.Valid() {
		add(ErrLevel, string(r.Level))
	}
	if lvl, name, err := ParseID(r.ID); err != nil {
		add(ErrIDMalformed, r.ID)
	} else if lvl != r.Level || name != r.Name {
		add(ErrIDMismatch, r.ID)
	}
	if !r.Check.Valid() {
		add(ErrCheck, string(r.Check))
	}
	if len(r.Areas) == 0 {
		add(ErrNoArea, "")
	}
	seen := map[Area]bool{}
	for _, a := range r.Areas {
		if !a.Valid() {
			add(ErrArea, string(a))
		}
		if seen[a] {
			add(ErrDuplicateArea, string(a))
		}
		seen[a] = true
	}
	if !r.Requires.Valid() {
		add(ErrFeature, string(r.Requires))
	}
	if !r.Transport.Valid() {
		add(ErrTransport, string(r.Transport))
	}
	if detail, err := checkURL(r.SpecURL); err != nil {
		add(err, detail)
	}
	if strings.TrimSpace(r.Requirement) == "" {
		add(ErrNoRequirement, "")
	}
	if strings.TrimSpace(r.Remediation) == "" {
		add(ErrNoRemediation, "")
	}
	switch {
	case r.Check == CheckIndeterminate && r.Indeterminacy == nil:
		add(ErrIndeterminacyMissing, "")
	case r.Check == CheckIndeterminate && (strings.TrimSpace(r.Indeterminacy.Reason) == "" ||
		strings.TrimSpace(r.Indeterminacy.WouldSettle) == ""):
		add(ErrIndeterminacyPartial, "")
	case r.Check != CheckIndeterminate && r.Indeterminacy != nil:
		add(ErrIndeterminacyForbidden, string(r.Check))
	}
	if r.Catalogue < 0 || r.Catalogue > MaxCatalogue {
		add(ErrCatalogue, fmt.Sprint(r.Catalogue))
	}
	return ps
}

// checkURL checks that u is SpecBase + a known page, optionally followed by "#anchor".
func checkURL(u string) (string, error) {
	rest, ok := strings.CutPrefix(u, SpecBase)
	if !ok {
		// The overview page is SpecBase without its trailing slash.
		if u+"/" == SpecBase {
			return "", nil
		}
		return u, ErrURLBase
	}
	page, frag, hasFrag := strings.Cut(rest, "#")
	if !knownPage(page) {
		return page, ErrURLPage
	}
	if hasFrag && !anchor.MatchString(frag) {
		return frag, ErrURLAnchor
	}
	return "", nil
}

func knownPage(p string) bool {
	for _, x := range SpecPages {
		if x == p {
			return true
		}
	}
	return false
}

// SplitSpecURL returns the page and anchor of a rule URL ("basic/transports/streamable-http",
// "security-&-endpoint"); ok is false when the URL is not under SpecBase.
func SplitSpecURL(u string) (page, anchor string, ok bool) {
	rest, ok := strings.CutPrefix(u, SpecBase)
	if !ok {
		return "", "", false
	}
	page, anchor, _ = strings.Cut(rest, "#")
	return page, anchor, true
}
