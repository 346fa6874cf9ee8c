package eval

import "strings"

// multiIndex finds every occurrence of many words in one pass over a text. Words of three bytes
// or more are bucketed by a hash of their first three bytes, two-byte words by those two bytes
// and one-byte words by their byte, so each text position costs a bitset test and, only on a
// hit, a prefix check for the few words of that bucket. This replaces one strings.Index scan per
// word, which dominated DetectInjection's time with a few hundred anchors.
type multiIndex struct {
	words   []string
	present [1 << 16 / 64]uint64 // bitset of three-byte hashes, 8 KiB, checked before slot
	slot    []uint16             // three-byte hash → 1 + index into buckets, 0 for none
	buckets [][]int32            // words sharing a three-byte hash
	pairs   map[uint16][]int32   // two-byte words by their bytes
	single  [256][]int32         // one-byte words by their byte
	short   [256]bool            // a one- or two-byte word starts with this byte
}

func hash3(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16)
}

// newMultiIndex indexes words; every word must be at least one byte long.
func newMultiIndex(words []string) *multiIndex {
	m := &multiIndex{words: words, slot: make([]uint16, 1<<16), pairs: map[uint16][]int32{}}
	for i, w := range words {
		switch len(w) {
		case 0:
			panic("eval: multiIndex word is empty")
		case 1:
			m.single[w[0]] = append(m.single[w[0]], int32(i))
			m.short[w[0]] = true
			continue
		case 2:
			k := uint16(w[0])<<8 | uint16(w[1])
			m.pairs[k] = append(m.pairs[k], int32(i))
			m.short[w[0]] = true
			continue
		}
		k := hash3(w[0], w[1], w[2])
		if m.slot[k] == 0 {
			m.buckets = append(m.buckets, nil)
			m.slot[k] = uint16(len(m.buckets))
			m.present[k/64] |= 1 << (k % 64)
		}
		m.buckets[m.slot[k]-1] = append(m.buckets[m.slot[k]-1], int32(i))
	}
	return m
}

// each calls fn(word index, position) for every occurrence, in position order. Occurrences may
// overlap. fn returns false to stop.
func (m *multiIndex) each(t string, fn func(word, pos int) bool) {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if m.short[c] {
			for _, w := range m.single[c] {
				if !fn(int(w), i) {
					return
				}
			}
			if i+1 < len(t) {
				for _, w := range m.pairs[uint16(c)<<8|uint16(t[i+1])] {
					if !fn(int(w), i) {
						return
					}
				}
			}
		}
		if i+2 >= len(t) {
			continue
		}
		k := hash3(c, t[i+1], t[i+2])
		if m.present[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, w := range m.buckets[m.slot[k]-1] {
			if strings.HasPrefix(t[i:], m.words[w]) && !fn(int(w), i) {
				return
			}
		}
	}
}
