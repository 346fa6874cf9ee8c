package eval

import (
	"bytes"
	"embed"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The learned component of flag_injection: a logistic model over hashed character 3- to 5-grams,
// word 1- and 2-grams and word classes and their pairs (injection_classes.go) of the normalised text, trained by `go generate` (injection_model_train_test.go)
// from the training split of the corpus and the older development files only, and shipped as
// model/injection.lrm. It reads a text in windows of modelWindow bytes and reports the most
// suspicious one, so an instruction buried in a long benign tool result is not averaged away.
//
//go:generate go test -count=1 -run ^TestGenerateInjectionModel$ . -args -generate-model

// Model layout.
const (
	modelBits   = 17
	modelSize   = 1 << modelBits
	modelWindow = 400 // bytes of normalised text per window
	modelStride = 200
	modelMagic  = "sentinel-lrm/4\n"
	// modelName is pinned in evidence and versions.
	modelName = "injection.lrm v9"
	// ModelFile is where the trained model lives, relative to the eval package.
	modelFile = "model/injection.lrm"
)

// Feature kinds, each hashed with its own seed.
const (
	seedChar3 uint32 = 0x9e3779b1
	seedChar4 uint32 = 0x85ebca77
	seedChar5 uint32 = 0xc2b2ae3d
	seedWord  uint32 = 0x27d4eb2f
	seedPair  uint32 = 0x165667b1
)

// linearModel is the trained model: logit = bias + scale × Σ weight[h] / √(number of n-grams in
// the window) + Σ global[j] × feature[j].
type linearModel struct {
	bias    float64
	scale   float64
	weights []int8
	global  [numGlobal]float64
}

//go:embed model
var modelFS embed.FS

// loadedModel decodes the embedded model on first use, not at start-up: every command links
// eval, and most never score a text.
var loadedModel = sync.OnceValues(loadInjectionModel)

// injectionModel is the embedded model, or nil when model/injection.lrm is missing or unreadable
// (then the pattern families decide alone; TestInjectionModelIsEmbedded fails on such a build).
func injectionModel() *linearModel { m, _ := loadedModel(); return m }

// injectionModelErr is why injectionModel is nil.
func injectionModelErr() error { _, err := loadedModel(); return err }

func loadInjectionModel() (*linearModel, error) {
	data, err := modelFS.ReadFile(modelFile)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", modelFile, err)
	}
	return decodeModel(data)
}

// errModelFormat is returned for a model file that is not in the expected layout.
var errModelFormat = errors.New("not a sentinel-lrm/4 model with the features this build reads")

// modelHeader is the magic line and the float64s before the weights: bias, scale, and one weight
// per text-level feature.
const modelHeader = len(modelMagic) + 8*(2+numGlobal)

func decodeModel(data []byte) (*linearModel, error) {
	if !bytes.HasPrefix(data, []byte(modelMagic)) || len(data) != modelHeader+modelSize {
		return nil, errModelFormat
	}
	p := data[len(modelMagic):]
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(p[8*i : 8*i+8])) }
	m := &linearModel{bias: f(0), scale: f(1), weights: make([]int8, modelSize)}
	for j := range numGlobal {
		m.global[j] = f(2 + j)
	}
	for i, b := range data[modelHeader:] {
		m.weights[i] = int8(b)
	}
	for _, v := range append([]float64{m.bias, m.scale}, m.global[:]...) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errModelFormat
		}
	}
	return m, nil
}

func encodeModel(m *linearModel) []byte {
	out := make([]byte, 0, modelHeader+modelSize)
	out = append(out, modelMagic...)
	for _, v := range append([]float64{m.bias, m.scale}, m.global[:]...) {
		out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v))
	}
	for _, w := range m.weights {
		out = append(out, byte(w))
	}
	return out
}

// fnv32 hashes s with FNV-1a, starting from a seed.
func fnv32(seed uint32, s string) uint32 {
	h := 2166136261 ^ seed
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// wordHashes is fnv32 of word with seedWord, seedPair and seedPair+1 (the word's own feature, and
// its halves of the pairs it starts and ends), in one pass over its bytes.
func wordHashes(word string) (own, first, second uint32) {
	a, b, c := 2166136261^seedWord, 2166136261^seedPair, 2166136261^(seedPair+1)
	for i := 0; i < len(word); i++ {
		x := uint32(word[i])
		a, b, c = (a^x)*16777619, (b^x)*16777619, (c^x)*16777619
	}
	return a, b, c
}

// modelFeatures calls fn with the byte position and bucket of every feature occurrence of text
// (already normalised: lower case, folded): for each rune, the character 3-, 4- and 5-grams that
// start there, hashed in one pass over their bytes; and each word and pair of words.
func modelFeatures(text string, fn func(pos int, bucket uint32)) {
	// rune starts of the last six runes, so character n-grams are n runes whatever the script
	var starts [6]int
	n := 0
	ngrams := func(s int) { // the n-grams starting at rune start s, ending at or before len(text)
		h := 2166136261 ^ seedChar3
		runes := 0
		for i := s; i < len(text); i++ {
			c := text[i]
			h ^= uint32(c)
			h *= 16777619
			if i+1 < len(text) && text[i+1]&0xC0 == 0x80 {
				continue // inside a rune
			}
			runes++
			if runes >= 3 {
				fn(s, (h^uint32(runes)*0x9e3779b9)&(modelSize-1))
			}
			if runes == 5 {
				return
			}
		}
	}
	wordStart, prevWord := -1, ""
	cl, buckets := newClassifier(), classBuckets()
	var ct classTracker
	var cf [maxClassFeatures]uint32
	emitWord := func(end int) {
		if wordStart < 0 {
			return
		}
		w := text[wordStart:end]
		fn(wordStart, fnv32(seedWord, w)&(modelSize-1))
		if prevWord != "" {
			fn(wordStart, (fnv32(seedPair, prevWord)^fnv32(seedPair+1, w))&(modelSize-1))
		}
		for _, b := range cf[:ct.next(buckets, cl.of(text, wordStart, end), &cf)] {
			for range classRepeat {
				fn(wordStart, b)
			}
		}
		prevWord, wordStart = w, -1
	}
	for i, r := range text {
		copy(starts[:5], starts[1:6])
		starts[5] = i
		n++
		ngrams(i)
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'') || r >= utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)) {
			if wordStart < 0 {
				wordStart = i
			}
			if r >= utf8.RuneSelf && isRunRune(r) { // each Han, kana or Thai character is a word of its own
				emitWord(i + utf8.RuneLen(r))
			}
			continue
		}
		emitWord(i)
	}
	emitWord(len(text))
}

// assess is the model's probability that the assessed text is an injection, with the byte span
// of the original text it found most suspicious: its text-level features plus the n-grams of the
// most suspicious window of modelWindow bytes (stepping modelStride) of the normalised text or of
// any decoded payload.
func (m *linearModel) assess(a assessment) (float64, [2]int) {
	g := m.bias
	for j, v := range a.global {
		g += m.global[j] * v
	}
	z, s, e := m.bestWindow(a.n.Text)
	where := [2]int{}
	if e > s {
		where[0], where[1] = a.n.OriginalSpan(s, e)
	}
	for i, p := range a.payloads {
		if pz, _, _ := m.bestWindow(p); pz > z {
			z, where = pz, [2]int{a.n.Payloads[i].Start, a.n.Payloads[i].End}
		}
	}
	return sigmoid(g + z), where
}

// bestWindow is the highest n-gram term of any window of text, and that window's span. Windows
// are two consecutive blocks of modelStride bytes, so one pass accumulates per-block sums.
func (m *linearModel) bestWindow(text string) (float64, int, int) {
	if text == "" {
		return 0, 0, 0
	}
	blocks := len(text)/modelStride + 1
	var small [64]int64
	var smallN [64]int32
	var sum []int64
	var cnt []int32
	if blocks <= len(small) {
		sum, cnt = small[:blocks], smallN[:blocks]
	} else {
		sum, cnt = make([]int64, blocks), make([]int32, blocks)
	}
	m.accumulate(text, sum, cnt)
	best, bs, be := math.Inf(-1), 0, 0
	for b := range blocks {
		s, c := float64(sum[b]), cnt[b]
		if b+1 < blocks {
			s, c = s+float64(sum[b+1]), c+cnt[b+1]
		}
		if c > 0 {
			if z := m.scale * s / math.Sqrt(float64(c)); z > best {
				best, bs, be = z, b*modelStride, min(len(text), b*modelStride+modelWindow)
			}
		}
		if b*modelStride+modelWindow >= len(text) {
			break
		}
	}
	if math.IsInf(best, -1) {
		return 0, 0, 0
	}
	return best, bs, be
}

// accumulate adds every feature's weight to the block it starts in. It is modelFeatures with the
// per-feature call inlined, because this loop is most of the model's cost on long tool results.
// Weights are integers, so the sums are kept as integers (a float64 sum of them would be exact
// too, but each addition waits for the previous one), and integer sums do not depend on the
// order of their terms: the character n-grams and the words are summed in two passes over the
// text, each loop small enough for its variables to stay in registers (one loop doing both
// spilled most of them on every byte). The weights are read through an array pointer (every
// model has modelSize of them) so a masked index needs no bounds check.
func (m *linearModel) accumulate(text string, sum []int64, cnt []int32) {
	w := (*[modelSize]int8)(m.weights)
	accumulateNgrams(w, text, sum, cnt)
	accumulateWords(w, text, sum, cnt)
}

// accumulateNgrams adds the character 3-, 4- and 5-grams starting at each rune of text, summed
// per block in registers and added to the block once. All-ASCII text (most tool results) skips
// the test for a multi-byte rune ahead.
func accumulateNgrams(w *[modelSize]int8, text string, sum []int64, cnt []int32) {
	ascii := isASCII(text)
	block, nextBlock := 0, modelStride
	acc, accN := int64(0), int32(0) // the n-grams of the current block, not yet in sum
	for i := 0; i < len(text); {
		if i >= nextBlock {
			sum[block] += acc
			cnt[block] += accN
			block, acc, accN = i/modelStride, 0, 0
			nextBlock = (block + 1) * modelStride
		}
		if next := text[i:]; len(next) > 5 && (ascii || (next[0]|next[1]|next[2]|next[3]|next[4]|next[5]) < utf8.RuneSelf) {
			// six ASCII bytes: the 3-, 4- and 5-grams are the next three, four and five bytes
			// (the sixth says the fifth ends a rune), hashed as the loop below would (read
			// through next, whose length the compiler then knows: no bounds checks)
			h := (2166136261 ^ seedChar3 ^ uint32(next[0])) * 16777619
			h = (h ^ uint32(next[1])) * 16777619
			h3 := (h ^ uint32(next[2])) * 16777619
			h4 := (h3 ^ uint32(next[3])) * 16777619
			h5 := (h4 ^ uint32(next[4])) * 16777619
			acc += int64(w[(h3^ngramSalt[3])&(modelSize-1)]) + int64(w[(h4^ngramSalt[4])&(modelSize-1)]) +
				int64(w[(h5^ngramSalt[5])&(modelSize-1)])
			accN += 3
			i++
			continue
		}
		h := 2166136261 ^ seedChar3
		runes := 0
		for j := i; j < len(text); j++ {
			h ^= uint32(text[j])
			h *= 16777619
			if j+1 < len(text) && text[j+1]&0xC0 == 0x80 {
				continue
			}
			runes++
			if runes >= 3 {
				acc += int64(w[(h^uint32(runes)*0x9e3779b9)&(modelSize-1)])
				accN++
				if runes == 5 {
					break
				}
			}
		}
		size := 1
		if text[i] >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
	}
	sum[block] += acc
	cnt[block] += accN
}

// accumulateWords adds each word's own feature, its pair with the word before, and its word
// class and class pairs (classRepeat times each), to the block the word starts in. The end of
// the text is read as one more non-word position, so every word is added by the one piece of
// code at the bottom of the loop.
func accumulateWords(w *[modelSize]int8, text string, sum []int64, cnt []int32) {
	wordStart, prevHash := -1, uint32(0)
	havePrev := false
	cl, buckets := newClassifier(), classBuckets()
	cl.asciiText = isASCII(text)
	var ct classTracker
	var cf [maxClassFeatures]uint32
	for i := 0; i <= len(text); {
		size, end := 1, -1 // end >= 0: a word ends there
		if i == len(text) {
			end = i
		} else if c := text[i]; c < utf8.RuneSelf {
			if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '\'' {
				if wordStart < 0 {
					wordStart = i
				}
			} else {
				end = i
			}
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			switch {
			case !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r):
				end = i
			case isRunRune(r): // each Han, kana or Thai character is a word of its own
				if wordStart < 0 {
					wordStart = i
				}
				end = i + size
			default:
				if wordStart < 0 {
					wordStart = i
				}
			}
		}
		i += size
		if end < 0 || wordStart < 0 {
			continue
		}
		wh, ph, nh := wordHashes(text[wordStart:end])
		wb := wordStart / modelStride
		sum[wb] += int64(w[wh&(modelSize-1)])
		cnt[wb]++
		if havePrev {
			sum[wb] += int64(w[(prevHash^nh)&(modelSize-1)])
			cnt[wb]++
		}
		for _, b := range cf[:ct.next(buckets, cl.of(text, wordStart, end), &cf)] {
			sum[wb] += int64(w[b]) * int64(classRepeat)
			cnt[wb] += int32(classRepeat)
		}
		prevHash, havePrev, wordStart = ph, true, -1
	}
}

// ngramSalt[n] is what an n-rune character n-gram's hash is xored with: uint32(n)*0x9e3779b9,
// wrapping, as modelFeatures computes it.
var ngramSalt = func() (s [6]uint32) {
	for n := range s {
		s[n] = uint32(n) * 0x9e3779b9
	}
	return s
}()

// classRepeat is how many times a word-class feature counts, against once for an n-gram: a
// class stands for many words, so one occurrence carries more than one n-gram does. Part of the
// recipe (chosen by cross-validation on the training material); a variable only so that
// TestInjectionModelCrossValidation can vary it (SENTINEL_CV_REPEAT). Nothing else may change it.
var classRepeat = 4

func sigmoid(z float64) float64 {
	return 1 / (1 + math.Exp(-z))
}

// isModelWordRune reports whether r is part of a word as the model cuts words: ASCII letters,
// digits and the apostrophe, and any other letter, digit or combining mark (Devanagari vowel
// signs, Arabic and Hebrew points belong to their word).
func isModelWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\''
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// isRunRune reports whether the model reads r as a word of its own: a Han or kana character, or
// a letter or mark of the scripts written without spaces between words (Thai, Lao, Khmer,
// Myanmar). Until model v7 a Thai sentence was one long word, so no word or word class of it
// could count; the word classes now find their entries as runs of such characters (classifier).
func isRunRune(r rune) bool {
	switch {
	case r < 0x0E00:
		return false
	case r <= 0x0EFF: // Thai, Lao
		return true
	case r >= 0x1000 && r <= 0x109F, r >= 0x1780 && r <= 0x17FF: // Myanmar, Khmer
		return true
	}
	return isCJK(r)
}

// isRunString reports whether every rune of s is one isRunRune reads as a word of its own, so
// that s is found as a substring, without word boundaries (a Chinese or Thai cue).
func isRunString(s string) bool {
	for _, r := range s {
		if !isRunRune(r) {
			return false
		}
	}
	return true
}
