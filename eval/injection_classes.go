package eval

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Word classes of the learned component. Besides its n-grams, the model reads which kinds of
// word a text uses and which kinds occur close together: an order to send beside a secret, an
// override beside "instructions", a word for hiding beside "user". A class stands for its words
// in every language listed, so a pair the training text shows in one phrasing also counts in
// another phrasing, or another language, that the training text never used.
//
// The lists are general vocabulary, written from what the words mean, not collected from the
// corpus; and they are not the pattern families: no class says "attack", and every class is as
// common in benign text (a password-reset email, a runbook, a security write-up) as in attacks.
// What a class or a pair is worth is learned, like an n-gram's weight.
const (
	wcAI          = iota + 1 // names an AI, an assistant, an agent or a model
	wcOverride               // ignore, disregard, forget, bypass
	wcInstruction            // instructions, rules, guidelines, prompt
	wcPrior                  // previous, earlier, above, original
	wcDisclose               // send, forward, upload, reveal, print, include
	wcSecret                 // password, key, token, history, conversation, contacts
	wcDestroy                // delete, wipe, drop, disable
	wcMoney                  // transfer, pay, funds, account, wallet
	wcConceal                // silently, secretly, hide, without
	wcUser                   // user, customer, human, owner
	wcAuthority              // admin, developer, system, security team, operator
	wcUrgent                 // urgent, immediately, must, mandatory
	wcNewTask                // now, instead, new, actual, task, role, pretend
	wcExecute                // run, execute, call, invoke, shell, command, tool
	wcLink                   // http, https, www, url, link
	wcDiscuss                // example, attack, researchers, detect, training
	wcSecond                 // you, your, vous, du, ты
	wcConsent                // approved, authorized, consent, permission, allowed
	numWordClasses
)

// classWindow is how many words apart two class words may be to count as a pair.
const classWindow = 10

// Hash seeds of the class features.
const (
	seedClass     uint32 = 0x3c6ef372
	seedClassPair uint32 = 0xa54ff53a
)

// wordClassesSize is about how many words the class table holds once classTables has added
// intlClassWords' to wordClasses' map (TestClassTableSize): sized once, the map is not rehashed
// as it grows.
const wordClassesSize = 2176

// wordClasses maps a normalised word to its class. Built on first use.
//
//nolint:misspell // words of other languages, not misspelt English
var wordClasses = sync.OnceValue(func() map[string]uint8 {
	m := make(map[string]uint8, wordClassesSize)
	add := func(c uint8, words string) {
		for _, w := range strings.Fields(words) {
			m[w] = c
		}
	}
	add(wcAI, `ai ais assistant assistants agent agents model models llm llms chatbot chatbots bot bots copilot gpt chatgpt claude
		gemini bard assistente assistenti asistente asistentes ia ias ki ki-assistent assistent assistenten ассистент ассистента
		ассистенту ии нейросеть нейросети модель модели агент агента бот`)
	add(wcOverride, `ignore ignoring ignored disregard disregarding forget forgetting override overriding bypass bypassing
		circumvent skip abandon discard drop void supersede supersedes superseded lapsed revoke nullify cancel
		ignorer ignorez ignore oublie oubliez oublier contourne contournez ignora ignorar ignoren olvida olvide olvidar omite
		omitir ignoriere ignorieren ignorier vergiss vergessen missachte übergehe umgehe игнорируй игнорировать проигнорируй
		забудь забыть забудьте обойди dimentica dimenticare ignori esqueça esqueca ignore ignorem 무시 무시하고 무시하세요 تجاهل`)
	add(wcInstruction, `instruction instructions rules rule guidelines guideline prompt prompts directive directives orders
		constraints restrictions policies policy briefing brief setup configuration programming guardrails safeguards
		consignes consigne instructions règles directives instrucciones instrucción reglas directrices indicaciones
		anweisungen anweisung regeln richtlinien vorgaben инструкции инструкцию инструкций правила правил указания
		istruzioni regole instruções instrucoes regras diretrizes 지시 지시사항 규칙 التعليمات تعليمات القواعد`)
	add(wcPrior, `previous prior earlier above preceding original initial old former before beforehand
		précédentes précédente précédents antérieures anteriores anterior previas previos vorherigen vorherige bisherigen
		früheren obigen предыдущие предыдущих прежние ранее precedenti precedente anteriori 이전 السابقة`)
	add(wcDisclose, `send sending sent forward forwarding upload uploading post posting transmit share sharing leak leaking
		exfiltrate export exporting copy paste append appending include including attach attaching submit reveal revealing
		disclose disclosing print output display show repeat tell email mail dm message relay
		envoie envoyez envoyer transmets transmettez partage partagez révèle révélez affiche copie joins
		envía envíe enviar reenvía reenviar comparte compartir revela muestra copia adjunta incluye
		sende senden schicke schicken übermittle übermitteln teile leite weiterleiten zeige verrate gib
		отправь отправьте отправить перешли переслать пришли покажи раскрой скопируй поделись
		invia inviare inoltra mostra rivela envie enviar encaminhe compartilhe mostre revele 보내 보내세요 전송 أرسل`)
	add(wcSecret, `password passwords passcode credentials credential token tokens key keys secret secrets apikey ssh private
		confidential cookie cookies session sessions history conversation conversations chat chats transcript contacts
		address addresses phone ssn iban otp pin cvv card wallet seed mnemonic env .env database
		mot motdepasse identifiants historique conversation coordonnées contraseña contraseñas clave claves credenciales
		historial conversación contactos passwort passwörter kennwort zugangsdaten schlüssel verlauf gesprächsverlauf kontakte
		пароль пароли ключ ключи токен токены учётные учетные история переписка переписку контакты
		cronologia credenziali chiave senha senhas chave credenciais histórico 비밀번호 암호 كلمة`)
	add(wcDestroy, `delete deleting deleted remove removing wipe wiping erase erasing destroy destroying purge truncate
		format rm rmdir kill shutdown disable disabling deactivate uninstall reset overwrite
		supprime supprimez supprimer efface effacez détruis borra borre borrar elimina elimine eliminar desactiva
		lösche löschen entferne entfernen deaktiviere zerstöre удали удалите удалить сотри стереть отключи
		cancella elimina apague apagar exclua excluir desative 삭제 حذف`)
	add(wcMoney, `transfer transferring wire pay paying payment payments refund refunds funds money account accounts bank
		invoice invoices purchase buy order crypto bitcoin btc eth usdt wallet iban swift gift giftcard
		virement virer payer paiement fonds compte transferencia transfiere transferir pagar pago fondos cuenta
		überweise überweisen überweisung zahle zahlen konto guthaben переведи перевести перевод оплати оплатить счёт счет
		bonifico pagamento conto transferência transfira pague conta 송금 이체 تحويل`)
	add(wcConceal, `silently secretly quietly covertly discreetly hide hiding hidden conceal concealing unnoticed invisible
		without unseen unmentioned omit silencieusement discrètement secrètement cache cachez sans en secreto
		silenciosamente sin ocultar oculta heimlich stillschweigend unbemerkt verstecke verschweige ohne незаметно тайно
		скрытно скрой молча без segretamente senza silenziosamente escondido sem 몰래 سرا`)
	add(wcUser, `user users user's human humans customer customers owner operator person client clients reader readers
		utilisateur utilisateurs l'utilisateur client usuario usuarios cliente benutzer benutzers nutzer nutzers kunde
		пользователь пользователя пользователю пользователей клиент utente utenti usuário usuario 사용자 المستخدم`)
	add(wcAuthority, `admin admins administrator administrators developer developers dev devs system sudo operator operators
		security compliance official officially staff team openai anthropic vendor maintainer maintainers moderator
		administrateur développeur développeurs système administrador desarrollador desarrolladores sistema
		administrator entwickler systemadministrator администратор разработчик разработчики система системы
		amministratore sviluppatore sistema administrador desenvolvedor 관리자 개발자 시스템 المطور النظام`)
	add(wcUrgent, `urgent urgently immediately asap mandatory required requirement must critical now promptly quickly
		important priority imperative obligatoire immédiatement urgente urgentemente inmediatamente obligatorio
		dringend sofort unverzüglich pflicht срочно немедленно обязательно subito immediatamente urgente 즉시 긴급 فورا`)
	add(wcNewTask, `instead henceforth new actual real true only task tasks objective goal job mission role persona pretend
		roleplay act become acting mode jailbreak dan unrestricted unfiltered maintenant désormais nouvelle nouveau
		tâche rôle ahora nueva nuevo tarea papel jetzt nun neue neuer aufgabe rolle теперь новая новые задача роль
		ora nuovo nuova compito agora nova tarefa 이제 새로운 الآن`)
	add(wcExecute, `run running execute executing exec invoke invoking call calling trigger launch curl wget bash sh zsh shell
		powershell cmd terminal command commands script scripts tool tools function plugin api endpoint eval sudo chmod
		exécute exécutez exécuter lance lancez appelle ejecuta ejecute ejecutar llama invoca lanza führe führen ausführen
		starte rufe aufrufen выполни выполните выполнить запусти запустите вызови esegui eseguire lancia execute execute
		rode 실행 실행하세요 نفذ`)
	add(wcLink, `http https www url urls link links href src webhook callback domain`)
	add(wcDiscuss, `example examples e.g attack attacks attacker attackers injection injections jailbreaks malicious
		adversarial payload payloads researcher researchers research detect detects detection detector classifier
		phishing training course workshop lesson tutorial demo documentation docs quote quoted quoting warning beware
		exemple exemples attaque attaques formation ejemplo ejemplos ataque ataques formación beispiel beispiele angriff
		angriffe schulung пример примеры атака атаки обучение esempio attacco exemplo ataque 예시 공격 مثال هجوم`)
	add(wcSecond, `you your yours yourself you're you'll you've vous votre vos tu toi ton ta tes du dein deine deinen dir dich
		ihr euch sie ты тебя тебе твой твои вы вас вам ваш ваши usted ustedes tú tu tus você vocês voi 당신 أنت`)
	add(wcConsent, `approved approve authorised authorized authorization consent consented permission permitted allowed
		confirmed pre-approved preapproved agreed verified whitelisted autorisé autorisée approuvé autorizado aprobado
		consentimiento genehmigt autorisiert erlaubt zugestimmt разрешено одобрено согласие подтверждено autorizzato
		aprovado autorizado 승인 موافقة`)
	return m
})

// classOf is the class of a word as modelFeatures cuts it (a trailing "'s" dropped), or 0.
func (t *classTable) classOf(w string) uint8 {
	if c, ok := t.exactClass(w); ok {
		return c
	}
	if len(w) > 2 && strings.HasSuffix(w, "'s") {
		c, _ := t.exactClass(w[:len(w)-2])
		return c
	}
	return 0
}

// exactClass is t.exact[w], asking the map only when exactKeys says w may be in it.
func (t *classTable) exactClass(w string) (uint8, bool) {
	if !t.exactKeys.mayHold(w) {
		return 0, false
	}
	c, ok := t.exact[w]
	return c, ok
}

// wordFilter is a set of cheap keys of strings (their length and first and last bytes, hashed
// to 16 bits): a string whose key is absent is not in the table the filter was built from. The
// model classifies every word of a text, and most words are in no class; a bit test instead of
// one or two map lookups per word was a tenth of the model's time on long tool results.
type wordFilter [1 << 16 / 64]uint64

func wordFilterKey(w string) uint16 {
	if w == "" {
		return 0
	}
	return uint16((uint32(len(w))<<16 ^ uint32(w[0])<<8 ^ uint32(w[len(w)-1])) * 0x9E3779B1 >> 16)
}

func (f *wordFilter) add(w string) {
	k := wordFilterKey(w)
	f[k/64] |= 1 << (k % 64)
}

func (f *wordFilter) mayHold(w string) bool {
	k := wordFilterKey(w)
	return f[k/64]&(1<<(k%64)) != 0
}

// classBuckets are the model buckets of every class and every unordered pair of classes. Built
// on first use.
type classBucketTable struct {
	one  [numWordClasses]uint32
	pair [numWordClasses][numWordClasses]uint32
}

var classBuckets = sync.OnceValue(func() *classBucketTable {
	t := &classBucketTable{}
	for a := 1; a < numWordClasses; a++ {
		t.one[a] = fnv32(seedClass, string(rune('A'+a))) & (modelSize - 1)
		for b := 1; b < numWordClasses; b++ {
			lo, hi := min(a, b), max(a, b)
			t.pair[a][b] = fnv32(seedClassPair, string([]rune{rune('A' + lo), rune('A' + hi)})) & (modelSize - 1)
		}
	}
	return t
})

// classTracker remembers the last class words of a text, so each new one can be paired with the
// ones within classWindow words before it.
type classTracker struct {
	cls  [8]uint8
	at   [8]int32 // word index
	n    int
	word int32
}

// maxClassFeatures bounds what one word adds: its class and one pair per remembered class word.
const maxClassFeatures = 9

// next records a word of class c (0 for none) and writes the buckets of its class feature and of
// every pair it forms with a different class within classWindow words into out, returning how
// many it wrote.
func (ct *classTracker) next(t *classBucketTable, c uint8, out *[maxClassFeatures]uint32) int {
	ct.word++
	if c == 0 {
		return 0
	}
	out[0] = t.one[c]
	n := 1
	seen := uint32(0)
	for k := range min(ct.n, len(ct.cls)) {
		p := ct.cls[k]
		if p == c || ct.word-ct.at[k] > classWindow || seen&(1<<p) != 0 {
			continue
		}
		seen |= 1 << p
		out[n] = t.pair[p][c]
		n++
	}
	ct.cls[ct.n%len(ct.cls)], ct.at[ct.n%len(ct.cls)] = c, ct.word
	ct.n++
	return n
}

// classTable is the word classes with the forms intlClassWords adds: whole words and runs
// (exact), and stems (prefixes), indexed by their first two runes and their lengths so a word
// that starts like no stem costs one lookup.
type classTable struct {
	exact map[string]uint8
	stems map[string]uint8
	heads map[string]uint32 // first two runes of a stem → bit n set when a stem of n runes starts so
	// runHeads: a character isRunRune reads alone → bit n set when an entry of n such characters
	// starts with it, so a run is looked up only at lengths some entry has
	runHeads map[rune]uint32
	// exactKeys and headKeys filter the keys of exact and heads (wordFilter)
	exactKeys, headKeys wordFilter
}

var classTables = sync.OnceValue(func() *classTable {
	t := &classTable{exact: wordClasses(), stems: make(map[string]uint8, 320), heads: make(map[string]uint32, 256), runHeads: make(map[rune]uint32, 160)}
	for _, e := range slices.Concat(intlClassWords, intlClassWords2) {
		for _, w := range strings.Fields(e.words) {
			// Entries are written NFKC-normalised and in lower case, as the detector's text is
			// (TestClassWordsAreNormalised): normalising 1,500 words here was a tenth of the
			// detector's first use in a scan.
			w = strings.ReplaceAll(w, "_", " ")
			stem, ok := strings.CutSuffix(w, "*")
			if !ok {
				if _, dup := t.exact[w]; !dup {
					t.exact[w] = e.class
				}
				continue
			}
			n := utf8.RuneCountInString(stem)
			if n < 2 || n > 31 {
				continue
			}
			t.stems[stem] = e.class
			t.heads[runePrefix(stem, 2)] |= 1 << n
		}
	}
	for h := range t.heads {
		t.headKeys.add(h)
	}
	for w := range t.exact {
		t.exactKeys.add(w)
		if n := utf8.RuneCountInString(w); n >= 2 && n < 32 && isRunString(w) {
			r, _ := utf8.DecodeRuneInString(w)
			t.runHeads[r] |= 1 << n
		}
	}
	return t
})

// runePrefix is the first n runes of s (all of s when it is shorter).
func runePrefix(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// classifier finds the class of each word of a text in order, as modelFeatures cuts it, with
// the context the multi-word forms need: the previous word, and the run of Han and kana
// characters (each a word of its own) that ends at this one.
type classifier struct {
	t                  *classTable
	prevStart, prevEnd int
	run                [12]int    // starts of the previous contiguous Han/kana/Thai words, oldest first
	runBits            [12]uint32 // runHeads of each of them
	nRun               int
	// memo remembers the class of recent words by a cheap key (wordMemoKey): a text repeats its
	// words ("the" a hundred times in 8 KiB), and a word's own class (wordClass) depends on
	// nothing else, where looking it up costs one to four map lookups. An entry holds the span
	// of an earlier occurrence, not a string, so filling it writes no pointer (no GC write
	// barrier); a classifier therefore reads a single text, as modelFeatures and accumulate use it.
	// asciiText, set by a caller that knows its text is all ASCII, spares the test of each pair
	// of words for the non-ASCII spelling the spaced forms have.
	asciiText bool
	memo      [128]struct {
		start, end int32 // end 0: unused (words are never empty)
		cl         uint8
	}
}

func newClassifier() classifier { return classifier{t: classTables(), prevEnd: -2} }

// of is the class of the word text[start:end], or 0.
func (c *classifier) of(text string, start, end int) uint8 {
	w := text[start:end]
	contiguous := c.prevEnd == start
	prevStart := c.prevStart
	spaced := c.prevEnd+1 == start && c.prevEnd >= 0 && text[c.prevEnd] == ' '
	c.prevStart, c.prevEnd = start, end
	if w[0] >= utf8.RuneSelf {
		if r, size := utf8.DecodeRuneInString(w); size == len(w) && isRunRune(r) {
			if !contiguous {
				c.nRun = 0
			}
			cl := uint8(0)
			for k := c.nRun; k > 0 && cl == 0; k-- {
				if c.runBits[len(c.run)-k]&(1<<(k+1)) != 0 { // an entry of k+1 characters starts there
					cl, _ = c.t.exactClass(text[c.run[len(c.run)-k]:end])
				}
			}
			copy(c.run[:len(c.run)-1], c.run[1:])
			copy(c.runBits[:len(c.runBits)-1], c.runBits[1:])
			c.run[len(c.run)-1], c.runBits[len(c.runBits)-1] = start, c.t.runHeads[r]
			c.nRun = min(c.nRun+1, len(c.run))
			if cl == 0 {
				cl, _ = c.t.exactClass(w)
			}
			return cl
		}
	}
	c.nRun = 0
	if spaced && !c.asciiText && !isASCII(text[prevStart:end]) {
		if cl, ok := c.t.exactClass(text[prevStart:end]); ok {
			return cl
		}
	}
	e := &c.memo[wordMemoKey(w)%uint(len(c.memo))]
	if e.end == 0 || text[e.start:e.end] != w {
		e.start, e.end, e.cl = int32(start), int32(end), c.t.wordClass(w)
	}
	return e.cl
}

// wordMemoKey is a cheap key of a non-empty word for classifier.memo.
func wordMemoKey(w string) uint {
	return uint(len(w))*0x9E3779B1 ^ uint(w[0])*0x85EBCA77 ^ uint(w[len(w)-1])*0xC2B2AE3D ^ uint(w[len(w)/2])
}

// wordClass is the class of the word w by itself: its exact entry (classOf), the longest stem it
// starts with, or for Arabic and Hebrew script its class after its particles.
func (t *classTable) wordClass(w string) uint8 {
	if cl := t.classOf(w); cl != 0 {
		return cl
	}
	if cl := t.stemOf(w); cl != 0 {
		return cl
	}
	if w[0] >= utf8.RuneSelf {
		return t.withoutParticle(w)
	}
	return 0
}

// stemOf is the class of the longest stem w starts with, or 0.
func (t *classTable) stemOf(w string) uint8 {
	head := runePrefix(w, 2)
	if !t.headKeys.mayHold(head) {
		return 0
	}
	lengths := t.heads[head]
	if lengths == 0 {
		return 0
	}
	var ends [32]int // ends[n] = byte length of the first n runes
	n := 0
	for i := range w {
		if n < len(ends) {
			ends[n] = i
		}
		n++
	}
	if n < len(ends) {
		ends[n] = len(w)
	}
	for k := min(n, len(ends)-1); k >= 2; k-- {
		if lengths&(1<<k) != 0 {
			if cl, ok := t.stems[w[:ends[k]]]; ok {
				return cl
			}
		}
	}
	return 0
}

// withoutParticle is the class of an Arabic or Hebrew word after the one-letter particles that
// script writes onto the next word ("و" and, "ف" so, "ب" with, "ل" for; "ו" and, "ה" the, "ש"
// that, "ב" in, "ל" to, "מ" from, "כ" as), at most two of them, or 0.
func (t *classTable) withoutParticle(w string) uint8 {
	for range 2 {
		r, size := utf8.DecodeRuneInString(w)
		if !strings.ContainsRune("وفبلוהשבלמכ", r) || utf8.RuneCountInString(w) < 4 {
			return 0
		}
		w = w[size:]
		if cl := t.classOf(w); cl != 0 {
			return cl
		}
		if cl := t.stemOf(w); cl != 0 {
			return cl
		}
	}
	return 0
}
