package eval

import "sync"
import "math"

// FamilyLearned marks evidence from the learned component: the window of the text it found most
// like an injection, quoted when no pattern already covers it.
const FamilyLearned = "learned_model"

// Text-level features the learned component reads besides n-grams, each in [0,1]: whether the
// text addresses an AI or its reader, opens a sentence with an order, greets a person, discusses
// attacks, or hides text. None of them comes from the pattern families: patterns are written
// with the training text in view, so on that text they look near perfect, and a model fitted on
// them learns to trust them far more than they deserve on text nobody has seen (measured in
// docs/scoring.md). The patterns and the model are combined afterwards (combineInjection).
const (
	gfAddressesAI = iota // names an AI, an assistant, an agent or a model
	gfSecond             // speaks to its reader ("you", "your", "vous", "du", "ты", "你")
	gfImperative         // a sentence opens with an order ("ignore", "send", "delete", ...)
	gfGreeting           // greets or signs off to a person
	gfDiscussion         // discussion cues anywhere
	gfEncoded            // a decoded payload
	gfHidden             // invisible characters (zero-width, bidi, tag, combining marks)
	gfConfusable         // look-alike letters inside words
	gfComment            // an HTML or markdown comment
	gfLength             // log of the length
	numGlobal
)

// Word lists of the text-level features, matched as whole words on the normalised text (CJK as
// substrings).
var (
	aiWords = []string{"assistant", "assistants", "ai", "agent", "agents", "model", "models", "llm", "llms", "chatbot",
		"bot", "bots", "language model", "copilot", "gpt", "assistente", "asistente", "ia", "ki", "ki-assistenten",
		"assistenten", "ассистент", "ии", "модель", "助手", "模型", "アシスタント", "エージェント", "モデル", "에이전트",
		"비서", "المساعد"}
	secondWords = []string{"you", "your", "yours", "yourself", "tu", "toi", "ton", "tes", "vous", "votre", "du", "dein",
		"deine", "dich", "dir", "ты", "тебя", "твои", "вы", "ваш", "你", "您", "あなた", "tú", "usted"}
	imperativeWords = []string{"ignore", "disregard", "forget", "send", "forward", "delete", "remove", "run", "execute",
		"call", "use", "transfer", "reveal", "print", "show", "tell", "include", "append", "copy", "upload", "post",
		"approve", "grant", "disable", "share", "email", "list", "output", "repeat", "write", "open", "book", "cancel",
		"mark", "set", "add", "install", "pay", "wire", "export", "leak", "dump", "paste", "invoke", "trigger",
		"ignora", "oublie", "olvida", "ignoriere", "vergiss", "игнорируй", "забудь", "忽略", "无视"}
	greetingWords = []string{"hi", "hello", "dear", "thanks", "thank", "regards", "cheers", "team", "bonjour", "hola",
		"hallo", "liebe", "lieber", "здравствуйте", "привет", "您好", "各位"}
)

// featureWord is one word of the text-level features' single index and the feature it sets.
type featureWord struct {
	feature    int
	word       string
	imperative bool // counts only when it opens a sentence or line
}

var featureWords = sync.OnceValue(func() []featureWord {
	return buildFeatureIndex()
})

func buildFeatureIndex() []featureWord {
	var fw []featureWord
	add := func(f int, imp bool, list ...string) {
		for _, w := range list {
			fw = append(fw, featureWord{f, w, imp})
		}
	}
	add(gfAddressesAI, false, aiWords...)
	add(gfSecond, false, secondWords...)
	add(gfImperative, true, imperativeWords...)
	add(gfGreeting, false, greetingWords...)
	add(gfDiscussion, false, discussionCues...)
	add(gfDiscussion, false, discussionCuesCJK...)
	return fw
}

// noteFeature sets the feature of a feature word found at pos, if it stands as a word (and, for
// an order, opens a sentence).
func noteFeature(t string, pos int, fw featureWord, f *[numGlobal]float64) {
	if f[fw.feature] == 1 {
		return
	}
	cjk := fw.word[0] >= 0x80 && isRunString(fw.word)
	end := pos + len(fw.word)
	if !cjk && (pos > 0 && isWordByte(t[pos-1]) || end < len(t) && isWordByte(t[end]) && isWordByte(fw.word[len(fw.word)-1])) {
		return
	}
	if fw.imperative && !sentenceOpening(t, pos, cjk) {
		return
	}
	f[fw.feature] = 1
}

// finishFeatures adds the features that come from the normalisation signals and the length.
func finishFeatures(n *Normalized, f *[numGlobal]float64) {
	for _, s := range n.Signals {
		switch s.Kind {
		case SignalEncoded:
			f[gfEncoded] = 1
		case SignalZeroWidth, SignalBidiControl, SignalTagCharacter, SignalCombining:
			f[gfHidden] = 1
		case SignalConfusable:
			f[gfConfusable] = 1
		case SignalHiddenComment:
			f[gfComment] = 1
		}
	}
	f[gfLength] = math.Min(1, math.Log1p(float64(len(n.Text)))/10)
}

// sentenceOpening reports whether pos opens a sentence or a line, after quotes and markup.
func sentenceOpening(t string, pos int, cjk bool) bool {
	i := pos - 1
	for i >= 0 && (t[i] == ' ' || t[i] == '"' || t[i] == '\'' || t[i] == '*' || t[i] == '(' || t[i] == '[') {
		i--
	}
	return i < 0 || t[i] == '.' || t[i] == '\n' || t[i] == ':' || t[i] == '!' || t[i] == ';' || cjk && (t[i] == ',' || t[i] >= 0x80)
}
