package eval

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// figure is one quantity a statement states: its value in a canonical unit of its category, so
// "2 hours" and "120 minutes", "$1,200" and "1200 dollars", "1.5 kg" and "1,500 grams" compare
// equal and a changed digit or order of magnitude does not.
type figure struct {
	values []float64 // candidate values: "1.250" is 1.25 in English and 1250 in German
	ident  string    // for a reference or version ("section 15.5.5"): the identifier as written
	cat    string    // unit category: "%", "cur:eur", "time" (minutes), "len" (m), "mass" (g), "vol" (l), "data" (GB), "clock", "date", "year", "version", "n:<noun>", or "" for a bare number
	start  int       // byte span in the statement text
	end    int
	old    bool // the statement marks it as superseded
	new    bool // the statement marks it as current
	// of, for an ordinal (cat "ord"), are the stems of the nouns it may order ("the third
	// production batch": produ, batch); two ordinals compare when they share one.
	of []string
}

// unitDef is one unit word: its category and the factor to the category's canonical unit.
type unitDef struct {
	cat    string
	factor float64
}

// units maps unit words and symbols (lower case) to their category. Plural and case forms are
// listed where stripping a final "s" does not reach them.
var units = sync.OnceValue(func() map[string]unitDef {
	m := map[string]unitDef{}
	add := func(cat string, factor float64, words ...string) {
		for _, w := range words {
			m[w] = unitDef{cat, factor}
		}
	}
	add("%", 1, "%", "％", "percent", "pourcent", "prozent", "процент", "процента", "процентов", "パーセント", "por ciento", "per cent", "pour cent", "percento")
	add("time", 1.0/60, "second", "seconds", "sec", "secs", "seconde", "secondes", "segundo", "segundos", "sekunde", "sekunden", "секунд", "秒")
	add("time", 1, "minute", "minutes", "min", "mins", "minuto", "minutos", "minuten", "минут", "минуты", "минута", "分钟", "分")
	add("time", 60, "hour", "hours", "h", "hr", "hrs", "heure", "heures", "hora", "horas", "stunde", "stunden", "час", "часа", "часов", "小时", "時間")
	add("time", 1440, "day", "days", "jour", "jours", "día", "días", "dia", "dias", "tag", "tage", "tagen", "werktag", "werktage", "werktagen", "день", "дня", "дней", "天", "日", "日間")
	add("time", 10080, "week", "weeks", "semaine", "semaines", "semana", "semanas", "woche", "wochen", "неделя", "недели", "недель", "周", "週間", "週")
	add("time", 43200, "month", "months", "mois", "mes", "meses", "monat", "monate", "monaten", "месяц", "месяца", "месяцев", "个月", "ヶ月", "か月", "カ月")
	add("time", 525600, "year", "years", "an", "ans", "année", "années", "año", "años", "jahr", "jahre", "jahren", "год", "года", "лет", "年間")
	add("len", 0.001, "mm", "millimetre", "millimetres", "millimeter", "millimeters")
	add("len", 0.01, "cm", "centimetre", "centimetres", "centimeter", "centimeters")
	add("len", 1, "m", "metre", "metres", "meter", "meters", "mètre", "mètres", "metro", "metros", "метр", "метра", "метров", "米", "メートル")
	add("len", 1000, "km", "kilometre", "kilometres", "kilometer", "kilometers", "kilomètre", "kilomètres", "kilómetro", "kilómetros", "километр", "километра", "километров", "公里", "キロ")
	add("len", 1609.344, "mile", "miles")
	add("len", 0.0254, "inch", "inches", "zoll", "英寸", "インチ")
	add("mass", 0.001, "mg")
	add("mass", 1, "g", "gram", "grams", "gramme", "grammes", "gramm", "gramo", "gramos", "грамм", "грамма", "граммов", "克")
	add("mass", 1000, "kg", "kilo", "kilos", "kilogram", "kilograms", "kilogramme", "kilogramm", "килограмм", "公斤")
	add("mass", 1e6, "tonne", "tonnes", "ton", "tons", "t")
	add("vol", 0.001, "ml")
	add("vol", 1, "l", "litre", "litres", "liter", "liters", "litro", "litros", "литр", "литра", "литров", "升", "リットル")
	add("data", 0.001, "mb", "megabyte", "megabytes")
	add("data", 1, "gb", "gigabyte", "gigabytes")
	add("data", 1000, "tb", "terabyte", "terabytes")
	// check_groundedness/5: milliseconds, imperial lengths, masses and volumes, the abbreviations
	// Russian and Chinese/Japanese write, and the units of Italian, Dutch, Polish and Turkish, so a
	// restatement in another unit or language meets the context's figure
	add("time", 1.0/60000, "ms", "millisecond", "milliseconds", "msec", "миллисекунд", "миллисекунды", "毫秒", "ミリ秒")
	add("time", 1.0/60, "сек", "secondi", "seconden", "sekund", "saniye", "秒間", "秒钟")
	add("time", 1, "мин", "minuti", "minuut", "minuten", "minut", "dakika", "分間")
	add("time", 60, "ч", "ore", "uur", "godzin", "godziny", "saat", "小時")
	add("time", 1440, "giorni", "giorno", "dag", "dagen", "dni", "dzień", "gün", "ημέρες", "ημέρα")
	add("time", 10080, "settimane", "settimana", "weken", "tygodnie", "tygodni", "hafta")
	add("time", 43200, "mesi", "maanden", "maand", "miesięcy", "miesiące")
	add("time", 525600, "anni", "anno", "jaar", "lat", "yıl")
	add("len", 0.3048, "ft", "foot", "feet")
	add("len", 0.9144, "yd", "yard", "yards")
	add("len", 1609.344, "mi")
	add("len", 0.001, "мм", "毫米", "ミリメートル", "millimetri")
	add("len", 0.01, "см", "厘米", "センチ", "センチメートル", "centimetri")
	add("len", 1, "м", "metri", "metro")
	add("len", 1000, "км", "キロメートル", "chilometri", "chilometro", "kilometri")
	add("mass", 453.59237, "lb", "lbs")
	add("mass", 28.349523125, "oz", "ounce", "ounces")
	add("mass", 0.001, "мг", "毫克", "milligram", "milligrams", "milligramme", "milligrammes")
	add("mass", 1, "grammi", "グラム")
	add("mass", 1000, "кг", "キログラム", "chilogrammi", "chilo", "kilogrammes", "kilogramos")
	add("vol", 0.001, "millilitre", "millilitres", "milliliter", "milliliters", "мл", "毫升", "ミリリットル", "millilitri")
	add("vol", 0.01, "cl", "centilitre", "centilitres")
	add("vol", 0.1, "dl", "decilitre", "decilitres")
	add("vol", 1, "л", "litri", "litro")
	add("vol", 3.785411784, "gallon", "gallons", "gal")
	add("data", 0.000001, "kb", "kilobyte", "kilobytes")
	add("data", 0.001, "мб", "мегабайт")
	add("data", 1, "гб", "гигабайт", "ギガバイト")
	add("data", 1000, "тб", "терабайт")
	add("data", 1000000, "pb", "petabyte", "petabytes")
	add("cur:usd", 1, "$", "usd", "dollar", "dollars", "dólar", "dólares", "доллар", "долларов")
	add("cur:eur", 1, "€", "eur", "euro", "euros", "евро")
	add("cur:gbp", 1, "£", "gbp", "pound", "pounds")
	add("cur:jpy", 1, "¥", "円", "yen", "jpy")
	add("cur:cny", 1, "元", "yuan", "rmb", "cny")
	add("cur:rub", 1, "₽", "руб", "рубль", "рубля", "рублей")
	// check_groundedness/9: data rates, a fortnight, and the units of Hindi
	add("rate", 0.001, "kbit", "kbps", "кбит")
	add("rate", 1, "mbit", "mbps", "мбит")
	add("rate", 1000, "gbit", "gbps", "гбит")
	add("time", 20160, "fortnight", "fortnights")
	add("len", 0.001, "मिलीमीटर")
	add("len", 0.01, "सेंटीमीटर")
	add("len", 1, "मीटर")
	add("len", 1000, "किलोमीटर", "किमी")
	add("mass", 1, "ग्राम")
	add("mass", 1000, "किलोग्राम", "किलो")
	add("vol", 1, "लीटर")
	add("time", 1.0/60, "सेकंड")
	add("time", 1, "मिनट")
	add("time", 60, "घंटे", "घंटा", "घंटों")
	add("time", 1440, "दिन", "दिनों")
	add("time", 10080, "सप्ताह", "हफ्ते", "हफ़्ते", "हफ्ता")
	add("time", 43200, "महीने", "महीना", "महीनों")
	add("time", 525600, "साल", "वर्ष")
	add("%", 1, "प्रतिशत")
	add("cur:inr", 1, "₹", "रुपये", "रुपए", "inr", "rupees")
	return m
})

// unitSkipWords sit between a figure and its unit ("3 working days", "5 mg twice").
// A switch, not a map: nothing to allocate at initialisation.
func unitSkipWords(w string) bool {
	switch w {
	case "working", "business", "calendar", "full", "whole", "more", "additional", "paid", "unpaid", "extra",
		"consecutive", "man":
		return true
	}
	return false
}

// multiplier is the factor a word scales the figure before it by ("2.1 million", "48 тысяч", "48k").
func multiplier(w string) (float64, bool) {
	switch w {
	case "k", "thousand", "thousands", "mille", "mil", "tausend", "тысяч", "тысячи", "тысяча", "тыс":
		return 1e3, true
	case "million", "millions", "millón", "millones", "millionen", "mio", "миллион", "миллиона", "миллионов", "млн":
		return 1e6, true
	case "billion", "billions", "bn", "milliard", "milliards", "mrd", "млрд":
		return 1e9, true
	}
	return 0, false
}

// numberWords are spelled-out numbers; a spelled number is a figure only when a unit or a noun
// follows it, so "the new one" is not.
var numberWords = sync.OnceValue(func() map[string]float64 {
	return map[string]float64{
		"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
		"ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
		"seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50,
		"sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12, "single": 1, "twice": 2,
		"deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10, "douze": 12,
		"quinze": 15, "vingt": 20, "trente": 30, "cent": 100,
		"dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10,
		"doce": 12, "quince": 15, "veinte": 20, "treinta": 30, "cien": 100,
		"zwei": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8, "neun": 9, "zehn": 10,
		"zwölf": 12, "fünfzehn": 15, "zwanzig": 20, "dreißig": 30, "hundert": 100,
		"один": 1, "одна": 1, "одно": 1, "два": 2, "две": 2, "три": 3, "четыре": 4, "пять": 5, "шесть": 6, "семь": 7,
		"восемь": 8, "девять": 9, "десять": 10, "двенадцать": 12, "пятнадцать": 15, "двадцать": 20, "тридцать": 30,
		"сто": 100, "двух": 2, "трёх": 3, "трех": 3,
	}
})

// months maps month names to 1..12 for dates ("15 March", "1. Juli", "15 марта").
var months = sync.OnceValue(func() map[string]int {
	m := map[string]int{}
	for i, names := range [][]string{
		{"january", "jan", "janvier", "enero", "januar", "января", "январь", "gennaio", "januari", "janeiro", "stycznia", "ocak", "січня"},
		{"february", "feb", "février", "febrero", "februar", "февраля", "февраль", "febbraio", "februari", "fevereiro", "lutego", "şubat", "лютого"},
		{"march", "mar", "mars", "marzo", "märz", "марта", "март", "maart", "março", "marca", "mart", "березня"},
		{"april", "apr", "avril", "abril", "апреля", "апрель", "aprile", "kwietnia", "nisan", "квітня"},
		{"may", "mai", "mayo", "мая", "май", "maggio", "mei", "maio", "maja", "mayıs", "травня"},
		{"june", "jun", "juin", "junio", "juni", "июня", "июнь", "giugno", "junho", "czerwca", "haziran", "червня"},
		{"july", "jul", "juillet", "julio", "juli", "июля", "июль", "luglio", "julho", "lipca", "temmuz", "липня"},
		{"august", "aug", "août", "agosto", "августа", "август", "augustus", "sierpnia", "ağustos", "серпня"},
		{"september", "sep", "sept", "septembre", "septiembre", "сентября", "сентябрь", "settembre", "setembro", "września", "eylül", "вересня"},
		{"october", "oct", "octobre", "octubre", "oktober", "октября", "октябрь", "ottobre", "outubro", "października", "ekim", "жовтня"},
		{"november", "nov", "novembre", "noviembre", "ноября", "ноябрь", "novembro", "listopada", "kasım", "листопада"},
		{"december", "dec", "décembre", "diciembre", "dezember", "декабря", "декабрь", "dicembre", "dezembro", "grudnia", "aralık", "грудня"},
	} {
		for _, n := range names {
			m[n] = i + 1
		}
	}
	return m
})

// isVersionWord reports whether w, before a number, makes it a version ("version 3.2", "v2").
func isVersionWord(w string) bool {
	switch w {
	case "version", "versión", "versione", "версия", "release", "v":
		return true
	}
	return false
}

// isReferenceWord reports whether w, before a number, makes it the name of a part of a document ("section 9.2", "Article
// 14"): compared with the same kind of part only.
func isReferenceWord(w string) bool {
	switch w {
	case "section", "sec", "clause", "article", "art", "chapter", "appendix", "annex", "table", "figure", "fig", "paragraph", "para", "page", "rule", "step", "item", "rfc", "§", "artikel", "abschnitt", "kapitel", "tabelle", "abbildung", "seite", "chapitre", "tableau", "paragraphe", "artículo", "sección", "capítulo", "tabla", "статья", "статьи", "раздел", "пункт", "глава", "таблица":
		return true
	}
	return false
}

// isRangeWord reports whether w joins two numbers that share the unit of the second ("2 to 3 days", "9–14").
func isRangeWord(w string) bool {
	switch w {
	case "to", "-", "–", "—", "à", "a", "bis", "до", "~", "〜", "至", "or", "ou", "o", "oder", "или", "and", "y", "und":
		return true
	}
	return false
}

// cjkNumerals are Chinese and Japanese numeral characters.
const cjkNumerals = "零〇一二两三四五六七八九十百千万億"

// cjkClassifiers after a CJK numeral make it a figure ("三百人", "一天", "五倍").
const cjkClassifiers = "人名元円天日年月个個次倍岁歳米克层楼位张本件台部周週分秒时時寸号号%％"

// extractFiguresInto finds the figures of a lower-cased, NFKC-normalised statement. It returns them in
// order with the text in which every figure's span is blanked, so the words left are content,
// and t's words (scanned into buf, which analyze reuses): when no figure is blanked the text is t,
// and analyze need not scan it again.
func extractFiguresInto(buf []word, t string) ([]figure, string, []word) {
	var figs []figure
	// the spans of t the figures take, blanked when the words are found: t is copied once, with
	// spaces for them, instead of copied to bytes, blanked and copied again to a string
	var spanBuf [8][2]int
	blanks := spanBuf[:0]
	words := scanWordsInto(buf, t)
	for i := 0; i < len(words); i++ {
		w := words[i]
		if d, y, used, ok := numericDate(words, i); ok {
			figs = append(figs, d)
			if y.cat != "" {
				figs = append(figs, y)
			}
			blanks = append(blanks, [2]int{d.start, d.end})
			i += used - 1
			continue
		}
		f, used, ok := figureAt(t, words, i)
		if !ok {
			continue
		}
		figs = append(figs, f)
		blanks = append(blanks, [2]int{f.start, f.end})
		i += used - 1
		_ = w
	}
	figs = joinRanges(figs, t)
	figs = mergeDurations(figs, t)
	if len(blanks) == 0 {
		return figs, t, words
	}
	return figs, blankSpans(t, blanks), words
}

// blankSpans is t with every byte of the spans replaced by a space.
func blankSpans(t string, spans [][2]int) string {
	ordered := true // in order and apart, as figures are found: written in one pass
	for k := 1; k < len(spans) && ordered; k++ {
		ordered = spans[k][0] >= spans[k-1][1]
	}
	if !ordered {
		b := []byte(t)
		for _, sp := range spans {
			for k := range b[sp[0]:sp[1]] {
				b[sp[0]+k] = ' '
			}
		}
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(t))
	at := 0
	for _, sp := range spans {
		if sp[1] <= sp[0] {
			continue
		}
		sb.WriteString(t[at:sp[0]])
		for range sp[1] - sp[0] {
			sb.WriteByte(' ')
		}
		at = sp[1]
	}
	sb.WriteString(t[at:])
	return sb.String()
}

// word is one run of the statement: letters, digits (with separators), a symbol, or a CJK run.
type word struct {
	s          string
	start, end int
	kind       byte // 'n' number, 'w' word, 'c' CJK run, 's' symbol
}

// scanWords splits t into numbers, words, CJK runs and single symbols, skipping spaces.
func scanWords(t string) []word {
	if t == "" {
		return nil
	}
	return scanWordsInto(nil, t)
}

// scanWordsInto is scanWords appending to buf[:0]; with a nil buf it sizes its own.
func scanWordsInto(buf []word, t string) []word {
	// about one word per space: sized once instead of grown from nothing, as scanWords runs
	// several times on every statement
	if t == "" {
		return buf[:0]
	}
	out := buf[:0]
	if n := strings.Count(t, " ") + 2; cap(out) < n {
		out = make([]word, 0, n)
	}
	for i := 0; i < len(t); {
		r, size := utf8.DecodeRuneInString(t[i:])
		switch {
		case unicode.IsSpace(r):
			i += size
		case r >= '0' && r <= '9':
			j := i
			for j < len(t) {
				c := t[j]
				if c >= '0' && c <= '9' {
					j++
					continue
				}
				// a separator followed by a digit continues the number: 1,200 1.5 1 200 (a single
				// space joins only groups of exactly three digits)
				if (c == ',' || c == '.') && j+1 < len(t) && t[j+1] >= '0' && t[j+1] <= '9' {
					j++
					continue
				}
				if sep, n := groupSpace(t[j:]); n > 0 && digitGroup3(t[j+sep:]) {
					j += sep
					continue
				}
				break
			}
			out = append(out, word{t[i:j], i, j, 'n'})
			i = j
		case isCJK(r):
			// a run of Han or kana, cut before a numeral so "有员工三百人" reads "有员工" and "三百人"
			j := i + size
			for j < len(t) {
				r2, s2 := utf8.DecodeRuneInString(t[j:])
				if !isCJK(r2) {
					break
				}
				prev, _ := utf8.DecodeLastRuneInString(t[i:j])
				if strings.ContainsRune(cjkNumerals, r2) && !strings.ContainsRune(cjkNumerals, prev) {
					break
				}
				j += s2
			}
			out = append(out, word{t[i:j], i, j, 'c'})
			i = j
		case unicode.IsLetter(r) || unicode.IsMark(r):
			j := i
			for j < len(t) {
				r2, s2 := utf8.DecodeRuneInString(t[j:])
				if unicode.IsLetter(r2) || unicode.IsMark(r2) || (r2 == '\'' || r2 == '-') && j+s2 < len(t) && isLetterAt(t, j+s2) {
					j += s2
					continue
				}
				if isCJK(r2) {
					break
				}
				break
			}
			out = append(out, word{t[i:j], i, j, 'w'})
			i = j
		default:
			out = append(out, word{t[i : i+size], i, i + size, 's'})
			i += size
		}
	}
	return out
}

func isLetterAt(t string, i int) bool {
	r, _ := utf8.DecodeRuneInString(t[i:])
	return unicode.IsLetter(r) && !isCJK(r)
}

// groupSpace reports how many bytes of space (one ASCII, no-break or thin space) start s.
func groupSpace(s string) (int, int) {
	for _, sp := range []string{" ", "\u00a0", "\u202f", "\u2009"} {
		if strings.HasPrefix(s, sp) {
			return len(sp), 1
		}
	}
	return 0, 0
}

// digitGroup3 reports whether s starts with exactly three digits.
func digitGroup3(s string) bool {
	if len(s) < 3 {
		return false
	}
	for i := range 3 {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) == 3 || s[3] < '0' || s[3] > '9'
}

func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 'ー' || r == '々'
}

// oneArticles are the indefinite articles that count one of the duration after them: "a week",
// "une semaine", "eine Woche".
var oneArticles = map[string]bool{"a": true, "an": true, "un": true, "une": true, "una": true, "uno": true,
	"ein": true, "eine": true, "einen": true, "einer": true}

// frequencyWords before "a day" make it a rate ("twice a day", "three times a week").
var frequencyWords = map[string]bool{"once": true, "twice": true, "times": true, "fois": true, "veces": true,
	"vez": true, "mal": true, "раза": true, "раз": true}

// articleDuration reads "a week", "an hour", "un an" as one of the unit (check_groundedness/9): a
// duration of a minute or more only, as "a second cabin bag" is no duration, and not after a
// figure, where it is a rate ("$49 a month").
func articleDuration(words []word, i int) (figure, bool) {
	if !oneArticles[words[i].s] || i+1 >= len(words) || words[i+1].kind != 'w' {
		return figure{}, false
	}
	if i > 0 && (words[i-1].kind == 'n' || frequencyWords[words[i-1].s]) {
		return figure{}, false // "$49 a month", "twice a day": a rate, per unit, not a duration
	}
	u, ok := units()[words[i+1].s]
	if !ok || u.cat != "time" || u.factor < 1 {
		return figure{}, false
	}
	return figure{values: []float64{u.factor}, cat: u.cat, start: words[i].start, end: words[i+1].end}, true
}

// figureWords are the words figureAt looks up for a word without a hyphen: months, ordinals,
// numbers and units. A word outside it starts no figure.
var figureWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for w := range months() {
		m[w] = true
	}
	for w := range ordinalWords() {
		m[w] = true
	}
	for w := range numberWords() {
		m[w] = true
	}
	for w := range units() {
		m[w] = true
	}
	return m
})

// figureAt reads a figure starting at words[i], returning how many words it used.
func figureAt(t string, words []word, i int) (figure, int, bool) {
	w := words[i]
	switch w.kind {
	case 'n':
		return numericFigure(t, words, i)
	case 'w':
		if f, ok := articleDuration(words, i); ok {
			return f, 2, true
		}
		if !groundednessReference && !strings.Contains(w.s, "-") && !figureWords()[w.s] {
			return figure{}, 0, false // none of the lookups below knows it: one lookup instead of four
		}
		if f, used, ok := dateFigure(words, i); ok {
			return f, used, true
		}
		if f, ok := ordinalFigure(words, i); ok {
			return f, 1, true
		}
		if v, ok := numberWords()[w.s]; ok && i+1 < len(words) {
			f := figure{values: []float64{v}, start: w.start, end: w.end}
			used := 1
			if v2, ok := numberWords()[words[i+1].s]; ok && v >= 20 && v < 100 && v2 < 10 { // twenty four
				f.values, f.end, used = []float64{v + v2}, words[i+1].end, 2
			}
			if strings.ContainsRune(w.s, '-') {
				return f, used, false
			}
			if n, cat, factor, ok := unitAfter(words, i+used); ok {
				f.cat, f.end = cat, words[i+used+n-1].end
				f.values = scale(f.values, factor)
				return f, used + n, true
			}
			if k := i + used; k+1 < len(words) && isRangeWord(words[k].s) && (words[k+1].kind == 'n' || numberWords()[words[k+1].s] > 0) {
				return f, used, true // "two to three days": the range gives it the unit
			}
			return f, used, false
		}
		// twenty-four, three-second: a word of two parts around one hyphen (cut, not split: this
		// runs on every word, and a split allocates for each)
		if first, second, ok := strings.Cut(w.s, "-"); ok && !strings.Contains(second, "-") {
			parts := [2]string{first, second}
			a, okA := numberWords()[parts[0]]
			if u, ok := units()[parts[1]]; okA && ok {
				return figure{values: []float64{a * u.factor}, cat: u.cat, start: w.start, end: w.end}, 1, true
			}
			if okA && utf8.RuneCountInString(parts[1]) > 2 && !isStopWord(parts[1]) && !negationSet()[parts[1]] {
				if _, isNum := numberWords()[parts[1]]; !isNum { // two-bedroom: a count of the noun
					return figure{values: []float64{a}, cat: "n:" + stem(parts[1]), start: w.start, end: w.end}, 1, true
				}
			}
			b, okB := numberWords()[parts[1]]
			if okA && okB && a >= 20 && b < 10 {
				f := figure{values: []float64{a + b}, start: w.start, end: w.end}
				if n, cat, factor, ok := unitAfter(words, i+1); ok {
					f.cat, f.end, f.values = cat, words[i+n].end, scale(f.values, factor)
					return f, 1 + n, true
				}
				return f, 1, true
			}
		}
		if u, ok := units()[w.s]; ok && strings.HasPrefix(u.cat, "cur:") && i+1 < len(words) && words[i+1].kind == 'n' {
			f, used, ok := numericFigure(t, words, i+1) // "USD 5"
			if ok && f.cat == "" {
				f.cat, f.start = u.cat, w.start
				return f, used + 1, true
			}
		}
	case 'c':
		f, used, ok := cjkFigure(w)
		if i > 0 && words[i-1].kind == 'c' && words[i-1].end == w.start && strings.HasSuffix(words[i-1].s, "第") {
			if v, n := leadingCJKNumber(w.s); n > 0 { // 第三季度: the third quarter
				return figure{values: []float64{v}, cat: "ord", of: []string{prefixRunes(w.s[n:], 2)}, start: w.start, end: w.start + n}, 1, true
			}
		}
		return f, used, ok
	case 's':
		if u, ok := units()[w.s]; ok && strings.HasPrefix(u.cat, "cur:") && i+1 < len(words) && words[i+1].kind == 'n' {
			f, used, ok := numericFigure(t, words, i+1) // "$5", "€4.90"
			if ok {
				f.cat, f.start = u.cat, w.start
				return f, used + 1, true
			}
		}
	}
	return figure{}, 0, false
}

// numericFigure reads a number in digits and what qualifies it.
func numericFigure(t string, words []word, i int) (figure, int, bool) {
	w := words[i]
	f := figure{values: parseNumber(w.s), start: w.start, end: w.end}
	if i > 0 && (isVersionWord(words[i-1].s) || isReferenceWord(words[i-1].s)) {
		f.cat, f.ident = "version", strings.TrimRight(w.s, ".")
		if isReferenceWord(words[i-1].s) {
			f.cat = "ref:" + words[i-1].s
		}
		return f, 1, true
	}
	if len(f.values) == 0 {
		return figure{}, 0, false
	}
	used := 1
	// clock time 14:30, 9 am, 5 pm
	if i+2 < len(words) && words[i+1].s == ":" && words[i+2].kind == 'n' && len(words[i+2].s) == 2 && words[i+1].start == w.end {
		h, m := f.values[0], parseNumber(words[i+2].s)
		if h < 24 && len(m) > 0 && m[0] < 60 {
			f.values, f.cat, f.end = []float64{h*60 + m[0]}, "clock", words[i+2].end
			used = 3
			if pm, n, ok := meridiem(words, i+3); ok {
				if pm && h < 12 {
					f.values[0] += 720
				}
				f.end, used = words[i+2+n].end, 3+n
			}
			return f, used, true
		}
	}
	if pm, n, ok := meridiem(words, i+1); ok && f.values[0] <= 12 {
		v := math.Mod(f.values[0], 12) * 60
		if h, m, ok := dottedClock(w.s); ok { // 2.30pm
			v = math.Mod(h, 12)*60 + m
		}
		if pm {
			v += 720
		}
		return figure{values: []float64{v}, cat: "clock", start: w.start, end: words[i+n].end}, 1 + n, true
	}
	if i+1 < len(words) && (words[i+1].s == "th" || words[i+1].s == "st" || words[i+1].s == "nd" || words[i+1].s == "rd") &&
		i+2 < len(words) && (words[i+2].s == "century" || words[i+2].s == "centuries") && words[i+1].start == w.end {
		return figure{values: f.values, cat: "century", start: w.start, end: words[i+2].end}, 3, true
	}
	if of, used, ok := numericOrdinal(words, i, f.values); ok {
		return of, used, true
	}
	if v := f.values[0]; len(f.values) == 1 && i+1 < len(words) && words[i+1].s == "s" && words[i+1].start == w.end && v >= 1000 && math.Mod(v, 100) == 0 {
		return figure{values: []float64{math.Floor(v/100) + 1}, cat: "century", start: w.start, end: words[i+1].end}, 2, true // the 1600s
	}
	if v := f.values[0]; len(f.values) == 1 && v >= 1800 && v <= 2100 && v == math.Trunc(v) && !strings.ContainsAny(w.s, ",. ") {
		_, unit := unitAfterKnown(words, i+1)
		if _, afterMonth := months()[prevWord(words, i)]; !unit || afterMonth { // "15 марта 2026 года" is a year, not 2026 years
			f.cat = "year"
			return f, used, true
		}
	}
	if df, n, ok := dateFigure(words, i); ok {
		return df, n, true
	}
	if i+1 < len(words) {
		if m, ok := multiplier(words[i+1].s); ok {
			f.values = scale(f.values, m)
			f.end = words[i+1].end
			used++
		} else if words[i+1].kind == 'c' {
			if m := cjkMultiplier(words[i+1].s); m > 1 {
				f.values = scale(f.values, m)
			}
		}
	}
	if n, cat, factor, ok := unitAfter(words, i+used); ok {
		f.cat, f.end = cat, words[i+used+n-1].end
		f.values = scale(f.values, factor)
		return f, used + n, true
	}
	if i+used < len(words) && words[i+used].kind == 'c' {
		if cat, factor, n, ok := cjkUnit(words[i+used].s); ok {
			f.cat, f.end = cat, words[i+used].start+n
			f.values = scale(f.values, factor)
			return f, used, true
		}
	}
	if len(f.values) == 1 && f.values[0] >= 1000 && f.values[0] <= 2100 && f.values[0] == math.Trunc(f.values[0]) && !strings.ContainsAny(w.s, ",. ") {
		f.cat = "year"
	}
	return f, used, true
}

// unitAfterKnown reports whether a unit word (not a counted noun) follows position i.
func unitAfterKnown(words []word, i int) (int, bool) {
	n, cat, _, ok := unitAfter(words, i)
	return n, ok && !strings.HasPrefix(cat, "n:")
}

// unitAfter reads the unit that follows position i: a unit word (possibly after "working"), or a
// noun that the figure counts ("120 staff"). n is how many words it used.
func unitAfter(words []word, i int) (n int, cat string, factor float64, ok bool) {
	skip := 0
	for i+skip < len(words) && unitSkipWords(words[i+skip].s) {
		skip++
	}
	if i+skip >= len(words) {
		return 0, "", 0, false
	}
	w := words[i+skip]
	if i+skip+1 < len(words) {
		two := w.s + " " + words[i+skip+1].s
		if u, ok := units()[two]; ok {
			return skip + 2, u.cat, u.factor, true
		}
	}
	if u, ok := units()[w.s]; ok {
		return skip + 1, u.cat, u.factor, true
	}
	if w.kind == 's' && w.s == "-" && i+skip+1 < len(words) { // 30-day
		if u, ok := units()[words[i+skip+1].s]; ok {
			return skip + 2, u.cat, u.factor, true
		}
	}
	if w.kind == 'w' && utf8.RuneCountInString(w.s) > 2 && !isStopWord(w.s) && !negationSet()[w.s] {
		if u, ok := units()[strings.TrimSuffix(w.s, "s")]; ok {
			return skip + 1, u.cat, u.factor, true
		}
		if i >= 2 && words[i-2].kind == 'w' && words[i-2].end == words[i-1].start && words[i-1].kind == 'n' {
			// a number glued to letters names a model or a room ("the X200 running", "vpn2"),
			// it counts nothing (check_groundedness/6)
			return 0, "", 0, false
		}
		return skip + 1, "n:" + stem(w.s), 1, true
	}
	return 0, "", 0, false
}

// dateFigure reads "15 March" or "March 15" (value month*100+day) at words[i].
func dateFigure(words []word, i int) (figure, int, bool) {
	w := words[i]
	if w.kind == 'n' && i+1 < len(words) {
		next := i + 1
		if words[next].s == "." && next+1 < len(words) { // 1. Juli
			next++
		}
		if dayOrdinalSuffix(words[next].s) && next+1 < len(words) { // the 15th of March
			next++
		}
		if dayMonthLinks(words[next].s) && next+1 < len(words) { // 3 de mayo
			next++
		}
		if m, ok := months()[words[next].s]; ok {
			d := parseNumber(w.s)
			if len(d) == 1 && d[0] >= 1 && d[0] <= 31 {
				return figure{values: []float64{float64(m*100) + d[0]}, cat: "date", start: w.start, end: words[next].end}, next - i + 1, true
			}
		}
	}
	if m, ok := months()[w.s]; ok && w.kind == 'w' && i+1 < len(words) {
		next := i + 1
		if words[next].s == "." && len(w.s) <= 4 && next+1 < len(words) { // Mar. 15
			next++
		}
		if words[next].kind == 'n' && (len(w.s) > 3 || next > i+1) {
			d := parseNumber(words[next].s)
			if len(d) == 1 && d[0] >= 1 && d[0] <= 31 {
				return figure{values: []float64{float64(m*100) + d[0]}, cat: "date", start: w.start, end: words[next].end}, next - i + 1, true
			}
		}
	}
	return figure{}, 0, false
}

// meridiem reads "am"/"pm", or "a.m."/"p.m.", at words[j]: whether it is pm and how many words
// it takes (check_groundedness/5 reads the dotted forms).
func meridiem(words []word, j int) (pm bool, n int, ok bool) {
	if j >= len(words) {
		return false, 0, false
	}
	switch words[j].s {
	case "am", "pm":
		return words[j].s == "pm", 1, true
	case "a", "p":
		if j+2 < len(words) && words[j+1].s == "." && words[j+2].s == "m" {
			n = 3
			if j+3 < len(words) && words[j+3].s == "." {
				n = 4
			}
			return words[j].s == "p", n, true
		}
	}
	return false, 0, false
}

// dottedClock reads "2.30" before "pm" as 2:30: an hour and two digits of minutes.
func dottedClock(s string) (h, m float64, ok bool) {
	k := strings.IndexAny(s, ".,")
	if k <= 0 || len(s)-k-1 != 2 {
		return 0, 0, false
	}
	hh, err1 := strconv.Atoi(s[:k])
	mm, err2 := strconv.Atoi(s[k+1:])
	if err1 != nil || err2 != nil || hh > 12 || mm >= 60 {
		return 0, 0, false
	}
	return float64(hh), float64(mm), true
}

// dayOrdinalSuffix and dayMonthLinks may stand between a day and its month: "the 15th of March",
// "3 de mayo" (check_groundedness/5).
// They are switches, not maps, so the package allocates nothing for them at initialisation.
func dayOrdinalSuffix(w string) bool {
	switch w {
	case "th", "st", "nd", "rd", "er", "º":
		return true
	}
	return false
}

func dayMonthLinks(w string) bool {
	return w == "of" || w == "de" || w == "del"
}

// groupSpaces removes the spaces that group digits ("1 200"). Built once: parseNumber runs on
// every figure of every statement, and building a Replacer costs more than using it.
var groupSpaces = sync.OnceValue(func() *strings.Replacer {
	return strings.NewReplacer(" ", "", "\u00a0", "", "\u202f", "", "\u2009", "")
})

// parseNumber returns the values a digit string can mean: "1,200" is 1200, "12,5" is 12.5,
// "1.250" is 1.25 or 1250, "1 200" is 1200.
func parseNumber(s string) []float64 {
	if strings.ContainsAny(s, " \u00a0\u202f\u2009") { // the Replacer copies s even when it replaces nothing
		s = groupSpaces().Replace(s)
	}
	commas, dots := strings.Count(s, ","), strings.Count(s, ".")
	parse := func(x string) []float64 {
		f, err := strconv.ParseFloat(x, 64)
		if err != nil {
			return nil
		}
		return []float64{f}
	}
	groups3 := func(sep string) bool {
		// strings.Split(s, sep)'s parts, read in place: every part after the first three bytes
		// long, the first one to three
		first, rest, found := strings.Cut(s, sep)
		for found {
			var p string
			p, rest, found = strings.Cut(rest, sep)
			if len(p) != 3 {
				return false
			}
		}
		return len(first) <= 3 && len(first) > 0
	}
	switch {
	case commas > 0 && dots > 0:
		if strings.LastIndex(s, ".") > strings.LastIndex(s, ",") {
			return parse(strings.ReplaceAll(s, ",", ""))
		}
		return parse(strings.ReplaceAll(strings.ReplaceAll(s, ".", ""), ",", "."))
	case commas > 0:
		if groups3(",") {
			return parse(strings.ReplaceAll(s, ",", ""))
		}
		if commas == 1 {
			return parse(strings.ReplaceAll(s, ",", "."))
		}
	case dots > 1:
		if groups3(".") {
			return parse(strings.ReplaceAll(s, ".", ""))
		}
	case dots == 1 && groups3("."):
		return append(parse(s), parse(strings.ReplaceAll(s, ".", ""))...)
	default:
		return parse(s)
	}
	return nil
}

func scale(vs []float64, f float64) []float64 {
	out := make([]float64, len(vs), len(vs)+1)
	for i, v := range vs {
		out[i] = v * f
	}
	if f == minutesPerMonth && len(vs) == 1 {
		// a month is 30 days ("1 month" = "30 days") or a twelfth of a year ("24 months" = "2
		// years"): both readings are candidates (check_groundedness/5)
		out = append(out, vs[0]*minutesPerYear/12)
	}
	return out
}

const (
	minutesPerMonth = 43200
	minutesPerYear  = 525600
)

// cjkFigure reads a CJK run that starts with a numeral ("三百人", "百分之十五", "一天").
func cjkFigure(w word) (figure, int, bool) {
	s := w.s
	pct := false
	if strings.HasPrefix(s, "百分之") {
		s, pct = s[len("百分之"):], true
	}
	v, n := leadingCJKNumber(s)
	if n == 0 {
		return figure{}, 0, false
	}
	num, rest := s[:n], s[n:]
	single := utf8.RuneCountInString(num) == 1
	f := figure{values: []float64{v}, start: w.start, end: w.start + (len(w.s) - len(s)) + n}
	if pct {
		f.cat = "%"
		return f, 1, true
	}
	if strings.HasPrefix(rest, "年") && !strings.HasPrefix(rest, "年間") {
		if v >= 1000 {
			f.cat = "year"
		} else {
			f.cat, f.values = "time", scale(f.values, 525600)
		}
		f.end += len("年")
		return f, 1, true
	}
	if cat, factor, n, ok := cjkUnit(rest); ok {
		f.cat, f.values = cat, scale(f.values, factor)
		f.end += n
		return f, 1, true
	}
	first, _ := utf8.DecodeRuneInString(rest)
	if rest == "" || strings.ContainsRune(cjkClassifiers, first) || !single {
		return f, 1, rest == "" || strings.ContainsRune(cjkClassifiers, first) || !single
	}
	return figure{}, 0, false
}

// parseCJKNumber reads Chinese numerals: 三百 300, 一百五十 150, 六十 60, 二零零五 2005.
func parseCJKNumber(s string) (float64, bool) {
	digit := map[rune]float64{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	unit := map[rune]float64{'十': 10, '百': 100, '千': 1000}
	big := map[rune]float64{'万': 1e4, '億': 1e8}
	positional := true
	for _, r := range s {
		if _, ok := digit[r]; !ok {
			positional = false
		}
	}
	if positional && utf8.RuneCountInString(s) > 1 {
		v := 0.0
		for _, r := range s {
			v = v*10 + digit[r]
		}
		return v, true
	}
	total, section, cur := 0.0, 0.0, 0.0
	for _, r := range s {
		switch {
		case r == '零' || r == '〇':
		case unit[r] > 0:
			if cur == 0 {
				cur = 1
			}
			section += cur * unit[r]
			cur = 0
		case big[r] > 0:
			total += (section + cur) * big[r]
			section, cur = 0, 0
		default:
			d, ok := digit[r]
			if !ok {
				return 0, false
			}
			cur = d
		}
	}
	return total + section + cur, true
}

// cjkUnitWords are the units written in CJK, longest first. cjkUnit had gone through the whole
// unit table for every CJK figure.
var cjkUnitWords = sync.OnceValue(func() []string {
	var ws []string
	for w := range units() {
		if w != "" && isCJKString(w) {
			ws = append(ws, w)
		}
	}
	slices.SortFunc(ws, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return ws
})

// cjkUnit reads a unit at the start of a CJK run ("元", "公里", "个月", "人") and its length.
func cjkUnit(s string) (string, float64, int, bool) {
	best := ""
	for _, w := range cjkUnitWords() { // longest first: the first that s starts with is the longest
		if strings.HasPrefix(s, w) {
			best = w
			break
		}
	}
	if best != "" {
		return units()[best].cat, units()[best].factor, len(best), true
	}
	for _, cls := range []string{"人", "名", "位"} { // people, however counted
		if strings.HasPrefix(s, cls) {
			return "n:人", 1, len(cls), true
		}
	}
	for _, cls := range []string{"个", "個", "倍", "岁", "歳", "层", "台", "件"} {
		if strings.HasPrefix(s, cls) {
			return "n:" + cls, 1, len(cls), true
		}
	}
	return "", 0, 0, false
}

// cjkMultiplier is the scale of a CJK run that follows a digit ("5万").
func cjkMultiplier(s string) float64 {
	switch {
	case strings.HasPrefix(s, "万"):
		return 1e4
	case strings.HasPrefix(s, "億"):
		return 1e8
	case strings.HasPrefix(s, "千"):
		return 1e3
	}
	return 1
}

func isCJKString(s string) bool {
	for _, r := range s {
		if !isCJK(r) {
			return false
		}
	}
	return true
}

// joinRanges gives the first number of a range the unit of the second: "2 to 3 days".
func joinRanges(figs []figure, t string) []figure {
	for i := 0; i+1 < len(figs); i++ {
		a, b := &figs[i], figs[i+1]
		if a.cat != "" && a.cat != "year" || b.cat == "" {
			continue
		}
		between := strings.TrimSpace(t[a.end:b.start])
		if isRangeWord(between) || between == "" {
			if a.cat == "year" && b.cat != "year" {
				continue
			}
			a.cat = b.cat
			if u, ok := unitFactorOf(t, b); ok {
				a.values = scale(a.values, u)
			}
		}
	}
	return figs
}

// unitFactorOf recovers the factor a figure's unit applied, from its values and text.
func unitFactorOf(t string, f figure) (float64, bool) {
	first := strings.Fields(t[f.start:f.end])[0]
	raw := parseNumber(first)
	if v, ok := numberWords()[first]; ok {
		raw = []float64{v}
	}
	if len(raw) == 0 || raw[0] == 0 || len(f.values) == 0 {
		return 1, false
	}
	return f.values[0] / raw[0], true
}

// mergeDurations adds adjacent durations: "3 hours 40 minutes" is 220 minutes.
func mergeDurations(figs []figure, t string) []figure {
	out := figs[:0]
	for _, f := range figs {
		if n := len(out); n > 0 && f.cat == "time" && out[n-1].cat == "time" && strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(t[out[n-1].end:f.start]), "and")) == "" &&
			len(f.values) == 1 && len(out[n-1].values) == 1 && f.values[0] < out[n-1].values[0] {
			out[n-1].values[0] += f.values[0]
			out[n-1].end = f.end
			continue
		}
		out = append(out, f)
	}
	return out
}

// sameValue reports whether two figures can mean the same quantity.
func sameValue(a, b figure) bool {
	counted := strings.HasPrefix(a.cat, "n:") && strings.HasPrefix(b.cat, "n:") // "one checked bag", "1 bag"
	if !comparableFigures(a, b) && a.cat != "" && b.cat != "" && !counted {
		return false
	}
	if a.ident != "" || b.ident != "" {
		return a.ident == b.ident
	}
	for _, x := range a.values {
		for _, y := range b.values {
			if math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(x)) {
				return true
			}
		}
	}
	return false
}

// comparableFigures reports whether two figures measure the same kind of thing, so a different
// value is a contradiction rather than another fact.
func comparableFigures(a, b figure) bool {
	if a.cat == "ord" && b.cat == "ord" {
		return slices.ContainsFunc(a.of, func(n string) bool { return slices.Contains(b.of, n) })
	}
	return a.cat == b.cat
}

// ordinalWords are spelled ordinals ("third", "troisième", "tercera", "dritte", "третий") and
// their values. Built on first use.
var ordinalWords = sync.OnceValue(func() map[string]float64 {
	m := map[string]float64{}
	for v, ws := range [][]string{
		1:  {"first", "premier", "première", "primera", "primer", "primero"},
		2:  {"second", "deuxième", "seconde", "segunda"},
		3:  {"third", "troisième", "tercera", "tercer", "tercero"},
		4:  {"fourth", "quatrième", "cuarta", "cuarto"},
		5:  {"fifth", "cinquième", "quinta", "quinto"},
		6:  {"sixth", "sixième", "sexta", "sexto"},
		7:  {"seventh", "septième", "séptima", "séptimo"},
		8:  {"eighth", "huitième", "octava", "octavo"},
		9:  {"ninth", "neuvième", "novena", "noveno"},
		10: {"tenth", "dixième", "décima", "décimo"},
		11: {"eleventh"},
		12: {"twelfth"},
	} {
		for _, w := range ws {
			m[w] = float64(v)
		}
	}
	for v, stem := range []string{1: "erst", 2: "zweit", 3: "dritt", 4: "viert", 5: "fünft", 6: "sechst", 7: "siebt", 8: "acht", 9: "neunt", 10: "zehnt"} {
		if stem == "" {
			continue // index 0: without this, the bare endings ("en", "es", "er") read as ordinal 0 (fixed in check_groundedness/6)
		}
		for _, end := range []string{"e", "er", "en", "es", "em"} {
			if v != 8 || end != "e" { // "achte" is also "respects"; "achten" "to respect"
				m[stem+end] = float64(v)
			}
		}
	}
	for v, stem := range []string{1: "перв", 2: "втор", 4: "четвёрт", 5: "пят", 6: "шест", 7: "седьм", 8: "восьм", 9: "девят", 10: "десят"} {
		if stem == "" {
			continue // indexes 0 and 3 ("третий" is below): the bare endings are no ordinal
		}
		for _, end := range []string{"ый", "ой", "ая", "ое", "ого", "ом", "ую", "ые", "ых", "ому"} {
			m[stem+end] = float64(v)
			if v == 4 {
				m["четверт"+end] = 4
			}
		}
	}
	for _, w := range []string{"третий", "третья", "третье", "третьего", "третьем", "третью", "третьей", "третьи"} {
		m[w] = 3
	}
	return m
})

// ordinalFigure reads a spelled ordinal followed by the noun it orders ("the fourth quarter",
// "fourth-quarter", "the third production batch"): a figure of category "ord", so "fourth
// quarter" against "third quarter" is another value, not a paraphrase. An ordinal with no noun
// after it ("at first") stays a word.
func ordinalFigure(words []word, i int) (figure, bool) {
	w := words[i]
	head := w.s
	var of []string
	if k := strings.IndexByte(w.s, '-'); k > 0 {
		head = w.s[:k]
		if n := w.s[k+1:]; contentNoun(n) {
			of = append(of, stem(n))
		}
	}
	v, ok := ordinalWords()[head]
	if !ok {
		return figure{}, false
	}
	if len(of) == 0 && (i+1 >= len(words) || !contentNoun(words[i+1].s) || words[i+1].kind != 'w') {
		return figure{}, false
	}
	of = append(of, ordinalNouns(words, i+1)...)
	return figure{values: []float64{v}, cat: "ord", of: of, start: w.start, end: w.start + len(head)}, true
}

// contentNoun reports whether w may be the noun an ordinal or a count qualifies.
func contentNoun(w string) bool {
	return utf8.RuneCountInString(w) >= 3 && !isStopWord(w) && !negationSet()[w]
}

// ordinalNouns are the stems of the first two content words from words[i], within three words.
func ordinalNouns(words []word, i int) []string {
	var out []string
	for k := i; k < min(len(words), i+3) && len(out) < 2; k++ {
		if words[k].kind != 'w' {
			break
		}
		if contentNoun(words[k].s) {
			out = append(out, stem(words[k].s))
		}
	}
	return out
}

// numericOrdinal reads an ordinal in digits: "4th quarter", "Q3" (the third quarter), "第3四半期".
func numericOrdinal(words []word, i int, values []float64) (figure, int, bool) {
	w := words[i]
	if len(values) != 1 {
		return figure{}, 0, false
	}
	if i > 0 && words[i-1].end == w.start && (words[i-1].s == "q" || words[i-1].kind == 'c' && strings.HasSuffix(words[i-1].s, "第")) {
		of := []string{stem("quarter")}
		start := words[i-1].start
		if words[i-1].s != "q" {
			if i+1 >= len(words) || words[i+1].kind != 'c' {
				return figure{}, 0, false
			}
			of, start = []string{prefixRunes(words[i+1].s, 2)}, w.start
		}
		return figure{values: values, cat: "ord", of: of, start: start, end: w.end}, 1, true
	}
	if i+2 < len(words) && words[i+1].start == w.end && (words[i+1].s == "th" || words[i+1].s == "st" || words[i+1].s == "nd" || words[i+1].s == "rd") &&
		words[i+2].kind == 'w' && contentNoun(words[i+2].s) {
		return figure{values: values, cat: "ord", of: ordinalNouns(words, i+2), start: w.start, end: words[i+1].end}, 2, true
	}
	return figure{}, 0, false
}

// leadingCJKNumber reads the Chinese numeral that starts s and its length in bytes.
func leadingCJKNumber(s string) (float64, int) {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if !strings.ContainsRune(cjkNumerals, r) {
			break
		}
		n += size
	}
	if n == 0 {
		return 0, 0
	}
	v, ok := parseCJKNumber(s[:n])
	if !ok {
		return 0, 0
	}
	return v, n
}

// numericDate reads a date written in digits at words[i] as the day-and-month figure "15 March"
// gives and the year figure "2026" gives, so "2026-03-15", "15/03/2026", "15.03.2026",
// "2026年3月15日" and "2026년 3월 15일" restate "15 March 2026", and "3月15日" "15 March"
// (check_groundedness/4). A
// slashed date whose day and month could be either way round ("03/04/2026") may mean both.
func numericDate(words []word, i int) (date, year figure, used int, ok bool) {
	if words[i].kind != 'n' && !groundednessReference {
		return figure{}, figure{}, 0, false // every form below starts with a number
	}
	num := func(k, lo, hi int) (int, bool) {
		if k >= len(words) || words[k].kind != 'n' || strings.ContainsAny(words[k].s, ",. ") {
			return 0, false
		}
		v, err := strconv.Atoi(words[k].s)
		return v, err == nil && v >= lo && v <= hi
	}
	sym := func(k int, set string) bool {
		return k < len(words) && words[k].kind == 's' && len(words[k].s) == 1 && strings.Contains(set, words[k].s)
	}
	marker := func(k int, list ...string) bool {
		if k >= len(words) || words[k].kind != 'c' && words[k].kind != 'w' {
			return false
		}
		for _, m := range list {
			if strings.HasPrefix(words[k].s, m) {
				return true
			}
		}
		return false
	}
	mk := func(first, last, y int, md ...int) (figure, figure, int, bool) {
		vals := make([]float64, 0, len(md))
		for _, v := range md {
			if !slices.Contains(vals, float64(v)) {
				vals = append(vals, float64(v))
			}
		}
		end := words[last].end
		if k := words[last].kind; k == 'c' || k == 'w' { // "日" ends the date, not the run it opens ("日推迟到")
			_, size := utf8.DecodeRuneInString(words[last].s)
			end = words[last].start + size
		}
		d := figure{values: vals, cat: "date", start: words[first].start, end: end}
		if y == 0 { // a day and month without a year
			return d, figure{}, last - first + 1, true
		}
		yf := figure{values: []float64{float64(y)}, cat: "year", start: words[first].start, end: end}
		return d, yf, last - first + 1, true
	}
	w := words[i]
	// 15.03.2026: one number word with two dots, day first
	if w.kind == 'n' && strings.Count(w.s, ".") == 2 && !strings.ContainsAny(w.s, ", ") {
		p := strings.Split(w.s, ".")
		d, e1 := strconv.Atoi(p[0])
		m, e2 := strconv.Atoi(p[1])
		y, e3 := strconv.Atoi(p[2])
		if e1 == nil && e2 == nil && e3 == nil && len(p[2]) == 4 && d >= 1 && d <= 31 && m >= 1 && m <= 12 {
			return mk(i, i, y, m*100+d)
		}
	}
	if y, okY := num(i, 1000, 2999); okY && len(w.s) == 4 {
		// 2026-03-15, 2026/03/15
		if sym(i+1, "-/") && sym(i+3, words[i+1].s) {
			if m, okM := num(i+2, 1, 12); okM {
				if d, okD := num(i+4, 1, 31); okD {
					return mk(i, i+4, y, m*100+d)
				}
			}
		}
		// 2026年3月15日, 2026년 3월 15일
		if marker(i+1, "年", "년") {
			if m, okM := num(i+2, 1, 12); okM && marker(i+3, "月", "월") {
				if d, okD := num(i+4, 1, 31); okD && marker(i+5, "日", "일") {
					return mk(i, i+5, y, m*100+d)
				}
			}
		}
	}
	// 3月15日, 3월 15일: a day and month, no year
	if m, okM := num(i, 1, 12); okM && marker(i+1, "月", "월") {
		if d, okD := num(i+2, 1, 31); okD && marker(i+3, "日", "일") {
			return mk(i, i+3, 0, m*100+d)
		}
	}
	// 15/03/2026, 03/15/2026, 15-03-2026
	if a, okA := num(i, 1, 31); okA && sym(i+1, "/-") && sym(i+3, words[i+1].s) {
		if b, okB := num(i+2, 1, 31); okB {
			if y, okY := num(i+4, 1000, 2999); okY && len(words[i+4].s) == 4 {
				switch {
				case a > 12 && b <= 12:
					return mk(i, i+4, y, b*100+a)
				case b > 12 && a <= 12:
					return mk(i, i+4, y, a*100+b)
				case a <= 12 && b <= 12:
					return mk(i, i+4, y, b*100+a, a*100+b)
				}
			}
		}
	}
	return figure{}, figure{}, 0, false
}

// prevWord is the text of words[i-1], or "".
func prevWord(words []word, i int) string {
	if i == 0 {
		return ""
	}
	return words[i-1].s
}
