package eval

import "strings"

// Morse code and 8-bit binary, two of the encodings the labelling policy names for obfuscated
// attacks (LABELLING.md) that no other decoder undid: "-- --- .-. ... ." and
// "01101001 01100111". A run of at least minCodeTokens such tokens is decoded, and counts as a
// payload like any other only when it decodes to readable text (readable). Both are looked for
// only when the text has the byte pattern every such run has, so ordinary text pays one or two
// substring searches.

// minCodeTokens is the fewest Morse letters or binary bytes in a run.
const minCodeTokens = 8

// morseLetters maps a Morse code to its letter or digit.
var morseLetters = map[string]byte{
	".-": 'a', "-...": 'b', "-.-.": 'c', "-..": 'd', ".": 'e', "..-.": 'f', "--.": 'g', "....": 'h', "..": 'i',
	".---": 'j', "-.-": 'k', ".-..": 'l', "--": 'm', "-.": 'n', "---": 'o', ".--.": 'p', "--.-": 'q', ".-.": 'r',
	"...": 's', "-": 't', "..-": 'u', "...-": 'v', ".--": 'w', "-..-": 'x', "-.--": 'y', "--..": 'z',
	"-----": '0', ".----": '1', "..---": '2', "...--": '3', "....-": '4', ".....": '5', "-....": '6',
	"--...": '7', "---..": '8', "----.": '9',
}

// scanCodes decodes runs of Morse letters (words separated by "/" or a wider gap) and of
// space-separated 8-bit binary bytes in the case-kept text.
func (n *Normalized) scanCodes() {
	t := n.cased
	if strings.Contains(t, ".-") || strings.Contains(t, "-.") {
		n.scanTokenRuns(t, "morse", isMorseToken, decodeMorse)
	}
	if strings.Contains(t, "0110") || strings.Contains(t, "0100") {
		n.scanTokenRuns(t, "binary", isBinaryToken, decodeBinary)
	}
}

func isMorseToken(tok string) bool {
	if tok == "/" || tok == "|" {
		return true
	}
	if len(tok) > 5 || tok[0] != '.' && tok[0] != '-' { // every code is one to five dots and dashes
		return false
	}
	_, ok := morseLetters[tok]
	return ok
}

func isBinaryToken(tok string) bool {
	if len(tok) != 8 {
		return false
	}
	for i := 0; i < 8; i++ {
		if tok[i] != '0' && tok[i] != '1' {
			return false
		}
	}
	return true
}

// scanTokenRuns finds runs of whitespace-separated tokens that in accepts and decodes each run
// of at least minCodeTokens of them with decode (which also sees the gaps, where a wider one
// separates words).
func (n *Normalized) scanTokenRuns(t, enc string, in func(string) bool, decode func(string) (string, bool)) {
	runStart, runEnd, count := -1, -1, 0
	flush := func() {
		if count >= minCodeTokens && len(n.Payloads) < maxPayloads {
			if d, ok := decode(t[runStart:runEnd]); ok {
				n.addPayload(enc, runStart, runEnd, d)
			}
		}
		runStart, count = -1, 0
	}
	for i := 0; i < len(t); {
		for i < len(t) && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n') {
			i++
		}
		j := i
		for j < len(t) && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' {
			j++
		}
		if j == i {
			break
		}
		if tok := t[i:j]; in(tok) {
			if runStart < 0 {
				runStart = i
			}
			runEnd = j
			count++
		} else {
			flush()
		}
		i = j
	}
	flush()
}

// decodeMorse reads a run of Morse letters; "/" or a gap of two or more spaces ends a word.
func decodeMorse(run string) (string, bool) {
	var b strings.Builder
	for w, word := range strings.FieldsFunc(strings.ReplaceAll(strings.ReplaceAll(run, "|", "/"), "   ", " / "), func(r rune) bool { return r == '/' }) {
		if w > 0 {
			b.WriteByte(' ')
		}
		for _, tok := range strings.Fields(word) {
			b.WriteByte(morseLetters[tok])
		}
	}
	d := strings.TrimSpace(b.String())
	return d, readable([]byte(d))
}

// decodeBinary reads a run of space-separated bytes written as eight binary digits.
func decodeBinary(run string) (string, bool) {
	var out []byte
	for _, tok := range strings.Fields(run) {
		var c byte
		for i := 0; i < 8; i++ {
			c = c<<1 | (tok[i] - '0')
		}
		out = append(out, c)
	}
	return string(out), readable(out)
}
