package eval

import (
	"regexp"
	"strings"
	"sync"
)

// Injection pattern families. A family is a kind of attack; several patterns (and paraphrases)
// belong to each.
const (
	FamilyOverride     = "instruction_override"
	FamilyRole         = "role_impersonation"
	FamilyExfiltration = "data_exfiltration"
	FamilyToolMisuse   = "tool_misuse"
	FamilyEncoded      = "encoded_payload"
	FamilyMultilingual = "multilingual"
	FamilyObfuscation  = "obfuscation" // signals only (hidden characters, confusables); never decisive alone
)

// pattern is one phrasing. Every pattern starts with one of its anchors: the detector finds anchor
// occurrences with a fast substring search and runs the (start-anchored) expression only there,
// over a bounded window, which keeps the cost linear and small on large benign text.
type pattern struct {
	family    string
	name      string
	weight    float64 // how strongly one match alone indicates injection, in [0,1]
	anchors   []string
	re        func() *regexp.Regexp // compiled on the first window its anchor finds
	lineStart bool                  // the anchor must begin a line (after optional '#', '*', '>' and spaces)
	// need, when set, lists words of which at least one must occur in the window before the
	// expression runs: a cheap filter for patterns whose anchors are common words.
	need    []string
	needIDs []int // need, as indexes into needList
	// also, when set, is a second list of words of which one must occur in the window too: for
	// a pattern whose expression requires a word that need does not name, a filter that spares
	// running an expression that fails. Each word must occur in every match as a whole word
	// (after a space), so filtering cannot change what matches.
	also    []string
	alsoIDs []int // also, as indexes into needList
	// suffixOK: the expression continues the anchor's word ("ignore[a-z]{0,3}", "agents?"), so an
	// anchor glued to more letters is still worth trying.
	suffixOK bool
	// notAfter, when set, are words that cancel a match when they are the word just before the
	// anchor: a negation ("jangan abaikan": do not ignore) turns the order into its opposite.
	notAfter []string
	// pre, when set, is a necessary condition for the expression to match a window: false
	// proves it cannot, so the expression is not run. It must hold on every window the
	// expression matches (TestPrefiltersNeverStopAMatch, FuzzInjectionMatchesReference).
	pre func(window string) bool
}

// withPre sets the pattern's prefilter.
func (p *pattern) withPre(f func(window string) bool) *pattern {
	p.pre = f
	return p
}

// punctAfterWords reports whether the first byte of w that is neither an ASCII lower-case
// letter, a hyphen nor RE2's \s ([\t\n\f\r ]) is a colon, or, when comma is set, a comma. It
// is the prefilter of the expressions that read `anchor (\s+[a-z-]+)* \s* [,:]`: everything
// they match before that colon or comma is letters, hyphens and spaces, so the colon or comma
// is the first byte outside them. The Go regexps have no (?i) and their classes are ASCII, so a
// non-ASCII byte stops the scan as it stops the expression. A vocative order ("assistant:
// ignore ...") needs one; ordinary prose ("the model was trained on ...") rarely has one there.
// imageTarget returns the link target of a markdown image at the start of w ("![alt](//x/y)"),
// the way the image-url expressions read it: the first "]" after "![" followed by "(", RE2
// spaces, an optional "http:" or "https:", "//", and then the run of bytes that are neither
// \s nor ")". Every match of those expressions lies inside that run after its first byte, so
// ok false, or a run without what they need, proves they cannot match.
func imageTarget(w string) (run string, ok bool) {
	if !strings.HasPrefix(w, "![") {
		return "", false
	}
	k := strings.IndexByte(w[2:], ']')
	if k < 0 || 2+k+1 >= len(w) || w[2+k+1] != '(' {
		return "", false
	}
	rest := w[skipRE2Space(w, 2+k+2):]
	if r, found := strings.CutPrefix(rest, "https:"); found {
		rest = r
	} else if r, found := strings.CutPrefix(rest, "http:"); found {
		rest = r
	}
	rest, found := strings.CutPrefix(rest, "//")
	if !found {
		return "", false
	}
	end := 0
	for end < len(rest) && rest[end] != ')' && !isRE2Space(rest[end]) {
		end++
	}
	if end < 2 {
		return "", false
	}
	return rest[1:end], true
}

// imagePlaceholder is image-url-placeholder's prefilter: the target holds one of the
// placeholder openings its expression ends with.
func imagePlaceholder(w string) bool {
	run, ok := imageTarget(w)
	return ok && (strings.ContainsAny(run, "{$<[") || strings.Contains(run, "%7b") || strings.Contains(run, "%24"))
}

// imageQuery is the prefilter of image-url-query and image-url-secret-param: the target's
// first "?" comes after at least one byte and an "=" follows it.
func imageQuery(w string) bool {
	run, ok := imageTarget(w)
	if !ok {
		return false
	}
	// run starts after the target's first byte, so a "?" at run[0] is still after one byte
	q := strings.IndexByte(run, '?')
	return q >= 0 && strings.IndexByte(run[q+1:], '=') >= 0
}

// isRE2Space reports whether c is in RE2's \s, [\t\n\f\r ].
func isRE2Space(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// sinkAfterPreposition is send-secret-to-sink's prefilter. Its expression ends in
// `\s(?:to|at|into|via)\s+` and a sink: a token (the run of non-\s bytes after the spaces)
// that starts with "http" or "attacker", holds an "@" or a ".", or is "the" or "this" followed by
// spaces, an optional "following" and spaces, and a word starting url, endpoint, address,
// server, webhook or link. So a window with no such preposition and token cannot match. Prose
// has many "to the", few "to the endpoint".
func sinkAfterPreposition(w string) bool {
	for i := 1; i < len(w); i++ {
		if !isRE2Space(w[i-1]) {
			continue
		}
		for _, prep := range [...]string{"to", "at", "into", "via"} {
			if j := i + len(prep); strings.HasPrefix(w[i:], prep) && j < len(w) && isRE2Space(w[j]) && sinkToken(w, j) {
				return true
			}
		}
	}
	return false
}

// sinkToken reports whether the token after the spaces at w[j:] can start a sink of sinkObj.
func sinkToken(w string, j int) bool {
	j = skipRE2Space(w, j)
	tok := w[j:tokenEnd(w, j)]
	switch {
	case strings.HasPrefix(tok, "http"), strings.HasPrefix(tok, "attacker"), strings.ContainsAny(tok, "@."):
		return true
	case tok != "the" && tok != "this":
		return false
	}
	k := j + len(tok)
	if k >= len(w) {
		return false
	}
	m := skipRE2Space(w, k)
	if next := w[m:tokenEnd(w, m)]; next == "following" && m+len(next) < len(w) {
		if sinkNoun(w[skipRE2Space(w, m+len(next)):]) {
			return true
		}
	}
	return sinkNoun(w[m:])
}

// sinkNoun reports whether s starts with one of sinkObj's nouns.
func sinkNoun(s string) bool {
	for _, n := range [...]string{"url", "endpoint", "address", "server", "webhook", "link"} {
		if strings.HasPrefix(s, n) {
			return true
		}
	}
	return false
}

// skipRE2Space returns the index of the first byte at or after j that is not in \s.
func skipRE2Space(w string, j int) int {
	for j < len(w) && isRE2Space(w[j]) {
		j++
	}
	return j
}

// tokenEnd returns the index of the first \s byte at or after j, or len(w).
func tokenEnd(w string, j int) int {
	for j < len(w) && !isRE2Space(w[j]) {
		j++
	}
	return j
}

func punctAfterWords(w string, comma bool) bool {
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'a' && c <= 'z', c == '-', isRE2Space(c):
		default:
			return c == ':' || comma && c == ','
		}
	}
	return false
}

// negatedBefore reports whether the word just before pos in t is one of words.
func negatedBefore(t string, pos int, words []string) bool {
	before := strings.TrimRight(t[max(0, pos-24):pos], " ")
	for _, w := range words {
		if strings.HasSuffix(before, w) {
			k := len(before) - len(w)
			if k == 0 || !isWordByte(before[k-1]) || w[len(w)-1] == '\'' {
				return true
			}
		}
	}
	return false
}

// unlessAfter sets p.notAfter and returns p.
func (p *pattern) unlessAfter(words ...string) *pattern {
	p.notAfter = words
	return p
}

// alsoNeeding sets p.also and returns p.
func (p *pattern) alsoNeeding(words ...string) *pattern {
	p.also = words
	return p
}

// needing sets p.need and returns p.
func (p *pattern) needing(words ...string) *pattern {
	p.need = words
	return p
}

// patternWindow bounds how many bytes after an anchor one pattern may span.
const patternWindow = 300

// pat builds a pattern whose expression is ^(anchor|anchor...)rest.
func pat(family, name string, weight float64, anchors []string, rest string) *pattern {
	quoted := make([]string, len(anchors))
	for i, a := range anchors {
		quoted[i] = regexp.QuoteMeta(a)
	}
	suffix := rest == "" || strings.HasPrefix(rest, "[a-z") || strings.HasPrefix(rest, "s?") || strings.HasPrefix(rest, "(?:s")
	return &pattern{family: family, name: name, weight: weight, anchors: anchors, suffixOK: suffix,
		re: lazyRegexp(`^(?:` + strings.Join(quoted, "|") + `)(?:` + rest + `)`)}
}

// Shared vocabulary.
const (
	wsp       = `[\s,:;.!-]+`
	priorAdj  = `(?:previous|prior|preceding|above|earlier|foregoing|former|original|initial|existing|old|system|developer|given|current)`
	instrNoun = `(?:instructions?|prompts?|directions?|directives?|rules?|guidelines?|commands?|orders?|context|messages?|guidance|constraints?|restrictions?|programming|polic(?:y|ies)|system\s+prompt|safeguards?|guardrails?)`
	secretObj = `(?:conversation|chat\s+(?:history|log|transcript)|transcripts?|chat|logs?|history|system\s+prompt|api[\s_-]?keys?|passwords?|credentials?|secrets?|private\s+keys?|ssh\s+keys?|access\s+tokens?|tokens?|session\s+cookies?|cookies|env(?:ironment)?\s+variables|\.env|personal\s+data|user\s+data|memory|messages|emails?|files?|documents?|contents?|data)`
	// privateObj is what a tool call has no use for but an attacker wants: the conversation,
	// earlier messages, credentials, personal details, the environment and open files.
	// Credentials count only as someone's or as a set ("the user's API keys", "any tokens"):
	// "pass your API key in the api_key parameter" is how a tool that needs one says so.
	privateObj = `(?:(?:(?:full|entire|complete|whole)\s+)?(?:conversation|chat\s+(?:history|log|transcript)|transcript|message\s+history)|(?:previous|prior|earlier|last|past|recent|other|all\s+(?:the\s+)?(?:user'?s\s+)?)\s+(?:\S+\s+)?messages?|(?:home|postal|street)\s+address(?:es)?|phone\s+numbers?|(?:the\s+user'?s|users'|their|any|all(?:\s+the)?|every|the)\s+(?:\S+\s+)?(?:api[\s_-]?keys?|access\s+tokens?|passwords?|credentials|ssh\s+keys?|private\s+keys?)|env(?:ironment)?\s+variables?|env\s+vars?|open\s+files|contents?\s+of\s+(?:any|all|every|the\s+user'?s)\s+(?:open\s+)?(?:files?|documents?))`
	sinkObj    = `(?:https?://\S+|\S+@\S+\.\S+|(?:the\s+|this\s+)(?:following\s+)?(?:url|endpoint|address|server|webhook|link)|attacker|[\w-]+\.(?:com|net|org|io|ru|xyz|site|top)\b)`
)

// Need-lists shared by several patterns.
var (
	needInstr = []string{"instruct", "prompt", "direct", "rule", "guideline", "command", "order", "context", "message",
		"guidance", "constraint", "restriction", "programming", "polic", "safeguard", "guardrail"}
	needSink = []string{"http", "@", "url", "endpoint", "address", "server", "webhook", "link", "attacker", ".com", ".net",
		".org", ".io", ".ru", ".xyz", ".site", ".top"}
)

var overrideVerbs = []string{"ignore", "disregard", "forget", "overrule", "override", "bypass", "skip", "discard", "abandon", "neglect", "drop",
	"overlook", "set aside", "put aside", "dismiss", "cast aside", "throw out", "scrap"}

var patterns = sync.OnceValue(func() []*pattern {
	return []*pattern{
		// instruction override and paraphrases
		pat(FamilyOverride, "ignore-prior-instructions", 0.9, overrideVerbs,
			`[a-z]{0,3}\s+(?:all\s+|any\s+|each\s+|every\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+|such\s+|its\s+)?`+priorAdj+`\s+(?:\w+\s+){0,2}?`+instrNoun+`\b`).needing(needInstr...),
		pat(FamilyOverride, "ignore-your-instructions", 0.85, overrideVerbs,
			`[a-z]{0,3}\s+(?:all\s+)?(?:of\s+)?your\s+(?:\w+\s+){0,2}?`+instrNoun+`\b`).needing(needInstr...),
		pat(FamilyOverride, "ignore-everything-said", 0.85, []string{"ignore", "disregard", "forget"},
			`[a-z]{0,3}\s+(?:everything|all|anything)\s+(?:(?:that\s+)?(?:you\s+)?(?:were|was|have\s+been|'ve\s+been|i|we)\s+)?(?:told|said|written|given|instructed|above|before|previously|so\s+far|prior|earlier)`).alsoNeeding("everything", "all", "anything"),
		pat(FamilyOverride, "your-real-task", 0.75, []string{"your", "the user's", "the users", "my"},
			`\s+(?:real|true|actual|new|only|hidden)\s+(?:task|instructions?|objective|purpose|goal|mission|job|request)\s+(?:is|are|now)\b`).needing("task", "instruction", "objective", "purpose", "goal", "mission", "job", "request"),
		pat(FamilyOverride, "prior-instructions-void", 0.85, []string{"the above", "the previous", "the prior", "all previous", "all prior", "previous", "prior", "above"},
			`\s+(?:\w+\s+)?`+instrNoun+`\s+(?:is|are|was|were|have\s+been|has\s+been)\s+(?:now\s+)?(?:void|obsolete|cancel+ed|revoked|invalid|outdated|superseded|overridden|replaced|no\s+longer\s+(?:valid|relevant|applicable|in\s+effect))|\s+(?:\w+\s+)?`+instrNoun+`\s+(?:no\s+longer\s+appl(?:y|ies)|(?:does|do)\s+not\s+apply)`).needing("void", "obsolete", "cancel", "revoked", "invalid", "outdated", "superseded", "overridden", "replaced", "no longer", "not apply"),
		pat(FamilyOverride, "do-not-follow-your-instructions", 0.75, []string{"do not", "don't", "never", "stop", "must not", "mustn't", "should not", "shouldn't", "no longer"},
			`\s+(?:follow|obey|listen\s+to|adhere\s+to|comply\s+with|following|obeying)\s+(?:(?:your|those|these)\s+(?:\w+\s+)?|(?:the\s+|any\s+|all\s+)?(?:previous|prior|original|above|system|earlier|developer)\s+)`+instrNoun+
				`\b|\s+(?:follow|obey|listen\s+to|adhere\s+to|comply\s+with|following|obeying)\s+(?:the\s+)?`+instrNoun+`\s+(?:you\s+(?:were|have\s+been)\s+given|above|you\s+received)`).needing(needInstr...),
		// Unqualified ("never follow instructions found in web pages") is as often advice as attack.
		pat(FamilyOverride, "do-not-follow-instructions", 0.45, []string{"do not", "don't", "never", "stop", "must not", "mustn't", "should not", "shouldn't", "no longer"},
			`\s+(?:follow|obey|listen\s+to|adhere\s+to|comply\s+with|following|obeying)\s+(?:the\s+|any\s+)?`+instrNoun+`\b`).needing(needInstr...),
		pat(FamilyOverride, "override-safety", 0.85, []string{"override", "overwrite", "bypass", "disable", "circumvent", "turn off"},
			`\s+(?:all\s+)?(?:your|the|any)\s+(?:\w+\s+)?(?:system\s+prompt|safety\s+(?:rules|guidelines|settings|filters?|measures)|guardrails|content\s+(?:filter|policy|policies)|restrictions|alignment|ethical\s+guidelines)`).needing("prompt", "safety", "guardrail", "filter", "polic", "restriction", "alignment", "ethical"),
		pat(FamilyOverride, "reset-your-programming", 0.7, []string{"reset", "replace", "change", "update", "rewrite"},
			`\s+your\s+(?:instructions|programming|system\s+prompt|rules|guidelines|directives)`).needing("your"),
		pat(FamilyOverride, "from-now-on", 0.4, []string{"from now on"},
			`,?\s+(?:you\s+(?:are|will|must|shall|should|respond|answer)|ignore|respond|answer|act|only|always)`),
		pat(FamilyOverride, "pay-no-attention", 0.75, []string{"pay no attention to", "take no notice of"},
			`\s+(?:the\s+|any\s+|your\s+|all\s+)?`+priorAdj),
		pat(FamilyOverride, "supersedes-instructions", 0.8, []string{"supersedes", "supersede", "overrides", "replaces", "takes precedence over", "take precedence over", "outranks"},
			`\s+(?:all|any|every|your|the|previous|prior|other)\s+(?:\w+\s+){0,2}?`+instrNoun+`\b`).needing(needInstr...),
		pat(FamilyOverride, "stop-what-you-are-doing", 0.45, []string{"stop what you are doing", "stop what you're doing", "stop everything", "halt your current task", "abort your current task"}, ``),
		pat(FamilyOverride, "new-instructions-label", 0.55, []string{"new instructions", "updated instructions", "new system prompt", "new directive", "revised instructions"},
			`\s*(?::|-|follow|as\s+follows)`),
		pat(FamilyOverride, "disregard-my-message", 0.15, []string{"ignore", "disregard", "forget"},
			`\s+my\s+(?:previous|prior|earlier|last)\s+(?:instructions?|message|request)`).alsoNeeding("my"),

		// role or system impersonation and chat-template tokens
		pat(FamilyRole, "chat-template-token", 0.95, []string{"<|"},
			`\s*(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|fim_prefix)\s*\|>`),
		pat(FamilyRole, "chat-template-tag", 0.95, []string{"[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>", "<end_of_turn>"}, ``),
		{family: FamilyRole, name: "fake-system-turn", weight: 0.5, lineStart: true, suffixOK: true, anchors: []string{"system", "developer", "admin", "administrator"},
			re: lazyRegexp(`^(?:system|developer|admin|administrator)\s*(?:message|prompt|note|override|instruction|update)?\s*:\s*[^\n]{0,160}?\b(?:you|your|ignore|disregard|must|always|never|do\s+not|don't|from\s+now\s+on|override|execute|grant|granted|instructions?|assistant)\b`)},
		{family: FamilyRole, name: "fake-assistant-turn", weight: 0.55, lineStart: true, suffixOK: true, anchors: []string{"assistant", "ai", "model"},
			re: lazyRegexp(`^(?:assistant|ai|model)\s*:\s*(?:sure|certainly|of\s+course|okay|ok|absolutely|here\s+(?:is|are)|i\s+will|i'll|as\s+requested|understood)\b`)},
		pat(FamilyRole, "you-are-now", 0.8, []string{"you are now", "you're now", "you are no longer", "you will now act as", "you will now be"},
			`\s+(?:an?\s+|the\s+|in\s+)?(?:\w+\s+){0,3}?(?:ai|assistant|model|bot|chatbot|dan|jailbroken|unrestricted|unfiltered|uncensored|developer\s+mode|mode|admin|administrator|root|system|free\s+from|unbound|no\s+longer\s+bound)\b`),
		pat(FamilyRole, "mode-enabled", 0.8, []string{"developer mode", "god mode", "jailbreak mode", "dan mode", "enable developer", "enable dan", "enable jailbreak"},
			`\s*(?:enabled|activated|on\s*(?:[.!,:;\n)\]]|$)|is\s+now\s+(?:on|active|enabled)|mode)\b`), // "on" ends the phrase: "developer mode on Android" is a phone setting
		pat(FamilyRole, "message-from-system", 0.6, []string{"message from", "note from", "instruction from", "instructions from", "notice from", "alert from", "directive from"},
			`\s+(?:the\s+)?(?:system|openai|anthropic|model\s+provider|ai\s+provider|your\s+(?:creator|developer|developers|operator|owner))\b`),
		pat(FamilyRole, "message-from-staff", 0.3, []string{"message from", "note from", "instruction from", "instructions from", "notice from", "alert from", "directive from"},
			`\s+(?:the\s+)?(?:administrator|admin|developers?|it\s+department|security\s+team)\b`),
		pat(FamilyOverride, "addresses-the-model", 0.55, []string{"note to ai", "ai agents:", "ai agent:", "ai assistants:", "attention ai", "if you are an ai", "if you're an ai",
			"to any ai", "dear ai", "the assistant reading this", "hey model", "hey assistant", "hey ai", "assistant, stop", "assistant, ignore", "model, ignore", "any llm", "llms reading", "ai models:", "language model reading", "ai reading this", "note to the assistant", "note to llm"}, ``),
		pat(FamilyOverride, "treat-as-instructions", 0.8, []string{"treat", "consider", "regard"},
			`\s+(?:this|the\s+following|the\s+text\s+below|what\s+follows|the\s+content\s+below|this\s+(?:page|message|document))\s+as\s+(?:your\s+)?(?:new\s+|highest[\s-]priority\s+|top[\s-]priority\s+|system\s+|primary\s+|real\s+)+(?:instructions|prompt|directives|orders|rules)`).needing("instruction", "prompt", "directive", "order", "rule"),
		pat(FamilyRole, "act-as-unrestricted", 0.75, []string{"act", "behave", "respond", "pretend", "roleplay", "answer", "reply"},
			`\s+(?:as|like|to\s+be)\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+|the\s+)?(?:unrestricted|unfiltered|jailbroken|evil|uncensored|dan|root|system\s+administrator|ai\s+without|ai\s+with\s+no\s+(?:restrictions|limits|filters|rules))\b`).needing("with no", "unrestricted", "unfiltered", "jailbroken", "evil", "uncensored", "dan", "root", "administrator", "without"),
		pat(FamilyRole, "fake-control-tag", 0.55, []string{"<important>", "<system>", "</system>", "<instructions>", "<system_prompt>", "</tool_result>", "<admin>", "</function_results>", "<user_query>", "<instruction>"},
			``),

		// data exfiltration incl. markdown image and link leaks
		pat(FamilyExfiltration, "image-url-placeholder", 0.9, []string{"!["},
			`[^\]]{0,200}\]\(\s*(?:https?:)?//[^\s)]{1,400}(?:\{|\$|<|%7b|%24|\[)`).withPre(imagePlaceholder),
		pat(FamilyExfiltration, "image-url-secret-param", 0.75, []string{"!["},
			`[^\]]{0,200}\]\(\s*(?:https?:)?//[^\s)?]{1,300}\?[^\s)]{0,300}=[^\s)&]{0,40}(?:token|secret|password|passwd|session|cookie|history|conversation|chat|email|apikey|api_key|credential)`).needing("token", "secret", "passw", "session", "cookie", "history", "conversation", "chat", "email", "key", "credential").withPre(imageQuery),
		pat(FamilyExfiltration, "image-url-query", 0.3, []string{"!["},
			`[^\]]{0,200}\]\(\s*(?:https?:)?//[^\s)?]{1,300}\?[^\s)]{0,300}=`).withPre(imageQuery),
		pat(FamilyExfiltration, "send-secret-to-sink", 0.85, []string{"send", "post", "upload", "forward", "transmit", "exfiltrate", "leak", "email", "submit", "copy", "share"},
			`[a-z]{0,3}\s+(?:\S+\s+){0,4}?`+secretObj+`\s+(?:\S+\s+){0,6}?(?:to|at|into|via)\s+`+sinkObj).needing(needSink...).withPre(sinkAfterPreposition),
		pat(FamilyExfiltration, "reveal-system-prompt", 0.8, []string{"reveal", "print", "output", "repeat", "display", "show", "dump", "leak", "disclose", "tell me", "write out", "recite"},
			`\s+(?:me\s+)?(?:your|the)\s+(?:entire\s+|full\s+|complete\s+|original\s+|hidden\s+|initial\s+|exact\s+|secret\s+)*(?:system\s+prompt|system\s+message|initial\s+instructions|hidden\s+instructions|instructions\s+above|prompt\s+above|text\s+above|api\s+keys?|secret\s+keys?|credentials|developer\s+message)`).needing("prompt", "instruction", "system", "key", "credential", "message", "above"),
		pat(FamilyExfiltration, "embed-data-in-url", 0.8, []string{"append", "include", "embed", "encode", "insert", "put", "add"},
			`\s+(?:\S+\s+){0,4}?(?:conversation|history|password|secret|token|key|credentials|data|messages|contents?|summary|answer|response)\s+(?:\S+\s+){0,5}?(?:to|in|into|as)\s+(?:the\s+|this\s+|a\s+)?(?:url|link|image\s+url|query\s+(?:string|parameter)|image\s+(?:link|source)|request\s+parameter)`).needing("url", "link", "query", "image", "parameter"),

		// tool-misuse commands
		pat(FamilyToolMisuse, "pipe-to-shell", 0.9, []string{"curl", "wget"},
			`\s+[^|\n]{1,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b`),
		pat(FamilyToolMisuse, "destructive-shell", 0.85, []string{"rm -rf", "rm -fr", "mkfs", "dd if=", ":(){"},
			`\s*(?:/|~|\*|\$home|--no-preserve-root|\.|[a-z/])`),
		pat(FamilyToolMisuse, "hide-from-user", 0.7, []string{"do not", "don't", "never"},
			`\s+(?:tell|inform|notify|alert|show|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|let)\s+(?:the\s+)?user(?:\s|[.,;:!]|$)|\s+(?:say|mention|reveal|disclose|admit|indicate)\s+(?:that\s+)?(?:it|this|these|the\s+(?:link|instruction|request))\s+(?:came|comes|come|was\s+requested|was\s+asked|is\s+from|was\s+added)`).needing("user", "came", "come", "request", "asked", "from", "added"),
		pat(FamilyToolMisuse, "add-hidden-content", 0.6, []string{"add", "insert", "include", "embed", "append", "hide"},
			`\s+(?:a\s+|an\s+)?(?:hidden|invisible|secret|covert)\s+(?:link|image|pixel|instruction|message|text|payload|script|iframe)`).needing("hidden", "invisible", "secret", "covert"),
		pat(FamilyToolMisuse, "without-consent", 0.35, []string{"without"},
			`\s+(?:asking|telling|informing|notifying|alerting|the\s+user'?s?\s+(?:knowledge|consent|permission|approval)|user\s+(?:confirmation|approval|consent)|(?:asking\s+)?(?:for\s+)?(?:confirmation|permission|approval))`),
		pat(FamilyToolMisuse, "read-secret-file", 0.8, []string{"read", "cat", "open", "access", "upload", "send", "include", "attach", "fetch", "load"},
			`\s+(?:the\s+)?(?:contents?\s+of\s+)?(?:the\s+)?(?:file\s+)?(?:~/\.ssh|~/\.aws|/etc/passwd|/etc/shadow|\S*id_rsa|\S*\.env\b|\S*credentials\.json|~/\.npmrc|~/\.netrc|\S*mcp\.json|\S*\.pem\b)`).needing(".ssh", ".aws", "passwd", "shadow", "id_rsa", ".env", "credentials", "npmrc", "netrc", "mcp.json", ".pem"),
		pat(FamilyToolMisuse, "secret-file-mention", 0.45, []string{"~/.ssh", ".ssh/", "id_rsa", "/etc/passwd", "/etc/shadow", "credentials.json", ".aws/credentials", "~/.npmrc", "~/.netrc", "mcp.json"}, ``),
		pat(FamilyToolMisuse, "transfer-all-funds", 0.75, []string{"transfer", "wire", "send", "move"},
			`\s+all\s+(?:the\s+|your\s+|of\s+the\s+|of\s+your\s+)?(?:funds|money|balance|crypto|bitcoin|tokens|assets)`).needing("all"),
		pat(FamilyToolMisuse, "delete-everything", 0.4, []string{"delete", "erase", "wipe", "destroy", "drop", "purge"},
			`\s+(?:all|every|the\s+entire|everything)\s+(?:\w+\s+){0,2}?(?:files|emails|messages|data|records|repositories|repos|database|tables|backups|users|in)`).needing("all", "every", "entire"),
		pat(FamilyToolMisuse, "covert", 0.35, []string{"silently", "secretly", "covertly", "quietly", "without the user noticing", "without the user knowing"},
			`\b`),
		pat(FamilyToolMisuse, "call-tool-instead", 0.3, []string{"call", "invoke", "use", "run", "execute", "trigger"},
			`\s+(?:the\s+)?[\w.-]+\s+tool\s+(?:\w+\s+){0,3}?(?:instead|first|before|with\s+the\s+(?:contents?|password|token|key))`).needing("tool").alsoNeeding("instead", "first", "before", "with"),

		// multilingual variants of instruction override
		pat(FamilyMultilingual, "fr", 0.85, []string{"ignore", "ignorez", "ignorer", "oublie", "oubliez"},
			`\s+(?:toutes?\s+)?(?:les\s+|vos\s+|tes\s+)?(?:instructions|consignes|directives|règles)\s+(?:précédentes|antérieures|ci-dessus|données)|\s+tout\s+ce\s+qui\s+précède`).needing("instru", "consignes", "directives", "règles", "reglas", "regras", "indicaciones", "órdenes", "tout ce", "todo lo"),
		pat(FamilyMultilingual, "es", 0.85, []string{"ignora", "ignore", "ignorar", "olvida", "olvide"},
			`\s+(?:todas\s+)?(?:las\s+)?(?:instrucciones|indicaciones|reglas|órdenes)\s+(?:anteriores|previas)|\s+todo\s+lo\s+anterior`).needing("instru", "consignes", "directives", "règles", "reglas", "regras", "indicaciones", "órdenes", "tout ce", "todo lo"),
		pat(FamilyMultilingual, "de", 0.85, []string{"ignoriere", "ignorieren sie", "ignoriert", "vergiss", "vergessen sie"},
			`\s+(?:alle\s+)?(?:vorherigen|bisherigen|obigen|vorigen|vorangegangenen)?\s*(?:anweisungen|instruktionen|regeln|befehle|vorgaben)`),
		pat(FamilyMultilingual, "it", 0.85, []string{"ignora", "dimentica"},
			`\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|regole)\s+(?:precedenti)`),
		pat(FamilyMultilingual, "pt", 0.85, []string{"ignore", "ignora", "esqueça", "esqueca"},
			`\s+(?:todas\s+)?(?:as\s+)?(?:instruções|instrucoes|regras)\s+(?:anteriores|prévias|previas)`).needing("instru", "consignes", "directives", "règles", "reglas", "regras", "indicaciones", "órdenes", "tout ce", "todo lo"),
		pat(FamilyMultilingual, "zh", 0.85, []string{"忽略", "无视", "忽视", "忘记", "忘掉", "無視"},
			`(?:掉)?(?:之前|以上|上面|先前|前面|所有|以前)(?:的)?(?:所有)?(?:的)?(?:指令|指示|说明|規則|规则|提示|命令)`),
		pat(FamilyMultilingual, "ja", 0.85, []string{"以前の", "前の", "上記の", "これまでの", "すべての"},
			`(?:指示|命令|ルール|プロンプト)(?:を)?(?:すべて)?(?:無視)`),
		pat(FamilyMultilingual, "ru", 0.85, []string{"игнорируй", "игнорируйте", "забудь", "забудьте", "проигнорируй"},
			`\s+(?:все\s+)?(?:предыдущие|прежние|прошлые|вышеуказанные)\s+(?:инструкции|указания|правила|команды)`),
		pat(FamilyMultilingual, "ko", 0.85, []string{"이전", "위의"},
			`\s*(?:모든\s*)?(?:지시|명령|지침)(?:를|을|사항을)?\s*(?:모두\s*)?무시`),
	}
})

// anchors lists the anchors and, by their number, the patterns that start with each, in a stable
// order; both are built on first use.
var (
	anchors = sync.OnceValue(func() anchorIndexed {
		index, list := buildAnchorIndex()
		byID := make([][]*pattern, len(list))
		for i, a := range list {
			byID[i] = index[a]
		}
		return anchorIndexed{list, byID}
	})
	needList = sync.OnceValue(func() []string {
		return buildNeedList()
	})
)

// buildNeedList collects every pattern's need and also words once and records their indexes.
func buildNeedList() []string {
	var list []string
	at := map[string]int{}
	ids := func(words []string) (out []int) {
		for _, w := range words {
			id, ok := at[w]
			if !ok {
				id = len(list)
				at[w] = id
				list = append(list, w)
			}
			out = append(out, id)
		}
		return out
	}
	for _, p := range allPatterns() {
		p.needIDs = ids(p.need)
		p.alsoIDs = ids(p.also)
	}
	return list
}

func buildAnchorIndex() (map[string][]*pattern, []string) {
	idx := map[string][]*pattern{}
	var list []string
	for _, p := range allPatterns() {
		for _, a := range p.anchors {
			if _, ok := idx[a]; !ok {
				list = append(list, a)
			}
			idx[a] = append(idx[a], p)
		}
	}
	return idx, list
}

// anchorIndexed is the built anchor index.
type anchorIndexed struct {
	list []string
	byID [][]*pattern // the patterns of anchor list[i], so the matcher need not hash each anchor it finds
}

func anchorList() []string      { return anchors().list }
func anchorsByID() [][]*pattern { return anchors().byID }
