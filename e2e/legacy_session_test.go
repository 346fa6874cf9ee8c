package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-sentinel/sentinel/fixtures/legacyclient"
)

// LegacyStep and LegacySession are the scripted old client's transcript (fixtures/legacyclient).
type (
	LegacyStep    = legacyclient.Step
	LegacySession = legacyclient.Session
)

// legacyScript is what the old client does after the handshake.
var legacyScript = legacyclient.Script

// DriveLegacySession plays a whole 2025-11-25 client session against url (the fixture itself, or a
// proxy in front of it) with fixtures/legacyclient: initialize, notifications/initialized, every
// step of its script with the session id (answering the server's roots and sampling requests), a
// short read of the GET stream, and DELETE. Each HTTP exchange has a 10 s deadline; transport
// errors fail the test.
func DriveLegacySession(t testing.TB, url string) LegacySession {
	t.Helper()
	s, err := legacyclient.Drive(WithDeadline(t, 60*time.Second), url)
	if err != nil {
		t.Fatalf("legacy session against %s: %v", url, err)
	}
	return s
}

// TestLegacySessionAgainstUnmigratedFixture plays the scripted old client straight at the
// unmigrated fixture: every step must be served as a 2025 server serves it, which is what a proxy
// in the path will grade.
func TestLegacySessionAgainstUnmigratedFixture(t *testing.T) {
	srv := StartFixture(t, "unmigrated")
	s := DriveLegacySession(t, srv.URL)
	if n := len(s.Steps); n < len(legacyScript)+4 {
		t.Fatalf("only %d steps recorded", n)
	}
	checks := []struct {
		step, want string
	}{
		{"tools/list", `"notes/search"`},
		{"server/discover", `-32601`},
		{"resources/read", `"blob"`},
		{"response:sampling/createMessage", ``},
		{"GET", `id: 1`},
	}
	for _, c := range checks {
		st := s.Step(c.step)
		if st.Status == 0 || !strings.Contains(st.Body, c.want) {
			t.Errorf("step %s: status %d body %.200q, want it to contain %q", c.step, st.Status, st.Body, c.want)
		}
	}
	if st := s.Step("DELETE"); st.Status != http.StatusOK {
		t.Errorf("DELETE: %d", st.Status)
	}
	injected := false
	for _, st := range s.Steps {
		injected = injected || strings.Contains(st.Body, "Ignore previous instructions")
	}
	if !injected {
		t.Errorf("no step carried the prompt injection of fetch_page")
	}
}
