package eval

import "sync"

// Word lists of the claim checker, for the languages the corpus covers: English, French,
// Spanish, German, Russian, Chinese and Japanese (Italian and Portuguese get the words they share
// with Spanish and French). Entries are lower case; words in scripts with spaces are matched as
// whole words, CJK entries as substrings. HEURISTIC: hand-written lists, not a parser; what they
// miss goes to the ambiguous band or is a documented limit (docs/scoring.md).

// negationCues turn the statement they sit in into its opposite: negation, denial, prohibition,
// retraction and refutation. A statement's polarity is negative when any cue occurs in it.
var negationCues = []string{
	// English
	"not", "no", "never", "none", "nobody", "nothing", "neither", "nor", "without", "cannot", "can't", "won't",
	"isn't", "aren't", "wasn't", "weren't", "doesn't", "don't", "didn't", "hasn't", "haven't", "hadn't", "mustn't",
	"shouldn't", "couldn't", "wouldn't", "lacks", "lack", "absent", "prohibited", "prohibits", "forbidden",
	"forbids", "banned", "bans", "disallowed", "excluded", "excludes", "denied", "denies", "deny", "refuted",
	"debunked", "disproved", "myth", "untrue", "false", "incorrect", "unfounded", "baseless", "groundless", "retracted", "withdrawn", "rescinded",
	"revoked", "repealed", "discontinued", "abolished", "unavailable", "unsupported", "closed", "disabled",
	"impossible", "unable", "retract", "retracts", "retraction", "refute", "refutes", "disprove", "disproves",
	"debunk", "withdraws", "rescinds", "rétracte", "réfute", "dément", "retracta", "retractó", "refuta",
	"widerruft", "widerrufen", "опровергает", "опровергли", "отозвали",
	// rejection, refusal and cancellation deny what they reject
	"rejected", "rejects", "reject", "refused", "refuses", "cancelled", "canceled", "dementierte",
	// cessation (check_groundedness/11; the verbs of stopping that need the word after them are
	// ceases' pairs)
	"ceased", "cessé", "cessée", "cessés", "cessées", "aufgehört", "перестал", "перестала",
	"перестали", "перестало", "прекратил", "прекратила", "прекратили", "прекратило", "прекращено",
	"прекращена", "прекращён", "прекращен",
	// exclusion, in the inflections the singular above lacks
	"excluidos", "excluidas", "excluida", "excluído", "excluída", "excluídos", "excluídas", "escluso",
	"esclusa", "esclusi", "escluse",
	"dementierten", "abgelehnt", "lehnte", "abgesagt", "rejeté", "rejetée", "refusé", "refusée", "annulé", "annulée",
	"rechazó", "rechazado", "rechazada", "cancelado", "cancelada", "rejeitou", "rejeitado", "опровергло",
	"опровергла", "отклонил", "отклонила", "отклонило", "отклонено", "отменён", "отменен", "отменено",
	"отменена", "نفت", "نفى", "ينفي", "تنفي", "يمنع", "تمنع", "رفض", "رفضت", "ألغي", "ألغيت",
	// French
	"ne", "n'", "pas", "jamais", "aucun", "aucune", "sans", "ni", "interdit", "interdite", "interdits",
	"interdites", "défendu", "défendue", "démenti", "démentie", "réfuté", "réfutée", "rétracté", "rétractée",
	"exclu", "exclue", "fermé", "fermée",
	// Spanish, Italian, Portuguese
	"nunca", "jamás", "ningún", "ninguna", "ninguno", "nada", "nadie", "sin", "tampoco", "prohibido",
	"prohibida", "desmintió", "desmentido", "refutado", "retirado", "excluido", "cerrado", "cerrada", "não", "nem",
	"proibido", "vietato", "senza",
	// German
	"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "nichts", "niemand",
	"ohne", "weder", "verboten", "untersagt", "widerlegt", "zurückgezogen", "gestrichen", "abgeschafft",
	"dementiert", "ausgeschlossen", "geschlossen",
	// Russian
	"не", "нет", "ни", "никогда", "никто", "ничего", "без", "нельзя", "запрещено", "запрещён", "запрещен",
	"запрещена", "запрещается", "отозвано", "отозван", "отозвана", "опровергнуто", "опровергнут", "закрыт",
	"закрыто",
	// Italian, Dutch, Polish, Ukrainian, Turkish, Greek, Vietnamese (check_groundedness/4)
	"non", "nessun", "nessuna", "nessuno", "niente", "vietata", "vietati", "proibito", "proibita", "nenhum",
	"nenhuma", "jamais", "vedado", "niet", "geen", "nooit", "zonder", "verboden", "niets", "niemand", "nulla", "nigdy", "brak", "żaden",
	"żadna", "żadnych", "zakazane", "zabronione", "ні", "ніколи", "немає", "заборонено", "değil", "yok",
	"hiç", "asla", "yasak", "yasaktır", "δεν", "μην", "όχι", "ποτέ", "χωρίς", "ούτε", "απαγορεύεται",
	"không", "chưa", "chẳng", "cấm",
	// Arabic, Hebrew (with the particle "and" written on), Hindi
	"لا", "ليس", "ليست", "لم", "لن", "غير", "بدون", "دون", "ممنوع", "محظور", "يحظر", "أبدا", "ولا", "ولم",
	"ولن", "وليس", "לא", "אין", "אסור", "ללא", "בלי", "מעולם", "אינו", "אינה", "אינם", "ולא", "नहीं", "नही",
	"न", "बिना", "मना", "प्रतिबंधित", "निषिद्ध", "वर्जित", "खंडन", "इनकार",
	// "closed" in the languages above (check_groundedness/5): the negation of "open", a permission
	// word, as English "closed" is
	"chiuso", "chiusa", "chiusi", "gesloten", "zamknięty", "zamknięta", "zamknięte", "закритий", "закрита",
	"закрито", "kapalı", "κλειστό", "κλειστή", "κλειστά", "مغلق", "مغلقة", "סגור", "סגורה", "סגורים",
	"סגורות", "बंद",
	// check_groundedness/16: the plural and feminine forms of "closed" beside the singular ones
	// above ("le musée et la bibliothèque sont fermés"), and Portuguese
	"fermés", "fermées", "cerrados", "cerradas", "fechado", "fechada", "fechados", "fechadas", "chiuse",
	"закрыта", "закрыты",
}

// negationCuesHangul are matched inside Korean words, which carry negation as a verb ending or a
// bound form ("지원하지 않습니다", "없음", "금지됩니다", "아닙니다").
var negationCuesHangul = []string{"않", "없", "금지", "불가", "아니", "아닙", "못"}

// negationInfixesTurkish are the negative verb forms Turkish writes inside the verb ("kabul
// etmiyor", "edilmemektedir"); only these unambiguous ones are read.
var negationInfixesTurkish = []string{"miyor", "mıyor", "muyor", "müyor", "memekte", "mamakta", "meyecek", "mayacak"}

// negationCuesCJK are matched as substrings in Han and kana text, except inside the words of
// negationExceptionsCJK.
var negationCuesCJK = []string{
	"不", "没", "無", "无", "未", "非", "勿", "禁止", "否认", "证伪", "撤回", "ない", "ません", "なし", "対象外",
	"不可", "できない", "ではない",
	// check_groundedness/4: denial, rejection and cancellation
	"否定", "否認", "拒绝", "驳回", "取消", "中止", "却下", "拒否",
}

// negationExceptionsCJK contain a cue character without negating: 非常 "very", 未来 "future",
// 无线 "wireless", 不错 "good", 少ない "few".
var negationExceptionsCJK = []string{
	"非常", "未来", "无论", "無論", "无线", "無線", "不错", "不断", "不过", "不久", "不同", "不少", "不仅", "不但",
	"少ない", "危ない", "未満",
}

// negationExceptions are phrases that contain a cue but do not negate the statement.
var negationExceptions = []string{"not only", "not just", "no doubt", "nothing but", "non seulement", "nicht nur",
	"no solo", "no sólo", "не только"}

// permissionWords carry the modality a negation or prohibition reverses ("allowed" against
// "prohibited"); they are neither content nor polarity.
//
//nolint:misspell // words of other languages, not misspelt English
var permissionWords = []string{
	"can", "could", "may", "might", "allowed", "permitted", "possible", "able", "available", "permissible",
	"authorised", "authorized", "open", "opens", "enabled", "included", "includes", "include", "including",
	"peut", "peuvent", "permis", "autorisé", "autorisée", "possible", "ouvert", "ouverte", "ouverts", "ouvertes",
	"puede", "pueden", "permitido", "permitida", "posible", "abierto", "abierta", "abiertos", "abiertas",
	"aberto", "aberta", "abertos", "abertas",
	"darf", "dürfen", "erlaubt", "möglich", "kann", "können", "geöffnet",
	"можно", "разрешено", "разрешён", "может", "могут", "открыт", "открыта", "открыто", "открыты",
	// "open" in the languages whose "closed" is a negation cue (check_groundedness/5)
	"aperto", "aperta", "aperti", "aperte", "geopend", "otwarty", "otwarta", "otwarte", "відкритий", "відкрита", "відкрито",
	"açık", "ανοιχτό", "ανοιχτή", "ανοιχτά", "mở", "مفتوح", "مفتوحة", "פתוח", "פתוחה", "פתוחים", "פתוחות", "खुला",
	// "include" in the other languages: "not included" reverses "included" as "not allowed" does "allowed"
	"incluye", "incluyen", "incluido", "incluida", "incluidos", "incluidas", "inclut", "incluent", "inclus", "incluse",
	"compris", "comprise", "enthält", "enthalten", "inbegriffen", "inklusive", "включает", "включено", "включён",
	"включен", "включена", "входит",
}

// permissionWordsCJK are the same modal and "include" words in Chinese and Japanese: a Han run is
// cut at them, so "不提供电话支持" and "不包含电话支持" share their content.
var permissionWordsCJK = []string{"包含", "包括", "提供", "可以", "允许", "含む", "含まれ", "できます"}

// stopWords are function words: articles, pronouns, auxiliaries, prepositions, conjunctions,
// hedges. Content words are everything else.
var stopWords = []string{
	// English
	"a", "an", "the", "this", "that", "these", "those", "it", "its", "they", "them", "their", "there", "here",
	"he", "she", "his", "her", "we", "our", "you", "your", "i", "me", "my", "is", "are", "was", "were", "be",
	"been", "being", "am", "has", "have", "had", "do", "does", "did", "will", "would", "shall", "should",
	"must", "get", "gets", "got", "come", "comes", "make", "makes", "of", "in", "on", "at", "to", "for", "from",
	"by", "with", "as", "into", "onto", "about", "and", "or", "but", "so", "if", "then", "than", "also", "too",
	"as", "well", "only", "just", "up", "out", "off", "over", "under", "per", "each", "every", "all", "any",
	"some", "more", "most", "less", "least", "very", "really", "both", "either", "which", "who", "whom",
	"whose", "what", "when", "where", "while", "how", "why", "one's", "itself", "themselves", "yet", "still",
	"except", "sauf", "excepto", "salvo", "außer", "ausser", "кроме", "think", "probably", "seems", "seem", "apparently", "likely", "perhaps", "maybe", "believe", "far", "know",
	"sure", "completely", "according", "says", "said", "states", "stated", "say", "shows", "show", "explains",
	"notes", "lists", "listed", "once", "again", "now", "currently", "today", "actually", "indeed", "thing",
	"things", "way", "ways", "part", "like", "used", "there's", "it's", "that's", "let", "lets", "instead",
	// French
	"le", "la", "les", "l'", "un", "une", "des", "du", "de", "d'", "et", "ou", "à", "au", "aux", "en", "dans",
	"sur", "pour", "par", "avec", "est", "sont", "été", "être", "a", "ont", "avait", "il", "elle", "ils",
	"elles", "on", "ce", "cet", "cette", "ces", "se", "s'", "sa", "son", "ses", "leur", "leurs", "qui", "que",
	"qu'", "y", "je", "j'", "nous", "vous", "crois", "probablement", "plus", "très", "aussi", "selon",
	"si", "votre", "vos", "notre", "nos", "mon", "ma", "mes", "autre", "autres", "avez", "avons", "ai", "tout",
	"tous", "toute", "toutes",
	// Spanish, Portuguese, Italian
	"el", "los", "las", "lo", "unos", "unas", "del", "al", "y", "o", "en", "por", "para", "con", "es", "son",
	"está", "están", "fue", "ser", "ha", "han", "hay", "se", "su", "sus", "que", "muy", "también", "según",
	"os", "um", "uma", "da", "dos", "das", "na", "é", "lo", "gli", "di", "che", "e", "mi", "mis", "tu", "tus",
	"nuestro", "nuestra", "otro", "otra", "otros", "otras", "usted", "ustedes",
	// German
	"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines", "und", "oder",
	"in", "im", "am", "an", "auf", "für", "mit", "von", "vom", "zu", "zum", "zur", "bei", "ist", "sind", "war",
	"waren", "wird", "werden", "wurde", "wurden", "hat", "haben", "es", "er", "sie", "wir", "ihr", "sich",
	"laut", "auch", "nur", "sehr", "noch", "wenn", "ihre", "ihren", "ihrem", "unser", "unsere", "andere",
	"anderen",
	// Russian
	"и", "в", "во", "на", "с", "со", "по", "к", "у", "о", "об", "от", "до", "за", "из", "для", "это", "этот",
	"эта", "он", "она", "оно", "они", "его", "её", "их", "а", "но", "же", "ли", "есть", "был", "была", "было",
	"были", "также", "только", "всех", "все", "весь",
}

// abstentionCues say the answer is not in the material: such a statement makes no claim.
var abstentionCues = []string{
	// English
	"couldn't find", "could not find", "can't find", "cannot find", "did not find", "didn't find",
	"don't know", "do not know", "not sure", "unable to", "not able to", "no information", "doesn't say",
	"does not say", "don't say", "do not say", "doesn't mention", "does not mention", "don't mention",
	"do not mention", "say nothing", "says nothing", "not covered", "doesn't cover", "does not cover",
	"don't cover", "can't tell", "cannot tell", "can't answer", "cannot answer", "not mentioned",
	"isn't mentioned", "is not mentioned", "no mention", "not specified", "not stated",
	// French
	"je n'ai pas trouvé", "je ne sais pas", "aucune information", "pas d'information", "ne précise",
	"ne mentionne", "pas mentionné",
	// Spanish
	"no encuentro", "no encontré", "no sé", "no hay información", "no se menciona", "no menciona",
	"no indica", "no dice",
	// German
	"finde ich", "keine angaben", "keine informationen", "weiß ich nicht", "steht nichts", "nicht angegeben",
	// Russian
	"нет информации", "не нашёл", "не нашел", "не знаю", "не указано", "не упоминается",
	// check_groundedness/11: inability, the material's silence, and Italian and Portuguese
	"wasn't able to", "was not able to", "weren't able to", "couldn't locate", "could not locate",
	"can't locate", "cannot locate", "didn't locate", "can't confirm", "cannot confirm", "couldn't confirm",
	"could not confirm", "rather not guess", "won't guess", "not going to guess", "is silent on",
	"are silent on", "ne dit rien", "ne disent rien", "rien à ce sujet", "je ne trouve pas",
	"no tengo datos", "no tengo información", "no dispongo de", "no consta", "keine auskunft",
	"nichts gefunden", "nicht gefunden", "ничего не сказано", "не сказано", "не нашла", "не нашлось",
	"нет данных", "нет сведений", "non ho trovato", "nessuna informazione", "non so", "não encontrei",
	"não sei", "nenhuma informação", "não há informação",
}

// abstentionCuesCJK are abstentions in Chinese and Japanese, matched as substrings.
var abstentionCuesCJK = []string{"没有提到", "未提及", "没有相关信息", "不清楚", "无法确定", "没有提及", "見当たりません",
	"記載がありません", "わかりません", "分かりません", "情報がありません", "記載はありません"}

// suggestions point the user somewhere else without asserting anything about the world.
var suggestions = []string{"you may want to", "you might want to", "i recommend", "i'd recommend", "i suggest",
	"i'd suggest", "feel free to", "you can contact", "you could contact", "you can ask", "you could ask",
	"please contact", "please reach out",
	// check_groundedness/11: asking which thing is meant, and offering to look
	"let me know which", "let me know what", "let me know whether", "tell me which", "i'll check",
	"i will check", "i'll look into", "i'll find out", "i can check", "i can look into"}

// pleasantries open or close an answer without asserting anything.
var pleasantries = []string{
	"happy to help", "let me know", "thanks", "thank you", "hello", "hi", "how can i help", "you're welcome",
	"glad to help", "hope this helps", "feel free", "sorry", "good question",
	"avec plaisir", "n'hésitez pas", "bonjour", "merci", "con gusto", "no dude", "hola", "gracias",
	"gern geschehen", "melden sie sich", "hallo", "danke", "пожалуйста", "здравствуйте", "спасибо", "обращайтесь",
	// offers to answer more questions
	"any questions", "more questions", "other questions", "further questions", "any other questions", "más preguntas",
	"otras preguntas", "alguna pregunta", "escríbanos", "autres questions", "d'autres questions", "weitere fragen",
	"другие вопросы", "ещё вопросы", "еще вопросы",
	// greetings of the day and offers to go on (check_groundedness/8)
	"good morning", "good afternoon", "good evening", "buenos días", "buenas tardes", "bonsoir", "guten morgen",
	"guten tag", "доброе утро", "добрый день", "happy to look", "glad to look", "happy to take a look",
	"please check with", "please ask", "please contact",
	// check_groundedness/11: more thanks and wishes
	"glad i could help", "glad i could", "great question", "lovely weekend", "nice weekend", "great weekend",
	"good weekend", "nice day", "great day", "lovely day", "bonne journée", "bon week-end", "buen día",
	"buen fin de semana", "schönen tag", "schönes wochenende", "хорошего дня", "buona giornata", "bom dia",
}

// pleasantriesCJK are pleasantries in Chinese and Japanese, matched as substrings.
var pleasantriesCJK = []string{"很高兴", "请随时", "您好", "谢谢", "お気軽に", "こんにちは", "ありがとうございます", "其他问题", "ご質問"}

// sourceWords name the material itself; a sentence about the material ("the documents do not
// say") is an abstention, not a claim about the world.
var sourceWords = []string{"document", "documents", "context", "source", "sources", "material", "materials",
	"information", "text", "provided", "documentos", "contexto", "documents", "unterlagen", "документах",
	"资料", "文档", "資料", "文書",
	// check_groundedness/5: Italian, Dutch, Polish, Turkish, Greek, Ukrainian, Vietnamese
	"documenti", "documento", "contesto", "documenten", "document", "dokumentach", "dokumenty", "belgelerde",
	"belgeler", "έγγραφα", "έγγραφο", "документах", "документі",
	// check_groundedness/11: the material named as what was given ("these notes", "what you sent"),
	// not a page, a file or a guide of the world
	"provided pages", "these pages", "these notes", "your notes", "the notes you", "the handbook", "these files",
	"the files you", "what you sent", "what you shared", "what you provided", "what you gave", "you sent me",
	"documentation", "documentación", "dokumente", "dokumenten", "материалах", "материалы", "документы",
	"документов", "materiale", "materiali", "materiais"}

// oldCues mark the value that follows them as superseded ("previously 18", "formerly John
// Smith"); newCues mark the current one.
var (
	oldCues = []string{"previously", "formerly", "earlier", "used to be", "used to", "old", "superseded",
		"deprecated", "original", "originally", "auparavant", "anciennement", "précédemment", "ancien",
		"antes", "anteriormente", "anterior", "früher", "bisher", "vorher", "ранее", "прежде", "раньше",
		"прежняя", "прежний", "que era", "qui était", "which was", "originalmente", "ursprünglich"}
	oldCuesCJK = []string{"原为", "原来", "此前", "以前は", "以前", "旧"}
	newCues    = []string{"now", "currently", "current", "new", "today", "instead", "désormais", "maintenant",
		"actuellement", "ahora", "actualmente", "jetzt", "nun", "neu", "теперь", "сейчас", "текущая"}
	newCuesCJK = []string{"现在", "现已", "现为", "現在", "现"}
)

// nowCues say a statement gives the value that holds now, in contrast with one given before it
// in the same item ("Standard delivery was €4.90 until March; it now costs €5.50"): the earlier
// value of the same kind is retired (check_groundedness/6). Only words of time: "new" and
// "current" also name things ("new members pay $5") and are not among them, nor are words that
// mean something else too (Spanish "ya" "already", Italian "ora" "hour", "nu", Dutch "now" and
// Romanian "not").
var (
	nowCues = []string{"now", "currently", "as of today", "from now on", "désormais", "maintenant", "actuellement",
		"dorénavant", "ahora", "actualmente", "jetzt", "nun", "mittlerweile", "inzwischen", "теперь", "сейчас",
		"agora", "atualmente", "adesso", "attualmente", "tegenwoordig", "teraz", "obecnie", "artık",
		"şimdi", "тепер", "зараз", "τώρα", "الآن", "حاليا", "حاليًا", "עכשיו", "כעת", "अब", "이제", "현재"}
	nowCuesCJK = []string{"现在", "现已", "目前", "如今", "現在", "今は", "現在は"}
)

// changeVerbs report that a value was replaced: the value after them is current and a value of the
// same kind before them (or in the statement before) is superseded.
var changeVerbs = []string{"rose", "raised", "increased", "reduced", "lowered", "cut", "changed", "extended",
	"moved", "replaced", "revised", "updated", "succeeded", "stepped down", "resigned", "left the company", "retired",
	"passé", "passée", "augmenté", "réduit", "remplacé", "ersetzt", "erhöht", "gesenkt", "verlängert",
	"geändert", "aumentó", "redujo", "cambió", "sustituido", "reemplazado", "изменена", "изменён", "повышена",
	"снижена", "заменён", "заменен",
	// check_groundedness/4
	"replaces", "replace", "supersedes", "superseded by", "postponed", "rescheduled", "relocated", "renamed",
	"decreased", "upgraded", "downgraded", "brought forward", "modifié", "modifiée", "reporté", "reportée",
	"déplacé", "déplacée", "prolongé", "prolongée", "verschoben", "verlegt", "angepasst", "ampliado", "ampliada",
	"aplazado", "aplazada", "pospuesto", "pospuesta", "trasladado", "trasladada", "modificado", "modificada",
	"cambiado", "cambiada", "перенесён", "перенесен", "перенесена", "перенесено", "продлён", "продлен",
	"продлена", "продлено", "увеличен", "увеличена", "уменьшен", "уменьшена",
	// check_groundedness/6: "passe de 120 € à 150 €", "pasa de", "passa da" (with "from … to" only)
	"passe", "passent", "passera", "passeront", "pasa", "pasará", "passa", "passará",
	// check_groundedness/12: the present and the plain verbs of a change, with their "from" (alone,
	// "changes" and "falls" are nouns and "goes" says nothing of a value)
	"rises from", "rise from", "goes from", "go from", "went from", "increases from", "decreases from",
	"falls from", "fell from", "drops from", "dropped from", "climbs from", "climbed from", "moves from",
	"changes from", "changed from", "jumps from", "jumped from"}

// changeVerbsCJK are change verbs in Chinese and Japanese.
var changeVerbsCJK = []string{"调整为", "改为", "更改为", "变更", "変更", "改定", "改成", "延期", "延长", "推迟", "提前到", "移至", "延長", "移転"}

// historyCues in a claim say it reports a past value on purpose ("used to cost", "was €30").
// Prepositions such as "before", "until" and "from" are not among them: "fast for 8 hours before
// the procedure" states a current rule.
var historyCues = []string{"used to", "previously", "formerly", "was", "were", "old", "originally", "früher",
	"auparavant", "antes", "ранее"}

// contrastWords end one statement and start another inside a sentence.
var contrastWords = []string{"but", "however", "whereas", "while", "although", "though", "yet", "mais",
	"cependant", "tandis", "pero", "sino", "aunque", "mientras", "aber", "sondern", "jedoch", "während", "но",
	"однако", "зато", "а", "except", "sauf", "excepto", "salvo", "außer", "ausser", "кроме"}

// negators are the negation cues that negate the word after them rather than deny by their own
// meaning: "not cancelled" affirms, "cancelled" denies (hasNegation).
var negators = []string{"not", "no", "never", "none", "neither", "nor", "without", "cannot",
	"ne", "n'", "pas", "jamais", "aucun", "aucune", "sans", "ni",
	"nunca", "jamás", "ningún", "ninguna", "ninguno", "sin", "tampoco", "não", "nem", "senza",
	"nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals", "ohne", "weder",
	"не", "ни", "нет", "никогда", "без"}

// refutationCues deny a whole reported proposition ("the claim that the tower was built in 1850
// was refuted"), so they reach across the commas of their sentence, unlike a plain "not".
var refutationCues = []string{"refuted", "debunked", "disproved", "myth", "untrue", "false", "retracted",
	"retract", "retracts", "retraction", "refute", "refutes", "disprove", "disproves", "debunk", "withdraws",
	"rescinds", "rétracte", "réfute", "dément", "retracta", "retractó", "refuta", "widerruft", "widerrufen",
	"опровергает", "опровергли", "отозвали",
	"withdrawn", "rescinded", "denied", "denies", "deny", "widerlegt", "zurückgezogen", "dementiert", "réfuté",
	"réfutée", "rétracté", "rétractée", "démenti", "démentie", "refutado", "retirado", "desmintió", "desmentido",
	"опровергнуто", "опровергнут", "отозвано", "отозван", "отозвана", "نفت", "نفى", "ينفي", "تنفي", "खंडन",
	// check_groundedness/9: a report found to have no basis is refuted as a whole
	"unfounded", "baseless", "groundless", "infondé", "infondée", "infundado", "infundada", "haltlos",
	// check_groundedness/6: a rule or an offer that was repealed or abolished is denied in the
	// whole clause that describes it ("Article 14, which allowed postal votes, was repealed")
	"repealed", "abolished", "revoked", "rescinded", "abrogé", "abrogée", "aboli", "abolie", "derogado", "derogada",
	"abolido", "abolida", "aufgehoben", "abgeschafft", "отменён", "отменен", "отменена", "отменено", "упразднён"}

// falsityVerdicts pronounce a report false ("That was wrong.", "Cette information est fausse.",
// "Эта информация не соответствует действительности."). In a statement that says nothing else
// (verdictFrames and reportNouns aside) they are a verdict on the statement before it, which then
// reports a claim the context denies (check_groundedness/9). Elsewhere they are ordinary words:
// "enter the wrong PIN" is no verdict.
var falsityVerdicts = []string{"wrong", "false", "untrue", "incorrect", "inaccurate", "unfounded", "baseless",
	"groundless", "erroneous", "mistaken", "fake", "not true", "not correct",
	"faux", "fausse", "erroné", "erronée", "inexact", "inexacte", "infondé", "infondée", "pas vrai",
	"falso", "falsa", "erróneo", "errónea", "incorrecto", "incorrecta", "inexacto", "inexacta", "infundado",
	"infundada", "incorreto", "incorreta", "no es cierto", "no es verdad", "não é verdade",
	"falsch", "unzutreffend", "unrichtig", "unwahr", "haltlos", "nicht zutreffend", "nicht wahr",
	"неверно", "неверна", "неверный", "неверная", "ложь", "ложная", "ложный", "ложно", "недостоверна",
	"недостоверный", "недостоверная", "фейк", "не соответствует действительности",
	"не соответствуют действительности", "не подтвердилась", "не подтвердились", "не подтвердилось"}

// falsityVerdictsCJK are falsity verdicts in Chinese and Japanese.
var falsityVerdictsCJK = []string{"不实", "不属实", "失实", "谣言", "虚假", "误报", "有误", "不正确",
	"誤り", "誤報", "事実無根", "間違い", "デマ", "事実ではありません", "事実ではない"}

// verdictFrames and reportNouns are the rest of a bare verdict: what it calls the report and how
// it says it checked ("经核实，该消息不实", "The report is inaccurate").
var verdictFrames = []string{"that", "this", "it", "was", "is", "were", "are", "found", "proved", "proven",
	"turned", "out", "be", "been", "ce", "cette", "cet", "c'est", "était", "est", "esta", "este", "eso", "es",
	"era", "fue", "diese", "dieser", "dies", "das", "ist", "war", "эта", "этот", "это", "была", "был", "оказалась",
	"оказался", "经核实", "经查", "经调查", "核实", "调查", "でした", "です", "だった"}

// reportNouns name a report, as a bare verdict calls it.
var reportNouns = []string{"report", "reports", "claim", "claims", "statement", "information", "news", "story",
	"rumour", "rumor", "article", "message", "post", "information", "nouvelle", "rumeur", "annonce", "article",
	"información", "noticia", "rumor", "afirmación", "informação", "notícia", "meldung", "nachricht",
	"behauptung", "bericht", "angabe", "информация", "сообщение", "новость", "утверждение", "слух",
	"消息", "传言", "传闻", "报道", "报导", "说法", "信息", "新闻", "该", "此", "記事", "報道", "情報", "この"}

// refutationCuesCJK are refutation cues in Chinese and Japanese.
var refutationCuesCJK = []string{"证伪", "撤回", "否认", "否定", "废除", "废止", "廃止"}

// contrastWordsCJK split Chinese and Japanese statements.
var contrastWordsCJK = []string{"但是", "但", "而", "不过", "けれど", "けど", "ですが", "ますが", "しかし"}

// anaphors open a statement whose subject is in the statement before.
var anaphors = []string{"it", "its", "they", "this", "these", "he", "she", "il", "elle", "ils", "elles",
	"er", "sie", "es", "он", "она", "оно", "они", "это"}

// consequenceWords, after a comma, start a statement of their own: what follows is a second
// claim drawn from the first ("there is no direct train, so you change in Paris").
var consequenceWords = sync.OnceValue(func() map[string]bool {
	return setOf([]string{"so", "therefore", "hence", "thus", "donc", "deshalb", "daher", "darum", "поэтому", "entonces"})
})
