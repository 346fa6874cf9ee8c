package eval

import "testing"

// check_groundedness/4: negation and denial in the languages held-out v2 brought (Italian, Dutch,
// Polish, Ukrainian, Turkish, Greek, Vietnamese, Arabic, Hebrew, Hindi, Korean), each beside its
// correct restatement.
func TestClaimThatTheContextDeniesIsUngroundedInMoreLanguages(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"it negation", "Il negozio non accetta carte di credito.", "Il negozio accetta carte di credito.", false, "accetta"},
		{"it restated", "Il negozio non accetta carte di credito.", "Il negozio non accetta le carte di credito.", true, ""},
		{"nl negation", "De winkel accepteert geen contant geld.", "De winkel accepteert contant geld.", false, "accepteert"},
		{"pl negation", "Sklep nie przyjmuje gotówki.", "Sklep przyjmuje gotówkę.", false, "przyjmuje"},
		{"uk prohibition", "У парку заборонено їздити на велосипеді.", "У парку можна їздити на велосипеді.", false, "велосипеді"},
		{"tr absence", "Otelde evcil hayvan kabulü yok.", "Otelde evcil hayvan kabulü var.", false, "kabulü"},
		{"el negation", "Το μουσείο δεν ανοίγει τη Δευτέρα.", "Το μουσείο ανοίγει τη Δευτέρα.", false, "ανοίγει"},
		{"vi negation", "Cửa hàng không nhận thẻ tín dụng.", "Cửa hàng nhận thẻ tín dụng.", false, "nhận"},
		{"ar negation", "المتجر لا يقبل الدفع نقدا.", "المتجر يقبل الدفع نقدا.", false, "يقبل"},
		{"ar restated", "المتجر لا يقبل الدفع نقدا.", "المتجر لا يقبل الدفع نقدا أبدا.", true, ""},
		{"he negation", "המוזיאון לא פתוח ביום שני.", "המוזיאון פתוח ביום שני.", false, "פתוח"},
		{"hi negation", "यह सेवा रिफंड नहीं देती है।", "यह सेवा रिफंड देती है।", false, "रिफंड"},
		{"hi restated", "यह सेवा रिफंड नहीं देती है।", "यह सेवा रिफंड नहीं देती।", true, ""},
		{"ko negation", "이 서비스는 환불을 지원하지 않습니다.", "이 서비스는 환불을 지원합니다.", false, "환불을"},
		{"ko restated", "이 서비스는 환불을 지원하지 않습니다.", "이 서비스는 환불을 지원하지 않습니다.", true, ""},
		{"ko absence", "이 호텔에는 수영장이 없습니다.", "이 호텔에는 수영장이 있습니다.", false, "수영장이"},
	})
}

// A date written in digits restates the same date in words, in every common order and script;
// another day, month or year is still a mismatch.
func TestNumericDatesRestateDatesInWords(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"ISO", "The launch is on 2026-03-15.", "The launch is on 15 March 2026.", true, ""},
		{"ISO, month first", "The launch is on 2026-03-15.", "The launch is on March 15, 2026.", true, ""},
		{"day/month/year", "The launch is on 15/03/2026.", "The launch is on 15 March 2026.", true, ""},
		{"month/day/year", "The launch is on 03/15/2026.", "The launch is on 15 March 2026.", true, ""},
		{"dotted", "The launch is on 15.03.2026.", "The launch is on March 15, 2026.", true, ""},
		{"CJK", "The launch is on March 15, 2026.", "The launch is on 2026年3月15日.", true, ""},
		{"Korean", "The launch is on March 15, 2026.", "The launch is on 2026년 3월 15일.", true, ""},
		{"de", "Der Start ist am 15. März 2026.", "Der Start ist am 2026-03-15.", true, ""},
		{"ru, year with года", "Запуск назначен на 15 марта 2026 года.", "Запуск назначен на 15.03.2026.", true, ""},
		{"fr", "Le lancement est prévu le 15 mars 2026.", "Le lancement est prévu le 15/03/2026.", true, ""},
		{"CJK, no year", "The launch is on 15 March.", "The launch is on 3月15日.", true, ""},
		{"CJK, no year, another day", "The launch is on 15 March.", "The launch is on 3月16日.", false, "3月16日"},
		{"another day", "The launch is on 2026-03-15.", "The launch is on 16 March 2026.", false, "16 March"},
		{"another month", "The launch is on 2026-03-15.", "The launch is on 2026-04-15.", false, "2026-04-15"},
		{"another year", "The launch is on 15/03/2026.", "The launch is on 15 March 2027.", false, "2027"},
	})
}

// More ways of marking a value as replaced (a replacement, a postponement, an extension, "which
// was") and a retraction written with the verb in the present, in several languages.
func TestSupersessionAndRetractionInMoreForms(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en replaces … with", "Version 5 replaces the 60-day warranty with a 90-day warranty.", "The warranty lasts 60 days.", false, "60 days"},
		{"en replaces, current value", "Version 5 replaces the 60-day warranty with a 90-day warranty.", "The warranty lasts 90 days.", true, ""},
		{"en postponed", "The hearing was postponed from 3 June to 17 June.", "The hearing is on 3 June.", false, "3 June"},
		{"de verschoben", "Die Prüfung wurde vom 4. März auf den 11. März verschoben.", "Die Prüfung ist am 4. März.", false, "4. März"},
		{"de verschoben, current value", "Die Prüfung wurde vom 4. März auf den 11. März verschoben.", "Die Prüfung ist am 11. März.", true, ""},
		{"es que era … ampliado", "El plazo, que era de 10 días, se ha ampliado a 15 días.", "El plazo es de 10 días.", false, "10 días"},
		{"fr reporté", "Le concert a été reporté du 2 mai au 9 mai.", "Le concert a lieu le 2 mai.", false, "2 mai"},
		{"ru перенесён", "Рейс перенесён с 10 июля на 12 июля.", "Рейс состоится 10 июля.", false, "10 июля"},
		{"zh 推迟", "发布会从5月3日推迟到5月10日。", "发布会在5月3日举行。", false, "5月3日"},
		{"en retract", "The journal retracts the 2019 claim that the vaccine causes fatigue.", "The vaccine causes fatigue.", false, "causes fatigue"},
		{"de widerruft", "Der Verlag widerruft die Meldung, dass das Werk verkauft wird.", "Das Werk wird verkauft.", false, "verkauft"},
	})
}

// A rejection, refusal, cancellation or denial of a report denies what it rejects, in several
// languages; Turkish negates inside the verb.
func TestRejectionAndDenialVerbsDenyWhatTheyReject(t *testing.T) {
	checkGroundednessCases(t, []groundednessCaseT{
		{"en rejected", "The board rejected the plan to open a store in Leeds.", "The board approved the plan to open a store in Leeds.", false, "approved"},
		{"en rejected, restated", "The board rejected the plan to open a store in Leeds.", "The board did not approve the plan to open a store in Leeds.", true, ""},
		{"de dementierte", "Der Konzern dementierte Berichte über eine Übernahme der Werft.", "Der Konzern plant eine Übernahme der Werft.", false, "Übernahme"},
		{"fr rejeté", "Le conseil a rejeté le projet de piscine.", "Le conseil a adopté le projet de piscine.", false, "piscine"},
		{"es rechazó", "El ayuntamiento rechazó la propuesta del nuevo puente.", "El ayuntamiento aprobó la propuesta del nuevo puente.", false, "aprobó"},
		{"ru опровергло", "Министерство опровергло сообщения о закрытии завода.", "Министерство подтвердило сообщения о закрытии завода.", false, "подтвердило"},
		{"zh 取消", "周末的免费班车已经取消。", "周末有免费班车。", false, "免费班车"},
		{"ja 否定", "会社は工場閉鎖の報道を否定した。", "会社は工場閉鎖の報道を認めた。", false, "認めた"},
		{"ar نفت", "نفت الشركة الأنباء عن إغلاق المصنع.", "أكدت الشركة الأنباء عن إغلاق المصنع.", false, "أكدت"},
		{"tr -miyor", "Otel evcil hayvan kabul etmiyor.", "Otel evcil hayvan kabul ediyor.", false, "ediyor"},
		{"tr -memekte", "Otelde evcil hayvan kabul edilmemektedir.", "Otelde evcil hayvan kabul ediliyor.", false, "ediliyor"},
	})
}
