package eval

import "strings"

// multiIndex finds every occurrence of many words in one pass over a text. Words are bucketed by
// their first two bytes, so each text position costs one table lookup and a prefix check only for
// the few words sharing those bytes. This replaces one strings.Index scan per word, which
// dominated DetectInjection's time with a few hundred anchors.
type multiIndex struct {
	words   []string
	buckets map[uint16][]int32
	present [1 << 16 / 64]uint64 // bitset of first-two-byte keys, checked before the map
}

// newMultiIndex indexes words; every word must be at least two bytes long.
func newMultiIndex(words []string) *multiIndex {
	m := &multiIndex{words: words, buckets: make(map[uint16][]int32, len(words))}
	for i, w := range words {
		if len(w) < 2 {
			panic("eval: multiIndex word shorter than two bytes: " + w)
		}
		k := uint16(w[0])<<8 | uint16(w[1])
		m.buckets[k] = append(m.buckets[k], int32(i))
		m.present[k/64] |= 1 << (k % 64)
	}
	return m
}

// each calls fn(word index, position) for every occurrence, in position order. Occurrences may
// overlap. fn returns false to stop.
func (m *multiIndex) each(t string, fn func(word, pos int) bool) {
	for i := 0; i+1 < len(t); i++ {
		k := uint16(t[i])<<8 | uint16(t[i+1])
		if m.present[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, w := range m.buckets[k] {
			if strings.HasPrefix(t[i:], m.words[w]) && !fn(int(w), i) {
				return
			}
		}
	}
}
