package eval

import (
	"math/bits"
	"strings"
)

// multiIndex finds every occurrence of many words in one pass over a text. Words of three bytes
// or more are bucketed by a hash of their first three bytes, two-byte words by those two bytes
// and one-byte words by their byte, so each text position costs a bitset test and, only on a
// hit, a prefix check for the few words of that bucket. This replaces one strings.Index scan per
// word, which dominated DetectInjection's time with a few hundred anchors.
type multiIndex struct {
	words   []string
	present [1 << 16 / 64]uint64 // bitset of three-byte hashes, 8 KiB, checked before rank
	// rank counts the hashes present before each word of present, so a present hash's bucket is
	// its rank plus the present bits below it in its word: 4 KiB where a table of every hash
	// (128 KiB, zeroed and faulted in by each index built) had been.
	rank    [1 << 16 / 64]uint32
	buckets [][]int32            // words sharing a three-byte hash, in hash order
	pairs   map[uint16][]int32   // two-byte words by their bytes
	hasPair [1 << 16 / 64]uint64 // bitset of the keys of pairs, checked before the map
	single  [256][]int32         // one-byte words by their byte
	short   [256]bool            // a one- or two-byte word starts with this byte
	// head and mask hold each word's first eight bytes (fewer for a shorter word) as a
	// little-endian integer, so a bucket's candidates are told apart by one comparison each
	// instead of a string comparison each.
	head, mask []uint64
}

// load8 reads up to eight bytes of s from i as a little-endian integer, zero-filled.
func load8(s string, i int) uint64 {
	if i+8 <= len(s) {
		_ = s[i+7]
		return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
	}
	var v uint64
	for k := 0; i+k < len(s) && k < 8; k++ {
		v |= uint64(s[i+k]) << (8 * k)
	}
	return v
}

func hash3(a, b, c byte) uint16 {
	return uint16((uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> 16)
}

// newMultiIndex indexes words; every word must be at least one byte long.
func newMultiIndex(words []string) *multiIndex {
	m := &multiIndex{words: words, pairs: map[uint16][]int32{},
		head: make([]uint64, len(words)), mask: make([]uint64, len(words))}
	for i, w := range words {
		m.head[i] = load8(w, 0)
		m.mask[i] = ^uint64(0)
		if len(w) < 8 {
			m.mask[i] = 1<<(8*len(w)) - 1
		}
		if w == "" {
			panic("eval: multiIndex word is empty")
		}
		if strings.IndexByte(w, 0) >= 0 {
			panic("eval: multiIndex word holds a NUL byte") // load8 zero-fills past the end of a text
		}
		switch len(w) {
		case 1:
			m.single[w[0]] = append(m.single[w[0]], int32(i))
			m.short[w[0]] = true
			continue
		case 2:
			k := uint16(w[0])<<8 | uint16(w[1])
			m.pairs[k] = append(m.pairs[k], int32(i))
			m.hasPair[k/64] |= 1 << (k % 64)
			m.short[w[0]] = true
			continue
		}
		k := hash3(w[0], w[1], w[2])
		m.present[k/64] |= 1 << (k % 64)
	}
	n := uint32(0)
	for j, word := range m.present {
		m.rank[j] = n
		n += uint32(popcount(word))
	}
	m.buckets = make([][]int32, n)
	for i, w := range words {
		if len(w) >= 3 {
			b := m.bucket(hash3(w[0], w[1], w[2]))
			m.buckets[b] = append(m.buckets[b], int32(i))
		}
	}
	return m
}

// bucket is the index into buckets of a present three-byte hash.
func (m *multiIndex) bucket(k uint16) int {
	return int(m.rank[k/64]) + popcount(m.present[k/64]&(1<<(k%64)-1))
}

func popcount(x uint64) int { return bits.OnesCount64(x) }

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
				if k := uint16(c)<<8 | uint16(t[i+1]); m.hasPair[k/64]&(1<<(k%64)) != 0 {
					for _, w := range m.pairs[k] {
						if !fn(int(w), i) {
							return
						}
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
		x := load8(t, i)
		for _, w := range m.buckets[m.bucket(k)] {
			// a word of more than eight bytes must still match past them; one of up to eight
			// bytes matches when its bytes do (a word running past the end of t cannot match:
			// the zero fill differs from its bytes, which are never zero in text)
			if x&m.mask[w] == m.head[w] && (len(m.words[w]) <= 8 || strings.HasPrefix(t[i+8:], m.words[w][8:])) && !fn(int(w), i) {
				return
			}
		}
	}
}

// anyIn reports whether any word occurs in t.
func (m *multiIndex) anyIn(t string) bool {
	found := false
	m.each(t, func(int, int) bool {
		found = true
		return false
	})
	return found
}
