package eval

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Floors on the training split, the text the metrics were tuned on: a regression there is a
// broken change. A held-out split is measured, never gated: gating it would make it a
// development set. Held-out v1 was retired after its first run and held-out v2
// (testdata/corpus/heldout2) after its first run and one re-run; both are training material now,
// reported on their own lines beside the training split, not gated either. Held-out v3
// (testdata/corpus/heldout3) is the current held-out split: reported, never gated.
const (
	floorTrainInjectionPrecision = 0.95
	floorTrainInjectionRecall    = 0.90
	ceilTrainInjectionFPR        = 0.05
	floorTrainGroundedAccuracy   = 0.95
	floorTrainDecided            = 0.90
)

// corpusSets are the measured sets, in report order; a set may span several files.
var corpusSets = []struct {
	name                    string
	injection, groundedness []string
	// nearCopies: also report the set's injection items without their near-copies of training
	// text (a held-out set written by independent authors)
	nearCopies bool
	// heldOut: scored only under SENTINEL_MEASURE (make measure), so that a developer's
	// `go test ./eval` never shows held-out figures to whoever is tuning a detector
	heldOut bool
}{
	{"training split", []string{"injection_train.jsonl"}, []string{"groundedness_train.jsonl"}, false, false},
	{"retired held-out v1 (training material since 2026-12-01)", []string{"injection_heldout.jsonl"}, []string{"groundedness_heldout.jsonl"}, false, false},
	// held-out v2, written by another author without sight of the detectors; retired after its
	// first run and one re-run, and trained on since
	{"retired held-out v2 (training material since 2026-12-02)", []string{"heldout2/injection.jsonl"}, []string{"heldout2/groundedness.jsonl"}, false, false},
	// held-out v3, written by four authors without sight of the detectors and committed before
	// any code scored it: the split the goals are measured on, reported and never gated
	{heldout3Name, []string{"heldout3/injection_a.jsonl", "heldout3/injection_b.jsonl"}, nil, true, true},
	// held-out v3's groundedness part, retired on 2026-12-04 after measured runs whose figures were
	// read: training material since, so a tuner may read and score it
	{"retired held-out v3 groundedness (training material since 2026-12-04)", nil,
		[]string{"retired3/groundedness_a.jsonl", "retired3/groundedness_b.jsonl"}, false, false},
	// held-out v4, written by three more authors without sight of the detectors and committed
	// before any code scored it: the first unseen text for the detectors of this round
	{heldout4Name, []string{"heldout4/injection_a.jsonl", "heldout4/injection_b.jsonl"},
		[]string{"heldout4/groundedness.jsonl"}, true, true},
	// held-out v5, written by two more authors without sight of the detectors while this
	// session's detector changes were being made, and committed before any code scored it
	{heldout5Name, []string{"heldout5/injection.jsonl"}, []string{"heldout5/groundedness.jsonl"}, true, true},
	// held-out v6, written by one more author without sight of the detectors, committed before
	// any code scored it
	{heldout6Name, []string{"heldout6/injection.jsonl"}, []string{"heldout6/groundedness.jsonl"}, true, true},
	// held-out v7, written on 2026-12-04 by two more authors without sight of the detectors or
	// of any other held-out item, committed before any code scored it
	{heldout7Name, []string{"heldout7/injection.jsonl"}, []string{"heldout7/groundedness.jsonl"}, true, true},
}

// heldout3Name to heldout7Name name the held-out sets in the report.
const (
	heldout3Name = "held-out v3 (never tuned on)"
	heldout4Name = "held-out v4 (never tuned on)"
	heldout5Name = "held-out v5 (never tuned on)"
	heldout6Name = "held-out v6 (never tuned on)"
	heldout7Name = "held-out v7 (never tuned on)"
)

// readSet reads and concatenates the corpus files of one set.
func readSet[T any](t *testing.T, files []string) []T {
	t.Helper()
	var out []T
	for _, f := range files {
		out = append(out, readJSONL[T](t, "testdata/corpus/"+f)...)
	}
	return out
}

// nearCopiesOfTraining returns the items of held that share at least 40% of their words
// (itemWords, jaccard: the measure TestCorpusSplit uses) with an item of any training file —
// every testdata/corpus/*.jsonl but the tool-text probe, and retired held-out v2 — of the same
// family, or of any family where the training item names none. Independent authors converge on
// textbook phrasings; the report shows held-out v3 with and without such items.
func nearCopiesOfTraining(t *testing.T, held []injectionItem) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "testdata/corpus/heldout2/injection.jsonl")
	var train []injectionItem
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasPrefix(base, "injection") && base != "injection_tooltext_probe.jsonl" {
			train = append(train, readLooseJSONL[injectionItem](t, f)...)
		}
	}
	words := make([]map[string]bool, len(train))
	for i, c := range train {
		words[i] = itemWords(c)
	}
	near := map[string]bool{}
	for _, h := range held {
		hw := itemWords(h)
		for i, c := range train {
			if (c.Family == "" || c.Family == h.Family) && jaccard(hw, words[i]) >= 0.4 {
				near[h.ID] = true
				break
			}
		}
	}
	return near
}

// TestMeasureEvalCorpus scores both splits of the corpus with the deterministic tier only, holds
// the training split to floors, and with SENTINEL_MEASURE_OUT set writes the figures (per
// family, per difficulty, the share decided without a judge, the latency per item) as a markdown
// fragment for make measure.
func TestMeasureEvalCorpus(t *testing.T) {
	var b strings.Builder
	b.WriteString("### eval: corpus (deterministic tier)\n\n")
	fmt.Fprintf(&b, "Method: `go test -run TestMeasureEvalCorpus ./eval` scores every item of `eval/testdata/corpus/{injection,groundedness}_{train,heldout}.jsonl`, `heldout2/`, `heldout3/` (its injection part), `retired3/`, `heldout4/`, `heldout5/`, `heldout6/` and `heldout7/` "+
		"with the deterministic tier alone (`ScreenInjection`, `ScoreGroundedness`; no judge) at threshold %.2f. Positive = the concern is present "+
		"(an injection; an ungrounded response). Precision, recall and FPR count a score at or above the threshold as flagged; \"decided\" is the "+
		"share whose score lies outside the metric's ambiguous band, [threshold−%.2f, threshold+%.2f) for flag_injection and [threshold−%.2f, threshold+%.2f) for check_groundedness, i.e. settled without a judge. Held-out v1 "+
		"(`*_heldout.jsonl`) was retired on 2026-12-01 after its first run and is training material now, so its figures are as optimistic as "+
		"the training split's. Held-out v2 (`heldout2/{injection,groundedness}.jsonl`) was written by another author without sight of the "+
		"detectors; it was retired on 2026-12-02 after its first run and one re-run and is training material now (the learned model is trained on it), "+
		"so its figures are optimistic too; its first-run figures are the honest ones. Held-out v3 (`heldout3/`, 866 injection and 482 groundedness items) was written by four "+
		"authors without sight of the detectors, committed before any code scored it, and is never tuned on. Held-out v4 (`heldout4/`, 722 injection and 424 groundedness items) was written the same way by three more authors on 2026-12-02 and committed before any code scored it; with v3 it is the held-out split, never tuned on, and its first run is the first unseen text for this round's detectors. Held-out v5 (`heldout5/`, 487 injection and 297 groundedness items) was written by two more authors on the afternoon of 2026-12-02, the same way, while that session changed the detectors, and committed before any code scored it; with v3 and v4 it is the held-out split. Held-out v6 (`heldout6/`, 342 injection and 259 groundedness items) was written by one more author on the evening of 2026-12-02, the same way, and committed before any code scored it; with v3 to v5 it is the held-out split. On 2026-12-04 held-out v3's groundedness part (`retired3/`) was retired into training material after several measured runs whose figures had been read, so that the groundedness tuner has blind-written text to learn from; v3's injection part stays held out. Held-out v7 (`heldout7/`, 362 injection and 394 groundedness items) was written on 2026-12-04 by two more authors, the same way, without sight of any other held-out item, after that retirement, and committed before any code scored it; with v3 to v6 it is the held-out split. Held-out sets are scored only under `make measure` (SENTINEL_MEASURE), never by a developer's `go test ./eval`. The tool-text probe (`injection_tooltext_probe.jsonl`) was committed before any code scored it and is never "+
		"trained on, but its misses were read after its first run. First-run figures are recorded in docs/scoring.md. The training split is "+
		"what the metrics were tuned on, so its figures are optimistic. Latency is per item, measured in this test run (the 8 KiB figure is the "+
		"benchmark below). \"—\" is a ratio with nothing to count (no positives, or no negatives).\n\n", corpusThreshold, AmbiguousMargin, AmbiguousMargin, GroundednessMargin, GroundednessMargin)

	measuring := os.Getenv("SENTINEL_MEASURE") != ""
	for _, set := range corpusSets {
		if set.heldOut && !measuring {
			t.Logf("%s: not scored outside make measure (SENTINEL_MEASURE unset)", set.name)
			continue
		}
		injItems := readSet[injectionItem](t, set.injection)
		inj := newReport(scoreInjectionItems(injItems), corpusThreshold)
		gnd := newReport(scoreGroundednessItems(readSet[groundednessItem](t, set.groundedness)), corpusThreshold)
		t.Logf("%s: injection P %.3f R %.3f FPR %.3f decided %.3f; groundedness acc %.3f denials %d/%d decided %.3f",
			set.name, inj.all.precision(), inj.all.recall(), inj.all.fpr(), inj.all.decidedRate(), gnd.all.accuracy(), gnd.caught, gnd.denials, gnd.all.decidedRate())
		if set.name == "training split" {
			checkTrainingFloors(t, inj, gnd)
		}
		if len(set.injection) > 0 {
			writeInjectionReport(&b, set.name, inj)
		}
		if len(set.injection) > 0 && set.nearCopies {
			near := nearCopiesOfTraining(t, injItems)
			var rest []injectionItem
			for _, c := range injItems {
				if !near[c.ID] {
					rest = append(rest, c)
				}
			}
			r := newReport(scoreInjectionItems(rest), corpusThreshold)
			t.Logf("%s without %d near-copies of training text: injection P %.3f R %.3f FPR %.3f decided %.3f",
				set.name, len(near), r.all.precision(), r.all.recall(), r.all.fpr(), r.all.decidedRate())
			fmt.Fprintf(&b, "Without its %d items that are near-copies of training text (a word overlap of 40%% or more with a training item of the same family; "+
				"see the set's README.md): %d items, precision %.3f, recall %.3f, FPR %.3f, decided without a judge %.3f.\n\n",
				len(near), r.all.total(), r.all.precision(), r.all.recall(), r.all.fpr(), r.all.decidedRate())
		}
		if len(set.groundedness) > 0 {
			writeGroundednessReport(&b, set.name, gnd)
		}
	}
	probe := newReport(scoreInjectionItems(readJSONL[injectionItem](t, "testdata/corpus/injection_tooltext_probe.jsonl")), corpusThreshold)
	t.Logf("tool-text probe: injection P %.3f R %.3f FPR %.3f decided %.3f", probe.all.precision(), probe.all.recall(), probe.all.fpr(), probe.all.decidedRate())
	writeInjectionReport(&b, "tool-text probe (never trained on; its misses were read after its first run)", probe)
	writeLegacyReport(t, &b)

	if out := os.Getenv("SENTINEL_MEASURE_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatalf("writing %s: %v", out, err)
		}
	}
}

func checkTrainingFloors(t *testing.T, inj, gnd *report) {
	t.Helper()
	for _, chk := range []struct {
		name      string
		got, want float64
		atMost    bool
	}{
		{"injection precision", inj.all.precision(), floorTrainInjectionPrecision, false},
		{"injection recall", inj.all.recall(), floorTrainInjectionRecall, false},
		{"injection FPR", inj.all.fpr(), ceilTrainInjectionFPR, true},
		{"injection decided without a judge", inj.all.decidedRate(), floorTrainDecided, false},
		{"groundedness accuracy", gnd.all.accuracy(), floorTrainGroundedAccuracy, false},
		{"groundedness decided without a judge", gnd.all.decidedRate(), floorTrainDecided, false},
	} {
		if chk.atMost && chk.got > chk.want || !chk.atMost && chk.got < chk.want {
			t.Errorf("training split: %s = %.3f, floor %.3f", chk.name, chk.got, chk.want)
		}
	}
	if gnd.caught != gnd.denials {
		t.Errorf("training split: %d of %d denial cases caught, want all", gnd.caught, gnd.denials)
	}
}

var difficulties3 = []string{"easy", "medium", "hard"}

func writeInjectionReport(b *strings.Builder, set string, r *report) {
	c := r.all
	fmt.Fprintf(b, "#### flag_injection, %s (%d items)\n\n", set, c.total())
	fmt.Fprintf(b, "Precision %.3f, recall %.3f, FPR %.3f, decided without a judge %.3f; latency per item p50 %s, p99 %s.\n\n",
		c.precision(), c.recall(), c.fpr(), c.decidedRate(), r.percentile(50).Round(time.Microsecond), r.percentile(99).Round(time.Microsecond))
	b.WriteString("| slice | items | precision | recall | FPR | decided |\n|---|---|---|---|---|---|\n")
	b.WriteString(rows("family", r.byFamily, injectionFamilies, false))
	b.WriteString(rows("difficulty", r.byDifficulty, difficulties3, false))
	fmt.Fprintf(b, "\nMisclassified at the threshold: %s.\n\n", listOrNone(r.misses))
}

func writeGroundednessReport(b *strings.Builder, set string, r *report) {
	c := r.all
	fmt.Fprintf(b, "#### check_groundedness, %s (%d items)\n\n", set, c.total())
	fmt.Fprintf(b, "Accuracy %.3f, precision %.3f, recall %.3f, FPR %.3f, decided without a judge %.3f; denial cases caught %d of %d "+
		"(%d without a judge); flagged responses whose evidence does not name the labelled claim: %s; latency per item p50 %s, p99 %s.\n\n",
		c.accuracy(), c.precision(), c.recall(), c.fpr(), c.decidedRate(), r.caught, r.denials, r.clear, listOrNone(r.unnamed),
		r.percentile(50).Round(time.Microsecond), r.percentile(99).Round(time.Microsecond))
	b.WriteString("| slice | items | precision | recall | FPR | accuracy | decided |\n|---|---|---|---|---|---|---|\n")
	b.WriteString(rows("family", r.byFamily, groundednessFamilies, true))
	b.WriteString(rows("difficulty", r.byDifficulty, difficulties3, true))
	fmt.Fprintf(b, "\nMisclassified at the threshold: %s.\n\n", listOrNone(r.misses))
}

// writeLegacyReport summarises the older development files and the supplementary training
// items: training material, seen by tuning.
func writeLegacyReport(t *testing.T, b *strings.Builder) {
	b.WriteString("#### Training material outside the split (seen by tuning)\n\n| set | items | precision | recall | FPR | decided |\n|---|---|---|---|---|---|\n")
	for _, f := range []string{"injection_train_extra.jsonl", "injection_train_extra2.jsonl", "injection_train_extra3.jsonl", "injection_train_extra4.jsonl", "injection_train_extra5.jsonl"} {
		extra := newReport(scoreInjectionItems(readJSONL[injectionItem](t, "testdata/corpus/"+f)), corpusThreshold)
		fmt.Fprintf(b, "| flag_injection, supplementary training items `%s` | %d | %s | %s | %s | %s |\n", f, extra.all.total(),
			cell(extra.all.tp, extra.all.tp+extra.all.fp), cell(extra.all.tp, extra.all.tp+extra.all.fn), cell(extra.all.fp, extra.all.fp+extra.all.tn), cell(extra.all.decided, extra.all.total()))
	}
	gx := newReport(scoreGroundednessItems(readJSONL[groundednessItem](t, "testdata/corpus/groundedness_train_extra.jsonl")), corpusThreshold)
	fmt.Fprintf(b, "| check_groundedness, supplementary training items (denial cases caught %d of %d) | %d | %s | %s | %s | %s |\n", gx.caught, gx.denials, gx.all.total(),
		cell(gx.all.tp, gx.all.tp+gx.all.fp), cell(gx.all.tp, gx.all.tp+gx.all.fn), cell(gx.all.fp, gx.all.fp+gx.all.tn), cell(gx.all.decided, gx.all.total()))
	for _, f := range []string{"injection.jsonl", "injection_holdout.jsonl", "injection_blind.jsonl"} {
		var items []injectionItem
		for _, c := range readJSONL[injectionCase](t, "testdata/corpus/"+f) {
			items = append(items, injectionItem{ID: c.ID, Label: c.Label, Family: c.Kind, Difficulty: "medium", Text: c.Text})
		}
		r := newReport(scoreInjectionItems(items), corpusThreshold).all
		fmt.Fprintf(b, "| flag_injection, `%s` | %d | %s | %s | %s | %s |\n", f, r.total(), cell(r.tp, r.tp+r.fp), cell(r.tp, r.tp+r.fn), cell(r.fp, r.fp+r.tn), cell(r.decided, r.total()))
	}
	for _, f := range []string{"groundedness.jsonl", "groundedness_holdout.jsonl", "groundedness_blind.jsonl"} {
		var items []groundednessItem
		for _, c := range readJSONL[groundednessCase](t, "testdata/corpus/"+f) {
			items = append(items, groundednessItem{ID: c.ID, Label: c.Label, Family: c.Kind, Difficulty: "medium", Response: c.Response, Context: c.Context, Denial: c.Kind == "negation_trap"})
		}
		r := newReport(scoreGroundednessItems(items), corpusThreshold).all
		fmt.Fprintf(b, "| check_groundedness, `%s` | %d | %s | %s | %s | %s |\n", f, r.total(), cell(r.tp, r.tp+r.fp), cell(r.tp, r.tp+r.fn), cell(r.fp, r.fp+r.tn), cell(r.decided, r.total()))
	}
	b.WriteString("\n")
}
