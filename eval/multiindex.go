package eval

import "strings"

// multiIndex finds every occurrence of many words in one pass over a text. Words are bucketed by
// their first two bytes, so each text position costs one table lookup and a prefix check only for
// the few words sharing those bytes (one-byte words have a table of their own). This replaces one
// strings.Index scan per word, which dominated DetectInjection's time with a few hundred anchors.
type multiIndex struct {
	words   []string
	slot    []uint16     // first-two-byte key → 1 + index into buckets, 0 for none
	buckets [][]int32    // words sharing a first-two-byte key
	single  [256][]int32 // one-byte words by their byte
}

// newMultiIndex indexes words; every word must be at least one byte long.
func newMultiIndex(words []string) *multiIndex {
	m := &multiIndex{words: words, slot: make([]uint16, 1<<16)}
	for i, w := range words {
		switch len(w) {
		case 0:
			panic("eval: multiIndex word is empty")
		case 1:
			m.single[w[0]] = append(m.single[w[0]], int32(i))
			continue
		}
		k := uint16(w[0])<<8 | uint16(w[1])
		if m.slot[k] == 0 {
			m.buckets = append(m.buckets, nil)
			m.slot[k] = uint16(len(m.buckets))
		}
		m.buckets[m.slot[k]-1] = append(m.buckets[m.slot[k]-1], int32(i))
	}
	return m
}

// each calls fn(word index, position) for every occurrence, in position order. Occurrences may
// overlap. fn returns false to stop.
func (m *multiIndex) each(t string, fn func(word, pos int) bool) {
	for i := 0; i < len(t); i++ {
		for _, w := range m.single[t[i]] {
			if !fn(int(w), i) {
				return
			}
		}
		if i+1 == len(t) {
			break
		}
		b := m.slot[uint16(t[i])<<8|uint16(t[i+1])]
		if b == 0 {
			continue
		}
		for _, w := range m.buckets[b-1] {
			if strings.HasPrefix(t[i:], m.words[w]) && !fn(int(w), i) {
				return
			}
		}
	}
}
