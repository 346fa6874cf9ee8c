package eval

import (
	"bufio"
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// The decision of check_groundedness/7: a logistic model over a few alignment features of each
// claim (groundedness_features.go), max-pooled over the claims of a response, trained by `go
// generate` (groundedness_model_train_test.go) from the groundedness training material and
// shipped as model/groundedness.lrm. Until /6 hand-set rules decided; they were tuned on their
// authors' phrasing and called half of a new author's grounded responses ungrounded.
//
//go:generate go test -count=1 -run ^TestGenerateGroundednessModel$ . -args -generate-gnd-model

const (
	gndModelFile  = "model/groundedness.lrm"
	gndModelMagic = "sentinel-gnd/1"
	// gndModelName is pinned in the metric version's documentation and the model file.
	gndModelName = "groundedness.lrm v12"
)

// gndModel is the fitted model: P(ungrounded | claim) = σ(bias + w·features).
type gndModel struct {
	bias float64
	w    gndFeatures
}

func (m *gndModel) prob(x gndFeatures) float64 {
	return sigmoid(logit(m.bias, &m.w, &x))
}

func logit(bias float64, w, x *gndFeatures) float64 {
	z := bias
	for j := range w {
		z += float64(w[j] * x[j])
	}
	return z
}

// encode writes the model as text: the magic line, then "bias v" and one "name v" per feature,
// with shortest round-tripping decimals, so the file diffs readably and decodes exactly.
func (m *gndModel) encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s\n# %s; features: eval/groundedness_features.go; recipe: docs/scoring.md\n", gndModelMagic, gndModelName)
	fmt.Fprintf(&b, "bias %s\n", strconv.FormatFloat(m.bias, 'g', -1, 64))
	for j, n := range gndFeatureNames {
		fmt.Fprintf(&b, "%s %s\n", n, strconv.FormatFloat(m.w[j], 'g', -1, 64))
	}
	return b.Bytes()
}

func decodeGndModel(data []byte) (*gndModel, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	if !sc.Scan() || sc.Text() != gndModelMagic {
		return nil, fmt.Errorf("%s: not a %s model", gndModelFile, gndModelMagic)
	}
	m := &gndModel{}
	seen := map[string]bool{}
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", gndModelFile, line)
		}
		v, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %w", gndModelFile, name, err)
		}
		seen[name] = true
		if name == "bias" {
			m.bias = v
			continue
		}
		j := -1
		for k, n := range gndFeatureNames {
			if n == name {
				j = k
			}
		}
		if j < 0 {
			return nil, fmt.Errorf("%s: unknown feature %q", gndModelFile, name)
		}
		m.w[j] = v
	}
	for _, n := range append([]string{"bias"}, gndFeatureNames[:]...) {
		if !seen[n] {
			return nil, fmt.Errorf("%s: feature %q missing", gndModelFile, n)
		}
	}
	return m, nil
}

// gndModelOnce guards the embedded model's decoding. A plain sync.Once rather than
// sync.OnceValues: the latter allocates its closure at package init, and eval's init sits at the
// allocation budget TestVersionInitialisersStayInBudget holds every command to.
var (
	gndModelOnce sync.Once
	gndModelVal  *gndModel
	gndModelErr  error
)

// loadedGndModel decodes the embedded model on first use.
func loadedGndModel() (*gndModel, error) {
	gndModelOnce.Do(func() {
		data, err := modelFS.ReadFile(gndModelFile)
		if err != nil {
			gndModelErr = fmt.Errorf("reading %s: %w", gndModelFile, err)
			return
		}
		gndModelVal, gndModelErr = decodeGndModel(data)
	})
	return gndModelVal, gndModelErr
}

// groundednessModel is the embedded model, or nil when it is missing or unreadable (then the
// rules of check_groundedness/6 decide; TestGroundednessModelIsEmbedded fails on such a build).
func groundednessModel() *gndModel { m, _ := loadedGndModel(); return m }
