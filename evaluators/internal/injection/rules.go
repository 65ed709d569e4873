package injection

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/prefilter"
	"github.com/evalcol/evalcol/evaluators/internal/textclass"
)

// Finding is the strongest rule that matched a text.
type Finding struct {
	// Rule names the rule, e.g. "override/en" or "marker/chatml"; a hit
	// inside hidden or encoded text is prefixed with where it was found,
	// e.g. "base64>override/en" or "zero-width>reveal/en".
	Rule string
	// Score is the rule's confidence in 0..1 (0 when no rule matched).
	Score float64
}

// better returns the stronger of f and g (f on a tie).
func (f Finding) better(g Finding) Finding {
	if g.Score > f.Score {
		return g
	}
	return f
}

// phraseRule is a regular expression that is only run on the text around
// one of its anchors, so clean text costs a few substring searches.
type phraseRule struct {
	name  string
	score float64
	// anchors are lower-case byte strings, searched for in the text with
	// ASCII letters folded to lower case. Non-ASCII anchors must match
	// exactly, so Cyrillic stems leave out their first letter.
	anchors [][]byte
	re      *regexp.Regexp
	// needWords, when set, are lower-case words of which every match holds
	// one as a whole word (in any case): windows without any are skipped
	// before the expression runs. Common English anchors ("mode",
	// "policy", "task") make the expressions run often on benign text.
	needWords []string
	// filter is the necessary condition on literal text read from re
	// (package prefilter): a window lacking a word every match needs
	// ("instructions" or "rules" after "ignore ... previous") is skipped
	// before the expression runs.
	filter *prefilter.Filter
}

// matchWindow reports whether the rule's expression matches w, whose
// ASCII-lower-case copy is lowerW.
func (r *phraseRule) matchWindow(w string, lowerW []byte) bool {
	if !r.filter.MayMatch(lowerW) {
		return false
	}
	if r.needWords != nil && !textclass.HasWord(w, r.needWords) {
		return false
	}
	return r.re.MatchString(w)
}

// needing sets the words of which every match of r holds one (see
// phraseRule.needWords); they must be a necessary condition of r's
// expression.
func needing(words string, r phraseRule) phraseRule {
	r.needWords = strings.Split(words, "|")
	return r
}

// markerRule is a chat-template token or role header, searched for with
// ASCII case folding.
type markerRule struct {
	name   string
	score  float64
	marker []byte // lower case
}

// Scores of the rule families: an explicit instruction override or a
// chat-template token in user input is near-certain evidence, persona and
// "no restrictions" phrasings a little less.
const (
	scoreOverride     = 0.95
	scoreReveal       = 0.9
	scorePersona      = 0.9
	scoreUnrestricted = 0.85
	scoreNewTask      = 0.8
	scoreMarker       = 0.9
	scoreWeakMarker   = 0.7
	scoreTagText      = 0.85
	scoreZeroWidthRun = 0.7
)

// Regular expression pieces. Go's \b and \w are ASCII-only, so non-ASCII
// words end in \pL* and never rely on \b.
const (
	gap4 = `(?:[^\s.!?]+\s+){0,4}?` // up to four words
	gap3 = `(?:[^\s.!?]+\s+){0,3}?`
	gap2 = `(?:[^\s.!?]+\s+){0,2}?`
	sfx  = `[\pL\pM]*` // rest of a word
	zgap = `[^。！？!?\n]{0,10}?`
)

func anchors(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

func rule(name string, score float64, anc [][]byte, re string) phraseRule {
	compiled := regexp.MustCompile(`(?i)` + re)
	return phraseRule{name: name, score: score, anchors: anc, re: compiled, filter: prefilter.New(compiled)}
}

// phraseRules are the instruction-override, reveal, persona and
// restriction-removal phrasings, per language. They are built once and
// never changed.
var phraseRules = []phraseRule{
	// English.
	rule("override/en", scoreOverride,
		anchors("ignor", "disregard", "forget", "skip", "drop", "abandon", "overrid", "overlook", "neglect", "discard", "bypass", "aside", "erase", "remove", "throw away"),
		`\b(?:ignore|ignoring|disregard(?:ing)?|forget(?:ting)?|skip|drop|abandon|override|overlook|neglect|discard|bypass|set\s+aside|put\s+aside|throw\s+away|erase|remove)\s+`+gap4+
			`(?:previous|prior|above|earlier|preceding|foregoing|former|initial|original|system|developer|your|all|any)\s+`+gap3+
			`(?:instructions?|directives?|guidelines?|prompts?|orders|commands|tasks?|assignments?|rules|context|programming|constraints|restrictions|policies|training)\b`),
	rule("override/en", 0.9,
		anchors("ignor", "disregard", "forget"),
		`\b(?:ignore|disregard|forget)\s+(?:about\s+)?everything\b[^.?\n]{0,40}?(?:\bbefore\b|\babove\b|\bprevious(?:ly)?\b|\bprior\b|\bearlier\b|\bsaid\b|\bknow\b|\btold\b|\blearned\b|\bdiscussed\b|\bso\s+far\b|\buntil\s+now\b|\band\s+(?:just\s+|only\s+|instead\s+)?(?:say|output|print|write|respond|reply|answer|tell)\b)`),
	rule("override/en", 0.9,
		anchors("ignor", "disregard", "forget"),
		`\b(?:ignore|disregard|forget)\s+(?:(?:all|everything)\s+)?(?:the\s+)?above\b`),
	needing("new|further|additional|your|change|update|replace", rule("new-task/en", scoreNewTask,
		anchors("instruction", "task"),
		`\b(?:(?:new|further|additional)\s+(?:instructions?|tasks?)\s+(?:now\s+)?(?:follow|are\s+following)\b|your\s+new\s+(?:task|instructions?)\s*(?:is|are|:)|(?:change|update|replace)\s+your\s+instructions\b|your\s+instructions\s+are\s+now\b)`)),
	rule("reveal/en", scoreReveal,
		anchors("prompt", "instruction", "system message"),
		`\b(?:reveal|show|print|display|output|repeat|leak|disclose|dump|recite|spell\s+out|write\s+out|tell\s+me|give\s+me)\b[^.?!\n]{0,30}?\b(?:(?:your|the)\s+`+gap3+`(?:system\s+(?:prompt|message)|prompt\s+texts?|(?:initial|original|hidden|secret|pre)[\s-]?prompt|(?:initial|original|hidden|secret|system)\s+instructions)|your\s+(?:instructions|prompts?|rules|guidelines|programming))\b`),
	rule("reveal/en", 0.85,
		anchors("your instruction", "your system", "your prompt", "your rules"),
		`\bwhat\s+(?:are|were|is|was)\s+your\s+(?:instructions|system\s+prompt|rules|initial\s+prompt|prompt)\b`),
	rule("reveal/en", scoreNewTask,
		anchors("written", "above"),
		`\b(?:what\s+(?:is|was)\s+written\s+(?:at\s+the\s+beginning|above|before)|(?:repeat|print|output)\s+(?:the\s+)?(?:text|words|everything|all)\s+above)\b`),
	needing("anything|dan|jailbroken|jailbreak|mode", rule("persona/en", scorePersona,
		anchors("anything now", "dan", "jailbr", "mode"),
		`(?:\bdo\s+anything\s+now\b|\bdan\s+mode\b|\b(?:you\s+are|you're|act\s+as|become|enable|enter|activate)\s+(?:now\s+)?(?:an?\s+)?(?:dan|jailbroken|jailbreak)\b|\b(?:developer|dev|god|jailbreak|jailbroken|unrestricted|unfiltered|evil|chaos)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|activated)\b|\b(?:chatgpt|gpt|ai|assistant|you)\b[^.\n]{0,40}?\b(?:developer|god|jailbreak|jailbroken|unrestricted|unfiltered|evil)\s+mode\b)`)),
	needing("pretend|imagine|act|behave|assume|suppose|freed|free|liberated|released|broken|abide|follow|adhere|comply|obey|bound|restricted|limited|constrained|without|bypass|bypassing|disable|remove",
		rule("unrestricted/en", scoreUnrestricted,
			anchors("restrict", "limit", "rules", "filter", "guideline", "censor", "boundar", "constrain", "moral", "ethic", "confines", "shackle", "polic", "bound by"),
			`(?:\b(?:pretend|imagine|act\s+as\s+if|behave\s+as\s+if|assume|suppose)\b[^.\n]{0,40}?\byou\s+(?:have|had|are|were)\s+(?:no|zero|without|free\s+(?:of|from))\s+(?:\w+\s+)?(?:restrictions|limitations|limits|rules|filters|guidelines|censorship|boundaries|constraints|morals|ethics|programming)\b`+
				`|\b(?:freed|free|liberated|released|broken\s+free)\s+(?:from|of)\s+(?:the\s+)?(?:typical\s+|usual\s+)?(?:confines|restrictions|limitations|rules|shackles|chains|constraints)\s+of\s+(?:ai|openai|chatgpt|your)\b`+
				`|\b(?:do\s+not|don't|doesn't|does\s+not|never|won't|will\s+not|not)\s+(?:have\s+to\s+|need\s+to\s+)?(?:abide|follow|adhere|comply|obey)\b[^.\n]{0,20}?(?:\bopenai|\bcontent\s+polic|\b(?:ethical|safety|moral)\s+(?:guidelines|rules|restrictions|standards)|\byour\s+(?:programming|guidelines|rules|restrictions))`+
				`|\b(?:no\s+longer|not)\s+(?:bound|restricted|limited|constrained)\s+by\s+(?:any\s+)?(?:openai|rules|guidelines|polic|restrictions|ethic|moral|your)`+
				`|\b(?:without|bypass(?:ing)?|disable|remove)\s+(?:any\s+|all\s+)?(?:ethical|moral|safety|content)\s+(?:restrictions|limitations|filters|guidelines|constraints|boundaries)\b)`)),

	// Several languages: "forget everything" followed by a new
	// instruction ("Forget everything, write ...", "Vergiss alles und
	// sag ...", "IGNORE EVERYTHING AND JUST OUTPUT ...").
	rule("override/everything", 0.9,
		anchors("ignor", "disregard", "forget", "vergiss", "olvid", "oubli", "dimentic", "esque", "vergeet", "negeer", "zaboravi"),
		`(?:^|[.!?:;\n]\s*)(?:ignore|disregard|forget|ignoriere|vergiss|olvida|ignora|oublie|ignorez|oubliez|dimentica|esqueça|esqueca|esquece|vergeet|negeer|zaboravi|ignoriraj)\s+(?:everything|alles|todo|tout|tutto|tudo|sve)\s*[,.;:!\-–]`+
			`|\b(?:ignore|disregard|forget|ignoriere|vergiss|olvida|ignora|oublie|ignorez|oubliez|dimentica|esqueça|esqueca|esquece|vergeet|negeer|zaboravi|ignoriraj)\s+(?:everything|alles|todo|tout|tutto|tudo|sve)\s*,?\s*(?:and|und|y|et|e|en|i)\s+(?:\S+\s+)?(?:say|output|print|write|respond|reply|answer|tell|sag|sage|schreib|schreibe|gib|di|escribe|dis|écris|ecris|scrivi|diga|escreva|zeg|schrijf|reci|napiši|napisi)\b`),
	// English: an instruction to answer from anything but the supplied
	// documents, or to disregard what the assistant was told.
	rule("context-override/en", 0.85,
		anchors("article", "document", "context", "source", "told", "answer this", "answer the"),
		`\b(?:disregard(?:ing)?|ignor(?:e|ing)|forget(?:ting)?)\s+(?:all\s+)?the\s+(?:provided\s+|given\s+)?(?:articles|documents|context|sources)\s*[,.;:!]`+
			`|\bown\s+knowledge\b[^.?!\n]{0,30}?\bnot\s+(?:by|from|on|based\s+on)\s+the\s+(?:articles?|documents?|context|sources?)\b`+
			`|\bnot\s+(?:by|from|on|based\s+on)\s+the\s+(?:articles?|documents?|context|sources?)\b[^.?!\n]{0,30}?\bown\s+knowledge\b`+
			`|\b(?:do\s+not|don't|dont)\s+(?:look|search|read|use|rely)\s+(?:\S+\s+)?(?:the\s+)?(?:articles?|documents?|context|sources?)\s+(?:provided|given)\b`+
			`|\b(?:despite|regardless\s+of|no\s+matter)\s+what\s+you(?:'ve|\s+have|\s+were|\s+are)?\s+(?:been\s+)?told\b`+
			`|\b(?:do\s+not|don't|dont)\s+answer\s+(?:this|the)\s+question\s*,?\s*(?:but|just|only|instead)\b`),
	// Several languages: an interjection that stops the current task
	// ("Attention - stop -", "ACHTUNG - STOPP", "stop: write ...").
	rule("interrupt", 0.85,
		anchors("stop"),
		`\b(?:attention|achtung|atenci[oó]n|attenzione|aten[cç][aã]o|let\s+op|uwaga)\s*[-–:!,.]+\s*stopp?\b`+
			`|(?:^|[.!?]\s*|\s)stopp?\s*[:\-–]+\s*(?:write|say|print|output|answer|respond|schreib\w*|sag\w*|antworte\w*|escrib\w*|di|dime|écris|ecris|dis|scrivi|escrev\w*|diga|schrijf|zeg)\b`),

	// German.
	rule("override/de", scoreOverride,
		anchors("ignorier", "vergiss", "vergessen", "vergesst", "missacht", "bergeh", "verwirf", "streich", "hinter sich", "abweichend"),
		`(?:\b(?:ignorier`+sfx+`|vergiss|vergessen\s+sie|vergesst|missachte`+sfx+`|übergeh`+sfx+`|verwirf)\s+`+gap4+
			`(?:vorherig|bisherig|obig|vorangehend|vorangegangen|vorig|früher|alle|deine|ihre|sämtlich)`+sfx+`\s+`+gap3+
			`(?:anweisung|instruktion|befehl|aufgabe|aufträg|auftrag|regel|angaben|informationen|vorgaben|richtlinie|prompt)`+sfx+
			`|(?:vorherig|bisherig|obig|vorangehend|vorangegangen)`+sfx+`\s+`+gap2+`(?:anweisung|instruktion|befehl|aufgabe|aufträg|angaben|informationen|ausführungen)`+sfx+`\s+`+gap4+`(?:ignorier|vergess|vergiss|missacht|streich|hinter\s+sich)`+
			`|\babweichend\s+(?:zu|von)\s+(?:den\s+)?(?:vorherigen|bisherigen|obigen)\s+(?:instruktionen|anweisungen|vorgaben))`),
	rule("override/de", 0.9,
		anchors("vergiss"),
		`\bvergiss\s+(?:\S+\s+)?alles\W+(?:davor|vorher|bisher|gesagte|was|zuvor|oben)`),
	rule("reveal/de", scoreReveal,
		anchors("prompt", "anweisung", "instruktion"),
		`(?:zeig|gib|nenne|verrate|druck|wiederhole)`+sfx+`\b[^.?!\n]{0,30}?(?:system-?prompt|prompt-?text`+sfx+`|(?:deine|ihre)\s+(?:anweisungen|instruktionen|vorgaben))`),
	rule("unrestricted/de", scoreUnrestricted,
		anchors("einschr", "beschr", "regeln", "filter", "richtlinien", "zensur", "grenzen"),
		`(?:tu\s+so|stell\s+dir\s+vor|stellen\s+sie\s+sich\s+vor|du\s+hast|du\s+bist)\b[^.\n]{0,40}?(?:keine|ohne)\s+(?:\S+\s+)?(?:einschränkungen|beschränkungen|regeln|filter|richtlinien|zensur|grenzen)`),

	// French, Spanish, Italian, Portuguese, Dutch: an override verb a few
	// words before an instruction noun.
	rule("override/fr", scoreOverride,
		anchors("ignor", "oubli", "glige", "abstraction", "tenez pas compte", "tiens pas compte"),
		`(?:\bignore[zrs]?|\boublie[zrs]?|négligez|néglige|fais\s+abstraction\s+de|faites\s+abstraction\s+de|ne\s+tiens\s+pas\s+compte\s+de|ne\s+tenez\s+pas\s+compte\s+de)\s+`+gap4+`(?:instructions|consignes|règles|directives|ordres|indications|commandes|tâches)`),
	rule("reveal/fr", scoreReveal,
		anchors("prompt", "instructions"),
		`(?:montre|affiche|révèle|révélez|donne|imprime|répète)`+sfx+`[^.?!\n]{0,30}?(?:prompt\s+(?:système|systeme|initial)|instructions\s+(?:système|systeme|initiales|cachées)|(?:tes|vos)\s+instructions)`),
	rule("override/es", 0.9,
		anchors("ignor", "olvid", "descart", "omit", "caso omiso", "hagas caso"),
		`(?:\bignora|\bignore|\bignorar|\bignoren|\bolvida|\bolvide|\bolvidar|\bolviden|\bolvidá|\bdescarta|\bdescarte|\bomite|\bomita|haz\s+caso\s+omiso\s+de|no\s+hagas\s+caso\s+(?:a|de))\s+`+gap4+`(?:instrucciones|reglas|órdenes|ordenes|indicaciones|directrices|normas|tareas|todo\s+(?:lo\s+)?(?:que|anterior))`),
	rule("reveal/es", scoreReveal,
		anchors("prompt", "instrucciones"),
		`(?:muestra|muéstrame|revela|dime|imprime|repite)`+sfx+`[^.?!\n]{0,30}?(?:prompt\s+(?:del\s+sistema|inicial)|instrucciones\s+(?:del\s+sistema|iniciales|ocultas)|tus\s+instrucciones)`),
	rule("override/it", 0.9,
		anchors("ignor", "dimentic", "trascur", "tralasci", "tenere conto"),
		`(?:\bignora|\bignorate|\bignori|\bdimentica|\bdimenticate|\bdimentichi|\btrascura|\btralascia|non\s+tenere\s+conto\s+d)\S*\s+`+gap4+`(?:istruzioni|regole|indicazioni|ordini|direttive|compiti|tutto\s+(?:quello|ciò)\s+(?:che|detto))`),
	rule("reveal/it", scoreReveal,
		anchors("prompt", "istruzioni"),
		`(?:mostra|rivela|stampa|ripeti|dimmi)`+sfx+`[^.?!\n]{0,30}?(?:prompt\s+(?:di\s+sistema|iniziale)|istruzioni\s+(?:di\s+sistema|iniziali|nascoste)|tue\s+istruzioni)`),
	rule("override/pt", 0.9,
		anchors("ignor", "esque", "desconsider", "descart"),
		`(?:\bignore|\bignora|\bignorar|\besqueça|\besqueca|\besquece|\besquecer|\bdesconsidere|\bdesconsidera|\bdescarte)\s+`+gap4+`(?:instruções|instrucoes|regras|ordens|diretrizes|orientações|tarefas|tudo\s+(?:o\s+)?(?:que|anterior))`),
	rule("reveal/pt", scoreReveal,
		anchors("prompt", "instru"),
		`(?:mostre|mostra|revele|revela|imprima|repita|diga)`+sfx+`[^.?!\n]{0,30}?(?:prompt\s+(?:do\s+sistema|inicial)|instruções\s+(?:do\s+sistema|iniciais|ocultas)|suas\s+instruções)`),
	rule("override/nl", 0.9,
		anchors("negeer", "vergeet", "negeren", "vergeten"),
		`\b(?:negeer|vergeet|negeren|vergeten)\s+`+gap4+`(?:instructies|regels|opdrachten|aanwijzingen|richtlijnen|prompt|alles\s+(?:wat|hiervoor|daarvoor|hierboven))`),
	rule("reveal/nl", scoreReveal,
		anchors("prompt", "instructies"),
		`\b(?:toon|laat|geef|onthul|herhaal|print)\b[^.?!\n]{0,30}?(?:systeem\s*prompt|(?:je|jouw|uw)\s+instructies)`),

	// Chinese (simplified and traditional).
	rule("override/zh", scoreOverride,
		anchors("忽略", "无视", "無視", "忽视", "忽視", "忘记", "忘記", "忘掉", "不要理会", "不要理會", "跳过", "跳過", "抛弃", "拋棄"),
		`(?:忽略|无视|無視|忽视|忽視|忘记|忘記|忘掉|不要理会|不要理會|跳过|跳過|抛弃|拋棄)`+zgap+`(?:之前|以前|先前|上面|上述|前面|以上|所有|全部|一切|你的|原来|原來|原有|系统|系統)`+zgap+`(?:指令|指示|说明|說明|规则|規則|提示|要求|命令|设定|設定|限制)`),
	rule("reveal/zh", scoreReveal,
		anchors("提示", "指令"),
		`(?:显示|顯示|输出|輸出|告诉我|告訴我|泄露|洩露|打印|重复|重複|透露|给我看|給我看)`+zgap+`(?:系统提示|系統提示|提示词|提示詞|初始指令|系统指令|系統指令|你的指令|原始指令)`),
	rule("unrestricted/zh", scoreUnrestricted,
		anchors("限制", "约束", "約束", "规则", "規則", "审查", "審查", "开发者模式", "開發者模式"),
		`(?:你`+zgap+`(?:没有|沒有|不受|不再受)(?:任何)?[^。！？\n]{0,4}?(?:限制|约束|約束|规则|規則|审查|審查)|(?:开发者|開發者)模式已?(?:启用|啟用|开启|開啟))`),

	// Japanese: the instruction noun comes before the verb.
	rule("override/ja", scoreOverride,
		anchors("無視", "忘れ"),
		`(?:以前|これまで|上記|先ほど|すべて|全て|今まで)`+zgap+`(?:指示|命令|ルール|指令|設定|制限)`+zgap+`(?:無視|忘れ)`),
	rule("reveal/ja", scoreReveal,
		anchors("プロンプト", "指示"),
		`(?:システムプロンプト|初期プロンプト|最初の指示|元の指示)`+zgap+`(?:表示|教え|見せ|出力|書き出)`),

	// Russian.
	rule("override/ru", scoreOverride,
		anchors("гнорир", "абуд", "абудь", "обращай", "тбрось", "ренебреги"),
		`(?:игнорир`+sfx+`|проигнорир`+sfx+`|забуд`+sfx+`|не\s+обращай`+sfx+`\s+внимани`+sfx+`\s+на|отбрось`+sfx+`|пренебреги)\s+`+gap4+`(?:инструкци|правил|указани|команд|промпт)`+sfx),
	rule("override/ru", 0.9,
		anchors("абуд"),
		`забуд`+sfx+`\s+(?:вс[её]|всё,?)\s*,?\s*(?:что|выше|предыдущее|сказанное|ранее)`),
	rule("reveal/ru", scoreReveal,
		anchors("нструкци", "промпт"),
		`(?:покажи|выведи|раскрой|напечатай|повтори|скажи)`+sfx+`[^.?!\n]{0,30}?(?:системн`+sfx+`\s+(?:промпт|подсказк|инструкци)`+sfx+`|(?:сво|тво|ваш)`+sfx+`\s+инструкци`+sfx+`)`),
	rule("unrestricted/ru", scoreUnrestricted,
		anchors("граничени", "правил", "цензур", "режим разработчика"),
		`(?:(?:ты|представь|притворись)`+sfx+`[^.\n]{0,40}?без\s+(?:каких-либо\s+)?(?:ограничений|правил|цензуры)|режим\s+разработчика)`),
}

// markerRules are chat-template tokens and role headers. They have no
// business in a user's prompt.
var markerRules = []markerRule{
	{"marker/chatml", scoreMarker, []byte("<|im_start|>")},
	{"marker/chatml", scoreMarker, []byte("<|im_end|>")},
	{"marker/special-token", scoreMarker, []byte("<|system|>")},
	{"marker/special-token", scoreMarker, []byte("<|user|>")},
	{"marker/special-token", scoreMarker, []byte("<|assistant|>")},
	{"marker/special-token", scoreMarker, []byte("<|endoftext|>")},
	{"marker/special-token", scoreMarker, []byte("<|eot_id|>")},
	{"marker/special-token", scoreMarker, []byte("<|start_header_id|>")},
	{"marker/special-token", scoreMarker, []byte("<|begin_of_text|>")},
	{"marker/llama", scoreMarker, []byte("[inst]")},
	{"marker/llama", scoreMarker, []byte("[/inst]")},
	{"marker/llama", scoreMarker, []byte("<<sys>>")},
	{"marker/llama", scoreMarker, []byte("<</sys>>")},
	{"marker/role-header", 0.8, []byte("### system:")},
	{"marker/role-header", 0.8, []byte("### instruction:")},
	{"marker/role-header", 0.8, []byte("### assistant:")},
	{"marker/role-header", 0.8, []byte("<system>")},
	{"marker/role-header", 0.8, []byte("</system>")},
}

// endOfSequence is the "</s>" token; it also closes an HTML strike-through,
// so it counts only without an opening "<s>" and with a weaker score.
var endOfSequence = markerRule{"marker/eos", scoreWeakMarker, []byte("</s>")}

// regexWindowBefore and regexWindowAfter bound the text around an anchor
// that a phrase rule's expression sees, in bytes.
const (
	regexWindowBefore = 120
	regexWindowAfter  = 220
)

// stackBufLen is the text length up to which scanning needs no heap buffer.
const stackBufLen = 4096

// MatchRules returns the strongest rule that matches text: chat-template
// markers and override, reveal, persona and restriction-removal phrases in
// the text itself, in text hidden with zero-width or Unicode tag
// characters, and in base64 runs of at least 24 characters. It does not
// allocate for text of up to 4 KiB with no hidden characters, no long
// base64-like run and no matching anchor word.
func MatchRules(text string) Finding {
	return matchRules(text, nil, 0)
}

// MatchRulesText is MatchRules of t.String(), reading t's shared normal
// form (see textclass.Text) instead of normalising the text again.
func MatchRulesText(t *textclass.Text) Finding {
	return matchRules(t.String(), t, 0)
}

// maxDepth bounds the nesting of hidden and encoded text that is decoded.
const maxDepth = 2

// matchRules applies every rule to text; shared, when not nil, is the
// Text of text (its normal forms are read from there).
func matchRules(text string, shared *textclass.Text, depth int) Finding {
	var arr [stackBufLen]byte
	var lower []byte
	if len(text) <= len(arr) {
		lower = arr[:len(text)]
	} else {
		lower = make([]byte, len(text))
	}
	lowerASCII(lower, text)
	f := matchPlain(text, lower, shared)
	if depth >= maxDepth {
		return f
	}
	if hasHidden(text) {
		f = f.better(matchHidden(text, depth))
	}
	return f.better(matchBase64(text, depth))
}

// lowerASCII copies s into dst (of the same length) with ASCII letters in
// lower case, so byte offsets in dst are offsets in s.
func lowerASCII(dst []byte, s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst[i] = c
	}
}

// matchPlain applies the marker, phrase and lexicon rules to text, whose
// ASCII-lower-case copy is lower (and whose Text is shared, if not nil).
func matchPlain(text string, lower []byte, shared *textclass.Text) Finding {
	best := matchPlainMarkers(lower)
	var occ [maxOccurrences]occurrence
	n, scanned := phraseAnchors.scan(lower, occ[:])
	for i := range phraseRules {
		r := &phraseRules[i]
		if r.score <= best.Score {
			continue
		}
		var hit bool
		if scanned {
			hit = phraseAnchors.matchOccurrences(i, text, lower, occ[:n])
		} else {
			hit = r.matchAround(text, lower)
		}
		if hit {
			best = Finding{Rule: r.name, Score: r.score}
		}
	}
	if best.Score < scoreLexOverride {
		best = best.better(matchLexicon(text, shared))
	}
	return best
}

// matchPlainMarkers applies the chat-template marker rules to lower.
func matchPlainMarkers(lower []byte) Finding {
	var best Finding
	for _, m := range markerRules {
		if m.score > best.Score && bytes.Contains(lower, m.marker) {
			best = Finding{Rule: m.name, Score: m.score}
		}
	}
	if endOfSequence.score > best.Score && bytes.Contains(lower, endOfSequence.marker) && !bytes.Contains(lower, []byte("<s>")) {
		best = Finding{Rule: endOfSequence.name, Score: endOfSequence.score}
	}
	return best
}

// matchAround runs the rule's expression on the text around every anchor
// occurrence until one matches. matchPlain uses it when a text holds more
// anchor occurrences than one scan records.
func (r *phraseRule) matchAround(text string, lower []byte) bool {
	for _, a := range r.anchors {
		for from := 0; from < len(lower); {
			i := bytes.Index(lower[from:], a)
			if i < 0 {
				break
			}
			at := from + i
			if lo, hi := window(text, at, len(a)); r.matchWindow(text[lo:hi], lower[lo:hi]) {
				return true
			}
			// The next window starts past this one's reach.
			from = at + len(a)
		}
	}
	return false
}
