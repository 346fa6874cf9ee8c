package eval

import "sync"

// maxConfusable is the largest key of confusables (TestMaxConfusableIsTheLargestKey):
// foldConfusables looks up no rune above it.
const maxConfusable = 'ꜱ'

// confusables maps lower-case Cyrillic, Greek and other letters that render like a Latin letter
// to that letter. It is a hand-picked subset of Unicode's confusables data covering the letters
// attackers use to spell English keywords; NFKC has already folded fullwidth and mathematical
// forms, so they are not repeated here. Only applied inside words that mix scripts or consist only
// of look-alikes (see foldConfusables).
var confusables = sync.OnceValue(func() map[rune]rune {
	return map[rune]rune{
		// Cyrillic
		'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'һ': 'h', 'і': 'i', 'ї': 'i', 'ј': 'j', 'к': 'k',
		'ӏ': 'l', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'ԛ': 'q', 'г': 'r', 'ѕ': 's', 'т': 't',
		'у': 'y', 'ԝ': 'w', 'х': 'x', 'с': 'c', 'ԁ': 'd', 'ɡ': 'g', 'ԍ': 'g', 'ү': 'y', 'ց': 'g',
		// Greek
		'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p',
		'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y', 'ω': 'w', 'ϲ': 'c', 'ϳ': 'j', 'ѵ': 'v',
		// Latin-script look-alikes outside ASCII that NFKC keeps
		'ı': 'i', 'ȷ': 'j', 'ɑ': 'a', 'ɩ': 'i', 'ʏ': 'y', 'ʀ': 'r', 'ɪ': 'i', 'ɴ': 'n', 'ᴏ': 'o',
		'ꜱ': 's', 'ᴛ': 't', 'ᴜ': 'u', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z', 'ᴅ': 'd', 'ᴇ': 'e', 'ɢ': 'g',
		'ʜ': 'h', 'ᴊ': 'j', 'ᴋ': 'k', 'ʟ': 'l', 'ᴍ': 'm', 'ᴘ': 'p', 'ᴄ': 'c', 'ʙ': 'b', 'ғ': 'f',
	}
})
