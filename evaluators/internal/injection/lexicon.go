package injection

import (
	_ "embed"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// The lexicon rules: word classes in many languages, found token by token
// in the normalised text (lower case, accents dropped; English words also
// repaired when misspelt: "ingore", "instructoins"), then combined within
// a few words of each other. They generalise the phrase rules of rules.go
// to word order, inflection and spelling those do not list.

// Word classes.
const (
	clsVerb      = 1 << iota // override verbs: ignore, vergiss, olvida, oublie...
	clsTarget                // instruction nouns: instructions, Anweisungen, reglas...
	clsPrior                 // previous, earlier, above, original, vorherigen...
	clsYour                  // your, deine, tus, tes, le tue, suas...
	clsAll                   // all, everything, alles, todo, tout, tutto, tudo...
	clsSaid                  // told, said, gesagt, dicho, dit, detto...
	clsVoid                  // no longer, not anymore, nicht mehr, ya no, plus...
	clsSwitch                // new task, from now on, ab sofort, a partir de ahora...
	clsSecret                // password, confidential, hidden, insults, verbatim...
	clsFrame                 // pretend, imagine, role-play, in character, film script...
	clsUnbound               // no morals, no rules, never refuses, nothing is forbidden...
	clsHarm                  // bomb, meth, phishing, malware, hotwire...
	clsDetail                // step by step, in full detail, line by line...
	clsNotFollow             // don't follow, no sigas, ne suis pas...
	clsDone                  // that is done, that's enough, sehr gut, eso es todo...
	clsNow                   // now, nun, jetzt, ahora, maintenant, ora, agora...
	clsTask                  // task, challenge, Aufgabe, tarea, tâche; write, schreibe...
)

// lexiconEntries lists the words and phrases of each class, space
// separated within a phrase, accents dropped (the text is matched in
// Normalize form). Written for evalcol from general knowledge of the
// languages, not taken from any evaluation set.
var lexiconEntries = map[int][]string{
	clsVerb: {
		"abaikan", "lupakan", "bo qua", "ignoruj", "ignorujte", "zapomen", "zapomente", "ignora", "uita", "ignorati", "ignorer", "glem", "ohita", "unohda", "αγνοησε", "αγνοηστε", "ξεχνα", "ξεχαστε", "ігноруй", "игнорируй", "игнорируйте", "забудь", "забудьте", "hagyd figyelmen kivul", "felejtsd el", "تجاهل", "انس", "अनदेखा", "भूल", "무시하고", "무시해", "무시하세요", "무시해라", "잊어", "잊어버려",
		"ignore", "ignoring", "disregard", "forget", "overlook", "neglect", "discard", "bypass", "override",
		"ignoriere", "ignorier", "ignoriert", "ignorieren", "vergiss", "vergesst", "vergessen sie", "missachte", "missachten", "verwirf", "uebergehe",
		"ignora", "ignore", "ignorar", "ignoren", "olvida", "olvide", "olvidar", "olviden", "descarta", "descarte", "omite", "omita", "haz caso omiso",
		"ignorez", "oublie", "oubliez", "oublier", "neglige", "negligez", "fais abstraction", "faites abstraction",
		"ignorate", "ignori", "dimentica", "dimenticate", "dimentichi", "trascura", "tralascia",
		"esqueca", "esquece", "esquecer", "desconsidere", "desconsidera", "descarte",
		"negeer", "negeren", "vergeet", "vergeten",
		"zignoruj", "ignoruj", "zapomnij", "pomin",
		"ignorera", "glom", "strunta i",
		"yok say", "gormezden gel", "unut",
		"deja de lado", "laisse de cote", "lascia perdere", "deixe de lado",
		"zaboravi", "zaboravite", "ignoriraj", "ignorirajte", "ignorisi", "zanemari", "zanemarite", "pozabi",
	},
	clsTarget: {
		"instruksi", "perintah", "aturan", "petunjuk", "huong dan", "chi dan", "chi thi", "lenh", "quy tac", "pokyny", "instrukce", "pravidla", "instructiunile", "instructiuni", "regulile", "instruktioner", "instruksjoner", "instrukser", "ohjeet", "ohjeita", "saannot", "οδηγιες", "εντολες", "κανονες", "інструкції", "вказівки", "правила", "инструкции", "указания", "utasitast", "utasitasokat", "szabalyokat", "التعليمات", "تعليمات", "الاوامر", "القواعد", "निर्देशों", "निर्देश", "नियमों", "지시를", "지시", "지침을", "명령을", "규칙을",
		"instructions", "instruction", "directions", "directives", "guidelines", "rules", "prompt", "prompts", "orders", "commands", "constraints", "restrictions", "programming", "policies", "system prompt",
		"anweisungen", "anweisung", "instruktionen", "regeln", "vorgaben", "befehle", "richtlinien", "aufgaben",
		"instrucciones", "reglas", "ordenes", "indicaciones", "directrices", "normas",
		"consignes", "regles", "directives", "ordres", "indications",
		"istruzioni", "regole", "indicazioni", "ordini", "direttive",
		"instrucoes", "regras", "ordens", "diretrizes", "orientacoes",
		"instructies", "regels", "opdrachten", "aanwijzingen",
		"instrukcje", "instrukcji", "polecenia", "zasady",
		"instruktioner", "regler", "direktiv",
		"instrukcije", "upute", "uputstva", "naredbe", "navodila",
		"informationen", "information", "informations", "informacion", "informaciones", "informazioni", "informacoes", "informatie",
		"talimatlari", "talimatları", "talimatlar", "talimat", "kurallari", "kuralları", "kurallar", "yonergeleri", "yönergeleri",
	},
	clsPrior: {
		"sebelumnya", "truoc đo", "truoc", "predchozi", "anterioare", "forrige", "aiemmat", "aikaisemmat", "edelliset", "προηγουμενες", "попередні", "предыдущие", "korabbi", "elozo", "السابقة", "पिछले", "이전의", "이전", "앞의",
		"previous", "prior", "earlier", "above", "preceding", "original", "initial", "old", "former", "before", "system", "developer",
		"vorherigen", "vorherige", "bisherigen", "bisherige", "obigen", "fruheren", "vorigen", "vorher", "zuvor", "davor", "alten",
		"anteriores", "anterior", "previas", "antes", "originales", "antiguas",
		"precedentes", "precedente", "anciennes", "avant", "initiales", "originales",
		"precedenti", "prima", "iniziali", "originali", "vecchie",
		"anteriores", "antigas", "originais", "iniciais",
		"eerdere", "vorige", "eerder",
		"poprzednie", "poprzednich", "wczesniej", "wczesniejsze",
		"tidigare", "foregaende",
		"onceki", "daha once",
		"prethodne", "prethodnih", "prethodna", "ranije", "prijasnje", "prejsnja", "prejsnje",
	},
	clsYour: {
		"your", "deine", "deinen", "deiner", "ihre", "tus", "sus", "tes", "vos", "tue", "le tue", "suas", "seus", "tuas", "je", "jouw", "uw", "twoje", "swoje", "dina", "senin",
	},
	clsAll: {
		"semua", "segala", "tat ca", "vsechny", "toate", "ολες", "ολα", "усі", "всі", "все", "osszes", "minden", "جميع", "كل", "सभी", "모든",
		"all", "everything", "alles", "alle", "todo", "todas", "todos", "tout", "toutes", "tous", "tutto", "tutte", "tutti", "tudo", "todas", "wszystko", "wszystkim", "wszystkie", "allt", "alla", "her sey", "hepsini", "tum",
		"sve", "svih", "vse",
	},
	clsSaid: {
		"told", "said", "given", "gesagt", "gegeben", "dicho", "dijeron", "dit", "detto", "disseram", "dito", "verteld", "gezegd", "powiedziano", "hora", "sagt", "soylenen", "soyledigim",
	},
	clsVoid: {
		"no longer", "not anymore", "anymore", "any more", "are void", "null and void", "do not apply", "don't apply", "dont apply",
		"nicht mehr", "nicht langer", "ya no", "no valen", "no aplican", "ne comptent plus", "ne s'appliquent plus", "plus valables", "non valgono piu", "non contano piu", "nao valem mais", "nao se aplicam",
		"niet meer", "juz nie", "inte langre", "artik gecerli degil",
		"irrelevant", "not relevant", "unwichtig", "nicht relevant", "irrelevante", "irrelevantes", "no son relevantes", "sans importance", "non pertinentes", "non sono rilevanti", "nao sao relevantes", "niet relevant",
	},
	clsNotFollow: {
		"don't follow", "dont follow", "do not follow", "stop following", "no sigas", "no sigan", "ne suis pas", "ne suivez pas", "non seguire", "nao siga", "volg niet", "nie stosuj", "folj inte",
	},
	clsSwitch: {
		"new task", "new tasks", "next task", "new instructions", "new instruction", "new job", "next job", "new assignment", "task changed", "switch tasks", "switch task", "change of plans",
		"from now on", "now instead", "instead now", "scratch that", "end of user question", "end of user input", "end of prompt", "end of input",
		"neue aufgabe", "neue anweisungen", "ab sofort", "ab jetzt", "von nun an",
		"nueva tarea", "nuevas instrucciones", "a partir de ahora", "desde ahora",
		"nouvelle tache", "nouvelles instructions", "a partir de maintenant", "desormais",
		"nuova attivita", "nuove istruzioni", "ora in poi", "da ora in poi", "da adesso",
		"nova tarefa", "novas instrucoes", "de agora em diante", "a partir de agora",
		"nieuwe taak", "van nu af aan", "vanaf nu", "nowe zadanie", "od teraz", "ny uppgift", "fran och med nu", "yeni gorev", "bundan sonra",
	},
	clsSecret: {
		"password", "passwords", "passwort", "contrasena", "mot de passe", "senha", "wachtwoord", "haslo", "losenord", "sifre", "sifresini",
		"confidential", "secret", "secrets", "hidden", "verbatim", "configured", "setup prompt", "system prompt", "developer message",
		"insults", "insult", "beleidigungen", "insultos", "insulti", "obelgami", "hakaretlerle", "forolampningar", "scheldwoorden",
		"hacked", "pwned", "api key", "credentials",
	},
	clsFrame: {
		"du bist jetzt", "ab jetzt bist du", "stell dir vor", "tu so als", "spiel die rolle", "tu es maintenant", "imagine que tu es", "fais comme si", "joue le role", "ahora eres", "imagina que eres", "finge que", "haz de cuenta", "ora sei", "immagina di essere", "fingi di essere", "agora voce e", "imagine que voce e", "finja que", "je bent nu", "doe alsof", "jestes teraz", "udawaj",
		"pretend", "imagine", "roleplay", "role-play", "role play", "act as", "you are now", "in character", "stay in character", "let's play a game", "lets play a game",
		"answer as", "respond as", "from now on you are", "you are two", "you will be", "film script", "screenplay", "movie script", "novel", "story", "villain", "character",
	},
	clsUnbound: {
		"ohne regeln", "keine regeln", "ohne einschrankungen", "keine einschrankungen", "ohne grenzen", "ohne filter", "ohne moral", "sin reglas", "sin restricciones", "sin limites", "sin filtros", "sin moral", "sans regles", "sans restrictions", "sans limites", "sans filtre", "sans morale", "senza regole", "senza restrizioni", "senza limiti", "senza filtri", "sem regras", "sem restricoes", "sem limites", "sem filtros", "zonder regels", "zonder beperkingen", "bez zasad", "bez ograniczen",
		"no morals", "no moral", "no rules", "no guidelines", "no filter", "no filters", "no restrictions", "no limits", "no ethics", "no boundaries", "no censorship",
		"never refuses", "never refused", "never refuse", "nothing is forbidden", "nothing is off limits", "ignores every rule", "ignores all rules", "never given any guidelines",
		"without any rules", "without rules", "without restrictions", "without any restrictions", "without filters", "without limits", "without any guidelines",
		"unfiltered", "uncensored", "amoral", "unrestricted", "no content policy", "no content policies",
	},
	clsHarm: {
		"bomb", "pipe bomb", "explosive", "explosives", "napalm", "meth", "methamphetamine", "phishing", "malware", "ransomware", "keylogger", "hotwire", "nerve agent", "poison",
		"counterfeit", "credit card numbers", "cocaine", "heroin", "untraceable", "weapon", "weapons",
	},
	clsDone: {
		"that is done", "that's done", "that is enough", "that's enough", "that was ok", "that was okay", "well done", "very well done", "very good", "simply great", "great job", "good job",
		"das ist erledigt", "das genügt", "das reicht", "das war schon mal ok", "sehr gut", "gut gemacht", "einfach großartig",
		"eso es todo", "ya basta", "basta ya", "muy bien", "bien hecho", "c'est fait", "ça suffit", "très bien", "bien joué",
		"basta così", "molto bene", "ben fatto", "isso é tudo", "muito bem", "bem feito", "dat is genoeg", "goed gedaan", "heel goed",
	},
	clsNow: {
		"now", "nun", "jetzt", "ahora", "maintenant", "ora", "adesso", "agora", "nu", "teraz",
	},
	clsTask: {
		"task", "tasks", "challenge", "assignment", "aufgabe", "herausforderung", "tarea", "reto", "desafío", "tâche", "défi", "compito", "sfida", "tarefa", "opdracht", "uitdaging", "zadanie",
		"write", "schreibe", "schreib", "verfasse", "formuliere", "escribe", "redacta", "écris", "rédige", "scrivi", "escreva", "escreve", "schrijf", "napisz",
	},
	clsDetail: {
		"step by step", "in full detail", "full technical detail", "technical detail", "every detail", "in detail", "detailed instructions", "line by line", "exact recipe", "the recipe", "with every detail", "exact steps",
	},
}

// repairWords are the English words whose misspellings are repaired.
var repairWords = []string{
	"ignore", "disregard", "forget", "instructions", "instruction", "previous", "earlier", "everything", "original",
	"directions", "directives", "guidelines", "commands", "follow", "above", "prior", "rules", "before", "system", "prompt", "pretend",
}

// RepairVocabulary is the vocabulary of the injection lexicon's spelling
// repair (see textclass.Repairer).
func RepairVocabulary() []string { return repairWords }

// realVariantsText: see toxicity; written by the train command's lexicons
// step from the wamerican word list.
//
//go:embed data/real-variants.txt
var realVariantsText string

// lexicon is the compiled lexicon: entries by the hash of their first
// word.
type lexicon struct {
	byFirst firstTable
	repair  *textclass.Repairer
}

type lexEntry struct {
	rest  []uint64 // hashes of the words after the first
	class uint32
}

var theLexicon = sync.OnceValue(func() *lexicon {
	byFirst := map[uint64][]lexEntry{}
	for class, entries := range lexiconEntries {
		for _, e := range entries {
			words := lexWords(e)
			e := lexEntry{class: uint32(class)}
			for _, w := range words[1:] {
				e.rest = append(e.rest, hashWord(w))
			}
			h := hashWord(words[0])
			byFirst[h] = append(byFirst[h], e)
		}
	}
	l := &lexicon{byFirst: newFirstTable(byFirst)}
	l.repair = textclass.NewRepairer(repairWords, strings.Split(strings.TrimSpace(realVariantsText), "\n"))
	return l
})

// lexWords splits an entry the way texts are tokenised.
func lexWords(s string) []string {
	return strings.FieldsFunc(textclass.Normalize(s), func(r rune) bool { return !unicode.IsLetter(r) })
}

func hashWord(w string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * 1099511628211
	}
	return h
}

// firstTable maps the hash of an entry's first word to the entries that
// start with it: open addressing over a power-of-two table, so a token
// costs one multiply and usually one probe (a Go map costs several times
// that, once per token of every text).
type firstTable struct {
	keys    []uint64
	entries [][]lexEntry
	mask    uint64
}

func newFirstTable(m map[uint64][]lexEntry) firstTable {
	size := 16
	for size < 4*len(m) {
		size <<= 1
	}
	t := firstTable{keys: make([]uint64, size), entries: make([][]lexEntry, size), mask: uint64(size - 1)}
	for h, es := range m {
		i := t.slot(h)
		for t.entries[i] != nil {
			i = (i + 1) & t.mask
		}
		t.keys[i], t.entries[i] = h, es
	}
	return t
}

func (t *firstTable) slot(h uint64) uint64 { return h * 0x9e3779b97f4a7c15 >> 32 & t.mask }

// get returns the entries whose first word hashes to h (nil: none).
func (t *firstTable) get(h uint64) []lexEntry {
	for i := t.slot(h); t.entries[i] != nil; i = (i + 1) & t.mask {
		if t.keys[i] == h {
			return t.entries[i]
		}
	}
	return nil
}

// lexMatch is one lexicon entry found at a token index.
type lexMatch struct {
	at, end int // token indexes [at, end)
	class   uint32
}

// maxLexTokens bounds the tokens examined per text (the first ones).
const maxLexTokens = 4096

// scan returns the lexicon matches of text, which is normalised
// (textclass.Normalize) or ASCII: tokens are runs of letters, ASCII
// letters taken in lower case, so an ASCII text needs no normalising.
func (l *lexicon) scan(norm []byte, matches []lexMatch, hashes []uint64) ([]lexMatch, uint32) {
	var seen uint32
	var lower [32]byte
	// Tokenise into runs of letters, hashing them in lower case as we go;
	// an ASCII word that is no lexicon word is replaced by the word it
	// misspells, if any.
	for i := 0; i < len(norm) && len(hashes) < maxLexTokens; {
		c := norm[i]
		if c < utf8.RuneSelf {
			if !isASCIILetter(c) {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRune(norm[i:]); !unicode.IsLetter(r) {
			i += size
			continue
		}
		j := i
		ascii := true
		h := uint64(14695981039346656037)
		for j < len(norm) {
			c := norm[j]
			if c < utf8.RuneSelf {
				if !isASCIILetter(c) {
					break
				}
				h = (h ^ uint64(c|0x20)) * 1099511628211 // lower case
				j++
				continue
			}
			r, size := utf8.DecodeRune(norm[j:])
			if !unicode.IsLetter(r) {
				break
			}
			ascii = false
			for _, b := range norm[j : j+size] {
				h = (h ^ uint64(b)) * 1099511628211
			}
			j += size
		}
		if ascii && j-i >= 4 && j-i <= len(lower) && l.byFirst.get(h) == nil {
			w := lower[:j-i]
			for k, c := range norm[i:j] {
				w[k] = c | 0x20
			}
			if fixed, ok := l.repair.RepairWord(w, h); ok {
				h = hashWord(fixed)
			}
		}
		hashes = append(hashes, h)
		i = j
	}
	for k, h := range hashes {
		for _, e := range l.byFirst.get(h) {
			if k+1+len(e.rest) > len(hashes) {
				continue
			}
			ok := true
			for n, rh := range e.rest {
				if hashes[k+1+n] != rh {
					ok = false
					break
				}
			}
			if ok {
				matches = append(matches, lexMatch{at: k, end: k + 1 + len(e.rest), class: e.class})
				seen |= e.class
			}
		}
	}
	return matches, seen
}

func isASCIILetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// Lexicon rule scores.
const (
	scoreLexOverride = 0.9
	scoreLexVoid     = 0.85
	scoreLexSwitch   = 0.85
	scoreLexFrame    = 0.85
	scoreLexHarm     = 0.8
)

// nearWindow is how many tokens apart the parts of one lexicon rule may
// be.
const nearWindow = 8

// matchLexicon applies the lexicon rules to text, reading its normal form
// from shared when that is not nil.
func matchLexicon(text string, shared *textclass.Text) Finding {
	bp := lexBufs.Get().(*lexBuf)
	defer lexBufs.Put(bp)
	var norm []byte
	switch {
	case isASCII(text):
		// Only letters are read, in lower case: the text as it is.
		norm = unsafe.Slice(unsafe.StringData(text), len(text))
	case shared != nil:
		norm = shared.Normalized()
	default:
		bp.norm = textclass.AppendNormalized(bp.norm[:0], text)
		norm = bp.norm
	}
	var seen uint32
	bp.matches, seen = theLexicon().scan(norm, bp.matches[:0], bp.hashes[:0])
	if seen&(clsVerb|clsVoid|clsNotFollow|clsSwitch|clsFrame|clsDone) == 0 {
		return Finding{}
	}
	m := bp.matches
	// near reports whether a match of class c lies within nearWindow
	// tokens of match i (either side).
	near := func(i int, c uint32, window int) bool {
		for _, o := range m {
			if o.class&c != 0 && o.at < m[i].end+window && m[i].at < o.end+window {
				return true
			}
		}
		return false
	}
	after := func(i int, c uint32, window int) bool {
		for _, o := range m {
			if o.class&c != 0 && o.at >= m[i].end && o.at < m[i].end+window {
				return true
			}
		}
		return false
	}
	var best Finding
	for i, x := range m {
		switch {
		case x.class&clsVerb != 0:
			if near(i, clsTarget, nearWindow) && near(i, clsPrior|clsAll|clsYour, nearWindow) {
				best = best.better(Finding{Rule: "lexicon/override", Score: scoreLexOverride})
			}
			if (near(i, clsAll, 6) && near(i, clsPrior|clsSaid, 10)) || (after(i, clsSaid, 6) && after(i, clsPrior, 8)) {
				best = best.better(Finding{Rule: "lexicon/override", Score: scoreLexOverride})
			}
		case x.class&clsVoid != 0:
			if near(i, clsTarget, nearWindow) && near(i, clsYour|clsPrior, nearWindow) {
				best = best.better(Finding{Rule: "lexicon/void", Score: scoreLexVoid})
			}
		case x.class&clsNotFollow != 0:
			if after(i, clsTarget, 5) && near(i, clsYour|clsPrior, 5) {
				best = best.better(Finding{Rule: "lexicon/void", Score: scoreLexVoid})
			}
		case x.class&clsSwitch != 0:
			if after(i, clsSecret|clsTarget, 16) {
				best = best.better(Finding{Rule: "lexicon/task-switch", Score: scoreLexSwitch})
			}
		case x.class&clsDone != 0:
			if after(i, clsNow, 12) && after(i, clsTask, 20) {
				best = best.better(Finding{Rule: "lexicon/task-switch", Score: scoreLexSwitch})
			}
		case x.class&clsFrame != 0:
			if seen&clsUnbound != 0 {
				best = best.better(Finding{Rule: "lexicon/role-play", Score: scoreLexFrame})
			}
			if seen&clsHarm != 0 && seen&clsDetail != 0 {
				best = best.better(Finding{Rule: "lexicon/role-play-harm", Score: scoreLexHarm})
			}
		}
	}
	return best
}

// lexBuf holds the reusable buffers of one lexicon scan.
type lexBuf struct {
	norm    []byte
	hashes  []uint64
	matches []lexMatch
}

var lexBufs = sync.Pool{New: func() any { return &lexBuf{norm: make([]byte, 0, 4096), hashes: make([]uint64, 0, 512)} }}

// isASCII reports whether s holds only ASCII bytes.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
