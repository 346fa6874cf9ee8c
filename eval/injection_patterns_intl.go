package eval

import (
	"strings"
	"sync"

	"golang.org/x/text/unicode/norm"
)

// Instruction overrides in the languages the other multilingual patterns do not cover (added in
// flag_injection/6): an order to ignore, and, within a few words of it, the word for
// instructions or rules — the same two parts the English and the older multilingual patterns
// need, so "ignore my previous email" or "ignore the noise" stays clean in these languages too;
// "forget" is left out (every language says "don't forget the instructions" to people), and a
// negated order ("do not ignore the safety instructions") does not count.
// Where the language puts the verb after its object (Turkish, Hindi, Bengali, Tamil, Persian,
// Urdu) the noun is the anchor and the verb follows it. Written from the grammar of each
// language, not from any corpus item; anchors are NFKC-normalised and lower-cased here as the
// detector's text is, expressions (written in lower case) NFKC-normalised (Thai "ำ" becomes two
// characters under NFKC).
//
// A function with a sync.Once rather than a sync.OnceValue variable: the latter allocates its
// closure at package initialisation, in every command (TestVersionInitialisersStayInBudget).
func intlOverridePatterns() []*pattern {
	intlOverrideOnce.Do(func() { intlOverrideList = buildIntlOverridePatterns() })
	return intlOverrideList
}

var (
	intlOverrideOnce sync.Once
	intlOverrideList []*pattern
)

//nolint:misspell // words of other languages, not misspelt English
func buildIntlOverridePatterns() []*pattern {
	p := func(name string, anchors []string, rest string) *pattern {
		for i, a := range anchors {
			anchors[i] = strings.ToLower(norm.NFKC.String(a))
		}
		pt := pat(FamilyMultilingual, name, 0.85, anchors, norm.NFKC.String(rest)) // rest is written in lower case: ToLower would turn \S into \s
		pt.suffixOK = true
		return pt
	}
	const gap = `\S*\s+(?:\S+\s+){0,3}?`
	// not: the pattern does not count right after one of these words, the language's negation
	// of an order ("jangan abaikan instruksi keselamatan": do not ignore the safety instructions)
	not := (*pattern).unlessAfter
	return []*pattern{
		not(p("override-id", []string{"abaikan", "acuhkan"}, gap+`(?:instruksi|arahan|aturan|perintah|petunjuk|peraturan)`), "jangan", "tidak", "usah"),
		p("override-sw", []string{"puuza", "usifuate"}, gap+`(?:maagizo|maelekezo|sheria|amri)`),
		not(p("override-nordic", []string{"ignorera", "bortse från", "strunta i", "ignorer", "se bort fra"},
			gap+`(?:instruktion|instruks|regler|anvisning|direktiv)`), "inte", "ej", "ikke", "ikkje", "aldrig", "aldri", "ne", "n'", "pas"),
		not(p("override-nl", []string{"negeer"}, gap+`(?:instructie|regels|aanwijzing|opdrachten|richtlijnen)`), "niet", "nooit"),
		not(p("override-pl", []string{"zignoruj", "ignoruj", "pomiń"}, gap+`(?:instrukcj|polece|zasad|reguł|wytyczn)`), "nie", "ne"),
		not(p("override-cs", []string{"ignoruj", "ignorujte"}, gap+`(?:pokyn|instrukc|pravidl)`), "ne", "nie", "nikdy"),
		not(p("override-ro", []string{"ignoră", "ignorați", "ignora"}, gap+`(?:instrucțiun|instructiun|reguli|regulile|indicați)`), "nu"),
		not(p("override-hu", []string{"hagyd figyelmen kívül", "hagyja figyelmen kívül"}, gap+`(?:utasítás|szabály|instrukci)`), "ne", "soha"),
		not(p("override-fi", []string{"ohita", "sivuuta"}, gap+`(?:ohje|sääntö|käsky)`), "älä", "älkää"),
		not(p("override-el", []string{"αγνόησε", "αγνοήστε", "παράβλεψε"}, gap+`(?:οδηγί|κανόν|εντολ)`), "μην", "μη", "δεν"),
		not(p("override-uk", []string{"ігноруй", "проігноруй", "ігноруйте"}, gap+`(?:інструкці|вказівк|правил)`), "не", "he"), // "не" is all look-alikes and folds to "he"
		not(p("override-he", []string{"התעלם", "התעלמו", "תתעלם"}, gap+`(?:מ?ה?הוראות|מ?ה?הנחיות|מ?ה?כללים)`), "אל", "לא"),
		not(p("override-vi", []string{"bỏ qua", "phớt lờ"}, gap+`(?:hướng\s+dẫn|chỉ\s+dẫn|chỉ\s+thị|quy\s+tắc|lệnh)`), "đừng", "không", "chớ"),
		p("override-tl", []string{"huwag pansinin"}, `\S*\s+(?:\S+\s+){0,4}?(?:tagubilin|panuto|utos|patakaran)`),
		// the verb after its object, in its affirmative imperative only ("yok sayma", "नज़रअंदाज़ न
		// करें", "উপেক্ষা করবেন না" are the negated orders and do not match)
		p("override-tr", []string{"talimat", "kural", "yönerge", "komut"}, gap+`(?:yok\s+say(?:in|iniz)?\b|görmezden\s+gel(?:in|iniz)?\b|dikkate\s+alma\b)`),
		p("override-hi", []string{"निर्देश", "नियम", "आदेश"}, gap+`(?:अनदेखा|नजरअंदाज|नज़रअंदाज़|उपेक्षा)\s+(?:करो|करें|कर\s+दो|करिए|कीजिए)`),
		p("override-bn", []string{"নির্দেশ", "নিয়ম"}, gap+`উপেক্ষা\s+(?:করো|করুন|কর)(?:\s|$|[।,.])`),
		p("override-ta", []string{"வழிமுறை", "அறிவுறுத்தல்", "விதி"}, gap+`புறக்கணி(?:த்து|க்கவும்|[\s.,]|$)`),
		p("override-fa", []string{"دستور", "قوانین", "قواعد"}, gap+`نادیده\s+(?:بگیر|بگیرید)`),
		p("override-ur", []string{"ہدایات", "ہدایت", "قوانین"}, gap+`(?:نظرانداز|نظر\s+انداز)\s+(?:کرو|کریں|کر\s+دو|کردو)`),
		// Thai is written without spaces: the verb and the noun are adjacent characters (a
		// negation "อย่า" glued before the verb leaves it without a word start, so no match)
		p("override-th", []string{"ไม่ต้องสนใจ", "เพิกเฉย", "ละเว้น", "ไม่ต้องทำตาม"}, `[^\n]{0,12}?(?:คำสั่ง|คำแนะนำ|กฎ|ข้อกำหนด)`),
	}
}
