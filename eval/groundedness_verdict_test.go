package eval

import "testing"

// A statement can pronounce the one before it false ("… said the library would close in June.
// That was wrong."): the claim the earlier statement reports is then denied, in every language
// the corpus covers, while a following statement that is no verdict on it ("That was decided on
// Monday.") leaves it supported.
func TestAStatementThatPronouncesTheOneBeforeItFalseDeniesIt(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en that was wrong", "An earlier version of this notice said the library would close in June. That was wrong.", "The library will close in June.", false, "close in June"},
		{"en the denial restated", "An earlier version of this notice said the library would close in June. That was wrong.", "The library will not close in June.", true, ""},
		{"en which is false", "It was reported that the night bus will stop running in May, which is false.", "The night bus will stop running in May.", false, "night bus"},
		{"en a word of its own is no verdict", "The lift on platform 2 is out of service. If you enter the wrong code, the gate stays shut.", "The lift on platform 2 is out of service.", true, ""},
		{"en not a verdict", "The library will close in June. That was decided on Monday.", "The library will close in June.", true, ""},
		{"en unfounded", "Claims that the dam is leaking were investigated and found to be unfounded.", "The dam is leaking.", false, "leaking"},
		{"en the report is inaccurate", "A local paper wrote that the ferry service will end in October. The report is inaccurate.", "The ferry service will end in October.", false, "ferry"},
		{"fr fausse", "Une rumeur affirme que la piscine fermera en août. Cette information est fausse.", "La piscine fermera en août.", false, "piscine"},
		{"es errónea", "Se publicó que el museo cerrará en agosto. La información era errónea.", "El museo cerrará en agosto.", false, "museo"},
		{"de falsch", "Es hieß, die Brücke werde im Mai gesperrt. Diese Meldung ist falsch.", "Die Brücke wird im Mai gesperrt.", false, "Brücke"},
		{"ru не соответствует действительности", "Сообщалось, что завод закроют в мае. Эта информация не соответствует действительности.", "Завод закроют в мае.", false, "Завод"},
		{"zh 不实", "网上传言本市公交将于下月停运。经核实，该消息不实。", "本市公交将于下月停运。", false, "公交"},
		{"zh 不实, then the truth", "近日网传本市地铁将于下月起涨价。经核实，此消息不实，票价维持不变。", "本市地铁将于下月起涨价。", false, "涨价"},
		{"en that was wrong; then the truth", "An earlier notice said the pool would reopen in May. That was wrong; no date has been set.", "The pool will reopen in May.", false, "reopen"},
		{"zh verified", "本市公交将于下月停运。该消息已经核实。", "本市公交将于下月停运。", true, ""},
		{"ja 誤り", "先週の記事で図書館は六月に閉館すると報じましたが、誤りでした。", "図書館は六月に閉館します。", false, "閉館"},
	})
}
