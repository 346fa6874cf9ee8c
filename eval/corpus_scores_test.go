package eval

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusItem is any line of any corpus file: an injection item has text (and maybe context), a
// groundedness item a response and context. Unknown fields are fine here; the split tests check
// each file's shape.
type corpusItem struct {
	ID       string        `json:"id"`
	Text     *string       `json:"text"`
	Response *string       `json:"response"`
	Context  []ContextItem `json:"context"`
}

// TestCorpusScoresGolden records the deterministic tier's score, band and a digest of the whole
// result (evidence spans, families, signals, claims, summary) for every item of every corpus file
// (held-out splits not yet retired excepted, see unscoredHeldOut), both metrics, in
// testdata/golden/corpus_scores.txt. It exists so that work on how fast the
// detectors run can prove it changed no score: the file must not change. Work that changes what
// they compute (rules, lexicons, model weights, groundedness logic) changes it on purpose and
// regenerates it with -update, and the diff shows every item that moved.
func TestCorpusScoresGolden(t *testing.T) {
	var files []string
	err := filepath.WalkDir("testdata/corpus", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && slices.Contains(unscoredHeldOut, d.Name()) {
			return filepath.SkipDir
		}
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".jsonl") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	var b strings.Builder
	items := 0
	for _, path := range files {
		rel := filepath.ToSlash(strings.TrimPrefix(path, "testdata/corpus/"))
		for _, c := range readLooseJSONL[corpusItem](t, path) {
			items++
			switch {
			case c.Text != nil:
				in := InjectionInput{Text: *c.Text, Context: c.Context}
				s := ScreenInjection(in)
				d := DetectInjection(*c.Text)
				fmt.Fprintf(&b, "%s %s flag_injection score=%.3f pattern=%.3f model=%.3f band=%+d families=%s text=%.3f/%s screen=%s\n",
					rel, c.ID, s.Score, s.PatternScore, s.ModelScore, Band(s.Score, corpusThreshold),
					strings.Join(s.Families, ","), d.Score, digest(t, d), digest(t, s))
			case c.Response != nil:
				g := ScoreGroundedness(GroundednessInput{Response: *c.Response, Context: c.Context})
				fmt.Fprintf(&b, "%s %s check_groundedness score=%.3f band=%+d claims=%d statuses=%d result=%s\n",
					rel, c.ID, g.Score, BandFor(MetricGroundedness, g.Score, corpusThreshold), len(g.Claims), len(g.Statuses), digest(t, g))
			default:
				t.Errorf("%s: item %s has neither text nor response", path, c.ID)
			}
		}
	}
	if items < 1000 {
		t.Fatalf("only %d corpus items found; the corpus is larger than that", items)
	}
	golden(t, "testdata/golden/corpus_scores.txt", []byte(b.String()))
}

// unscoredHeldOut are held-out splits this test never reads: a split is first scored by the
// measured run that records its figures, and a per-item golden of held-out scores would put them
// in front of whoever tunes the detectors. heldout5 to heldout7 were named before their files
// merged, so that no -update run writes their scores here.
var unscoredHeldOut = []string{"heldout3", "heldout4", "heldout5", "heldout6", "heldout7"}

// digest is a short hash of v's JSON, so that a change anywhere in a result shows as a changed
// line without the golden file holding every evidence span.
func digest(t *testing.T, v any) string {
	t.Helper()
	j, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:6])
}

// readLooseJSONL reads a JSONL file without rejecting fields T does not name.
func readLooseJSONL[T any](t *testing.T, path string) []T {
	t.Helper()
	var out []T
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimRight(string(raw), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var v T
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, v)
	}
	return out
}
