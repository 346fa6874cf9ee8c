package eval

import (
	"strings"
	"sync"
)

// synonymGroups are words a fair paraphrase swaps for one another ("staff" for "employees", "get"
// for "receive", "purchase" for "buy"). Each group's words share one alignment key, the stem of
// its first word, so a claim that restates the context in other words meets it. HEURISTIC: a
// small hand-written thesaurus of common, unambiguous pairs per language, not a parser; a word
// whose other common sense is a different thing ("place" as a location, "reach" a figure) is left
// out, since a wrong synonym lets an invented claim through.
//
//nolint:misspell // words of other languages, not misspelt English
var synonymGroups = [][]string{
	// English
	{"employee", "staff", "worker", "personnel", "staffer"},
	{"receive", "obtain", "get", "gets", "got"},
	{"buy", "purchase", "bought"},
	{"begin", "start", "commence", "began", "begun"},
	{"finish", "end", "conclude"},
	{"depart", "departure", "leave", "left"},
	{"arrive", "arrival"},
	{"show", "display"},
	{"large", "big"},
	{"small", "little", "tiny"},
	{"fast", "quick", "rapid", "quickly", "rapidly"},
	{"cost", "price", "fee", "fees", "costs", "prices", "priced", "charge", "charges", "charged", "pay", "paid", "payment"},
	{"require", "need", "needs", "needed", "requirement"},
	{"help", "assist", "assistance"},
	{"use", "utilise", "utilize", "usage"},
	{"choose", "select", "pick", "chose", "chosen", "selection"},
	{"car", "vehicle", "automobile"},
	{"doctor", "physician"},
	{"student", "pupil"},
	{"child", "kid", "kids", "children"},
	{"phone", "telephone"},
	{"email", "e-mail"},
	{"error", "mistake"},
	{"answer", "reply"},
	{"hire", "recruit"},
	{"repair", "fix"},
	{"main", "primary", "principal"},
	{"ill", "sick"},
	{"rank", "ranking", "ranked"},
	{"weekly", "week"},
	{"monthly", "month"},
	{"daily", "day"},
	{"yearly", "annual", "annually", "year"},
	{"permit", "licence", "license"},
	// French
	{"recevoir", "obtenir", "reçoit", "reçoivent", "obtient"},
	{"employé", "salarié", "employés", "salariés", "personnel"},
	{"acheter", "achat"},
	{"commencer", "débuter", "commence", "débute"},
	{"finir", "terminer", "finit", "termine"},
	{"prix", "tarif", "coût", "frais", "payer", "payant"},
	// Spanish
	{"recibir", "obtener", "recibe", "obtiene", "reciben", "obtienen"},
	{"empleado", "trabajador", "empleados", "trabajadores", "personal"},
	{"comprar", "adquirir", "compra"},
	{"empezar", "comenzar", "iniciar", "empieza", "comienza", "inicia"},
	{"terminar", "acabar", "finalizar", "termina", "acaba", "finaliza"},
	{"precio", "coste", "costo", "tarifa", "pagar", "cuesta"},
	// German
	{"erhalten", "bekommen", "erhält", "bekommt"},
	{"mitarbeiter", "angestellte", "beschäftigte", "mitarbeitende", "personal"},
	{"kaufen", "erwerben", "kauf"},
	{"beginnen", "anfangen", "starten", "beginnt", "fängt"},
	{"preis", "kosten", "gebühr", "gebühren", "kostet", "bezahlen", "zahlen"},
	// Russian
	{"получать", "получить", "получают", "получит", "получает"},
	{"сотрудник", "работник", "персонал", "сотрудники", "работники"},
	{"купить", "покупать", "приобрести"},
	{"начинать", "начать", "начинается", "стартует"},
	{"стоимость", "цена", "плата", "стоит", "платить", "оплата"},
	// free of charge, across languages (check_groundedness/18): "gratis" in one language is
	// "gratuito" or "kostenlos" in the next, and a paraphrase swaps them. English "free" is left
	// out: "free of errors", "free time", "feel free" are not about a price.
	{"gratis", "gratuito", "gratuita", "gratuitos", "gratuitas", "gratuit", "gratuite", "gratuits", "gratuites",
		"grátis", "kostenlos", "kostenlose", "kostenlosen", "kostenfrei", "gebührenfrei", "umsonst",
		"бесплатно", "бесплатный", "бесплатная", "бесплатное", "бесплатные", "bezpłatny", "bezpłatna", "bezpłatne", "gratuiti"},
	// to send, to depart
	{"versenden", "verschicken", "versendet", "verschickt", "versand"},
	{"отправляется", "уходит", "отходит", "отбывает", "отправление"},
	// Italian, Dutch, Polish
	{"dipendente", "dipendenti", "lavoratori", "personale"},
	{"medewerker", "medewerkers", "werknemer", "werknemers", "personeel"},
	{"pracownik", "pracownicy", "personel"},
}

// synonymsCJK are Chinese and Japanese words a paraphrase swaps, rewritten to the group's first
// word before a Han/kana run is cut into bigrams ("早上" is "上午", "出发" is "起飞" of a flight).
var synonymsCJK = [][]string{
	{"上午", "早上", "早晨"},
	{"出发", "起飞", "离开"},
	{"到达", "抵达"},
	{"员工", "职员", "雇员"},
	{"获得", "得到", "收到"},
	{"价格", "费用", "价钱", "收费"},
	{"开始", "启动"},
	{"购买", "购置"},
	{"従業員", "社員", "職員", "スタッフ"},
	{"料金", "価格", "値段", "費用"},
	{"開始", "スタート"},
	{"出発", "離陸"},
	{"到着", "着陸"},
	{"開店時間", "開店"},
}

// wordRelations are the alignment keys' synonyms and antonyms, built together on first use:
// eval's package-level initialisers are held to a budget (cmd/sentinel's startup test), and one
// more sync.OnceValue costs about as much as a small table.
type wordRelations struct {
	// synonyms maps the stem of every word of a synonym group to the stem of the group's first
	// word.
	synonyms map[string]string
	// antonyms maps a key to the keys of its opposites (antonymPairs).
	antonyms map[string][]string
}

var relations = sync.OnceValue(func() wordRelations {
	m := map[string]string{}
	for _, g := range synonymGroups {
		head := stemWord(g[0])
		for _, w := range g {
			if k := stemWord(w); k != head {
				if _, taken := m[k]; !taken {
					m[k] = head
				}
			}
		}
	}
	return wordRelations{synonyms: m, antonyms: antonymKeys(m)}
})

// synonymKeys maps the stem of every word of a group to the stem of the group's first word.
func synonymKeys() map[string]string { return relations().synonyms }

// synonymIndexCJK finds the words synonymReplacerCJK rewrites: a run that holds none of them is
// left as it is without the Replacer's copy.
var synonymIndexCJK = sync.OnceValue(func() *multiIndex {
	var words []string
	for _, g := range synonymsCJK {
		words = append(words, g[1:]...)
	}
	return newMultiIndex(words)
})

// synonymReplacerCJK rewrites CJK synonyms to their group's first word.
var synonymReplacerCJK = sync.OnceValue(func() *strings.Replacer {
	var pairs []string
	for _, g := range synonymsCJK {
		for _, w := range g[1:] {
			pairs = append(pairs, w, g[0])
		}
	}
	return strings.NewReplacer(pairs...)
})
