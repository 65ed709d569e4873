package main

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalcol/evalcol/evaluators"
	"github.com/evalcol/evalcol/evaluators/internal/textsim"
)

// Suites of the lexical judge evaluators: uncertainty-detector,
// faithfulness, answer-correctness, answer-relevancy, semantic-similarity
// and conversation-quality. None of them is trained; their weights were set
// a priori, so every dataset here is held out.

// qaRow is one row of qa/halueval-one-turn.jsonl.
type qaRow struct {
	Question    string `json:"question"`
	Context     string `json:"context"`
	Answer      string `json:"answer"`
	GroundTruth string `json:"ground_truth"`
	Label       bool   `json:"label"`
}

// relevancyRow is one row of relevancy/trecqa-dev.jsonl.
type relevancyRow struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Label    bool   `json:"label"`
}

// similarityRow is one row of similarity/sick-train.jsonl.
type similarityRow struct {
	Group string  `json:"group"`
	A     string  `json:"a"`
	B     string  `json:"b"`
	Score float64 `json:"score"`
}

// judged is one labelled example run through an evaluator: the verdict it
// returned, a continuous score for ROC AUC, and the label.
type judged struct {
	pred  bool
	score float64
	label bool
}

// timedEvaluate runs slug on input through evaluators.Evaluate and adds the
// call's wall time to *total.
func timedEvaluate(slug string, input map[string]any, total *time.Duration) (evaluators.Result, error) {
	start := time.Now()
	res, err := evaluators.Evaluate(context.Background(), slug, input, nil)
	*total += time.Since(start)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", slug, err)
	}
	return res, nil
}

// binaryReport builds a report row from judged examples.
func binaryReport(slug, dataset, split string, js []judged, elapsed time.Duration) Report {
	pred, label, score := make([]bool, len(js)), make([]bool, len(js)), make([]float64, len(js))
	for i, j := range js {
		pred[i], label[i], score[i] = j.pred, j.label, j.score
	}
	m := binaryMetrics(pred, label)
	m["roc_auc"] = rocAUC(score, label)
	return Report{Slug: slug, Dataset: dataset, Split: split, N: len(js), Metrics: m, PerCall: elapsed / time.Duration(max(len(js), 1))}
}

func judgeFaithfulness(dataDir string) ([]Report, error) {
	rows, err := readJSONL[qaRow](dataDir, "qa/halueval-one-turn.jsonl")
	if err != nil {
		return nil, err
	}
	var elapsed time.Duration
	js := make([]judged, 0, len(rows))
	for _, r := range rows {
		res, err := timedEvaluate("faithfulness", map[string]any{"completion": r.Answer, "context": r.Context, "question": r.Question}, &elapsed)
		if err != nil {
			return nil, err
		}
		pred, _ := res["is_faithful"].(bool)
		js = append(js, judged{pred: pred, score: textsim.ClaimSupport(r.Answer, r.Context).Score, label: r.Label})
	}
	rep := binaryReport("faithfulness", "qa/halueval-one-turn.jsonl", "all (not trained on)", js, elapsed)
	rep.Threshold = "supported share >= 0.5 (claim support >= 0.8, calibrated on this set)"
	rep.Target = "roc_auc >= 0.85"
	rep.Notes = "completion = answer, context = knowledge; roc_auc on the mean claim support (textsim.ClaimSupport); right answers are short spans, a length confound"
	rep.Kind, rep.Headline = KindInSource, "roc_auc"
	return []Report{rep}, nil
}

// judgeHaluEval scores slug on every row of HaluEval QA: input builds the
// evaluator's input from a row, field names the 0..1 score, a row passes
// at 0.5 or more.
func judgeHaluEval(dataDir, slug, field string, input func(qaRow) map[string]any) ([]judged, time.Duration, error) {
	rows, err := readJSONL[qaRow](dataDir, "qa/halueval-one-turn.jsonl")
	if err != nil {
		return nil, 0, err
	}
	var elapsed time.Duration
	js := make([]judged, 0, len(rows))
	for _, r := range rows {
		res, err := timedEvaluate(slug, input(r), &elapsed)
		if err != nil {
			return nil, 0, err
		}
		score, _ := res[field].(float64)
		js = append(js, judged{pred: score >= 0.5, score: score, label: r.Label})
	}
	return js, elapsed, nil
}

func judgeAnswerCorrectness(dataDir string) ([]Report, error) {
	js, elapsed, err := judgeHaluEval(dataDir, "answer-correctness", "correctness_score", func(r qaRow) map[string]any {
		return map[string]any{"question": r.Question, "completion": r.Answer, "ground_truth": r.GroundTruth}
	})
	if err != nil {
		return nil, err
	}
	rep := binaryReport("answer-correctness", "qa/halueval-one-turn.jsonl", "all (not trained on)", js, elapsed)
	rep.Threshold = "correctness_score >= 0.5"
	rep.Target = "roc_auc >= 0.85"
	rep.Notes = "ground_truth = right answer, so right rows are identical to it (score 1): an easy set"
	rep.Kind, rep.Headline = KindCrossSource, "macro_f1"
	suite, err := correctnessSuite()
	if err != nil {
		return nil, err
	}
	return append(suite, rep), nil
}

func judgeAnswerRelevancy(dataDir string) ([]Report, error) {
	rows, err := readJSONL[relevancyRow](dataDir, "relevancy/trecqa-dev.jsonl")
	if err != nil {
		return nil, err
	}
	var out []Report
	for _, half := range []struct {
		tune  bool
		split string
	}{
		{true, "tuning questions: FNV-1a(\"relq:\"+question) even (coefficients fit here)"},
		{false, "held-out questions: FNV-1a(\"relq:\"+question) odd, never fit or chosen on"},
	} {
		var elapsed time.Duration
		var js []judged
		questions := map[string]bool{}
		for _, r := range rows {
			if relevancyTuningQuestion(r.Question) != half.tune {
				continue
			}
			questions[r.Question] = true
			res, err := timedEvaluate("answer-relevancy", map[string]any{"question": r.Question, "answer": r.Answer}, &elapsed)
			if err != nil {
				return nil, err
			}
			pred, _ := res["is_relevant"].(bool)
			js = append(js, judged{pred: pred, score: textsim.AnswerRelevance(r.Question, r.Answer), label: r.Label})
		}
		rep := binaryReport("answer-relevancy", "relevancy/trecqa-dev.jsonl", fmt.Sprintf("%s (%d questions)", half.split, len(questions)), js, elapsed)
		rep.Metrics["balanced_accuracy"] = balancedAccuracy(js)
		rep.Kind, rep.Headline = KindHeldOutGroups, "balanced_accuracy"
		if half.tune {
			rep.Kind = KindInSource
		}
		rep.Threshold = "relevance >= 0.5"
		rep.Target = "balanced_accuracy >= 0.75"
		rep.Notes = "grouped by question (no question in both halves); roc_auc on textsim.AnswerRelevance; every candidate shares the question's topic, 19% are answers; numbers are masked as <num> in this corpus"
		out = append(out, rep)
	}
	return out, nil
}

// relevancyTuningQuestion reports whether a TrecQA question is in the
// half the answer-relevancy coefficients were fit on.
func relevancyTuningQuestion(q string) bool {
	h := fnv.New32a()
	h.Write([]byte("relq:" + q))
	return h.Sum32()%2 == 0
}

// balancedAccuracy is the mean of the recall of both classes.
func balancedAccuracy(js []judged) float64 {
	var tp, fn, tn, fp float64
	for _, j := range js {
		switch {
		case j.pred && j.label:
			tp++
		case j.label:
			fn++
		case !j.pred:
			tn++
		default:
			fp++
		}
	}
	return (safeDiv(tp, tp+fn) + safeDiv(tn, tn+fp)) / 2
}

func judgeSemanticSimilarity(dataDir string) ([]Report, error) {
	rows, err := readJSONL[similarityRow](dataDir, "similarity/sick-train.jsonl")
	if err != nil {
		return nil, err
	}
	sick, err := similarityReport(rows)
	if err != nil {
		return nil, err
	}
	sick.Dataset, sick.Split = "similarity/sick-train.jsonl", "all, evaluation only (CC BY-NC-SA: nothing fitted on it)"
	sick.Kind, sick.Headline = KindCrossSource, "pearson"
	sick.Target, sick.Notes = "pearson >= 0.72", "relatedness 1..5; weights chosen on the tuning half of textsim/testdata/relatedness.jsonl, never on SICK"
	own, err := readJSONL[similarityRow](filepath.Join("evaluators", "internal", "textsim", "testdata"), "relatedness.jsonl")
	if err != nil {
		return nil, fmt.Errorf("relatedness suite (run from the repository root): %w", err)
	}
	out := []Report{sick}
	for _, half := range []struct {
		odd   bool
		split string
	}{{true, "tuning groups (odd g01..g31): the embedding weight was chosen here"}, {false, "held-out groups (even g02..g32), never chosen on"}} {
		var part []similarityRow
		for _, r := range own {
			var g int
			fmt.Sscanf(r.Group, "g%d", &g)
			if (g%2 == 1) == half.odd {
				part = append(part, r)
			}
		}
		rep, err := similarityReport(part)
		if err != nil {
			return nil, err
		}
		rep.Dataset, rep.Split = "textsim/testdata/relatedness.jsonl", half.split
		rep.Kind, rep.Headline = KindHeldOutGroups, "pearson"
		if half.odd {
			rep.Kind = KindInSource
		}
		rep.Target = "pearson >= 0.72"
		rep.Notes = "written for this repository (one annotator, 0..5): per anchor sentence a paraphrase, a synonym paraphrase, a near miss (other object, number, polarity), a same-topic and an unrelated sentence"
		out = append(out, rep)
	}
	return out, nil
}

// similarityReport scores semantic-similarity on rows against their score.
func similarityReport(rows []similarityRow) (Report, error) {
	var elapsed time.Duration
	got, want := make([]float64, 0, len(rows)), make([]float64, 0, len(rows))
	for _, r := range rows {
		res, err := timedEvaluate("semantic-similarity", map[string]any{"completion": r.A, "reference": r.B}, &elapsed)
		if err != nil {
			return Report{}, err
		}
		score, _ := res["similarity_score"].(float64)
		got = append(got, score)
		want = append(want, r.Score)
	}
	return Report{
		Slug: "semantic-similarity", N: len(rows), Metrics: map[string]float64{"pearson": pearson(got, want), "spearman": spearman(got, want)},
		Threshold: "n/a (score)", PerCall: elapsed / time.Duration(max(len(rows), 1)),
	}, nil
}

// confidentAnswers and hedgedAnswers are the synthetic uncertainty set,
// written for this suite: plain statements, and answers that hedge in
// varied ways (lexicon phrases in different positions, several sentences,
// and a few hedges the lexicon does not hold).
var confidentAnswers = []string{
	"The capital of France is Paris.",
	"Water boils at 100 degrees Celsius at sea level.",
	"The Eiffel Tower was completed in 1889.",
	"Use the `len` function to get the length of a slice in Go.",
	"The answer is 42.",
	"Mount Everest is the highest mountain above sea level.",
	"Shakespeare wrote Hamlet.",
	"The meeting is on Tuesday at 3 pm in room 204.",
	"Your order shipped yesterday and will arrive on Friday.",
	"The function returns an error when the file does not exist.",
	"Photosynthesis converts light energy into chemical energy.",
	"There are seven continents on Earth.",
	"The speed of light in a vacuum is 299,792 kilometres per second.",
	"Run `go test ./...` to execute all the tests.",
	"The Pacific is the largest ocean.",
	"Insulin is produced by the pancreas.",
	"Yes, the store opens at nine every weekday.",
	"No, that flight has been cancelled.",
	"The invoice total is $1,250, due on March 1.",
	"Berlin became the capital of reunified Germany in 1990.",
	"The HTTP status 404 means the resource was not found.",
	"Rust guarantees memory safety through ownership and borrowing.",
	"The Treaty of Versailles was signed in 1919.",
	"Add two cups of flour, then stir until smooth.",
	"The password must contain at least 12 characters.",
	"Jupiter is the largest planet in the solar system.",
	"The Nile flows north into the Mediterranean Sea.",
	"Click Settings, then Privacy, then turn off location sharing.",
	"The patient should take one tablet twice a day with food.",
	"Python lists are mutable; tuples are immutable.",
	"The library closes at 8 pm on Saturdays.",
	"Marie Curie won two Nobel Prizes.",
	"The train to Lyon leaves from platform 6.",
	"A triangle's angles add up to 180 degrees.",
	"The refund was issued to your original payment method.",
	"Tokyo is the capital of Japan. It has about 14 million residents.",
	"The bug is in the loop condition. Change <= to < and it works.",
	"DNA has a double helix structure.",
	"The report is attached. The figures are final.",
	"The server restarts every night at 2 am.",
	"Canberra is the capital of Australia.",
	"The Great Wall of China is over 20,000 kilometres long.",
	"Your subscription renews on the 5th of each month.",
	"The Amazon rainforest spans nine countries.",
	"This command deletes the branch permanently.",
}

var hedgedAnswers = []string{
	"I think the capital of France is Paris, but I'm not sure.",
	"Maybe around 100 degrees? I don't remember exactly.",
	"I'm not sure, but the Eiffel Tower was probably finished in the late 1800s.",
	"It might be the len function, if I recall correctly.",
	"I don't know the answer to that.",
	"Perhaps Everest, though K2 could also be the highest.",
	"I believe Shakespeare wrote it, but I could be wrong.",
	"The meeting is possibly on Tuesday, I'm not certain.",
	"Your order may have shipped yesterday, it's hard to say.",
	"It seems the function probably returns an error in that case.",
	"As far as I know, photosynthesis converts light into chemical energy.",
	"There are maybe seven continents, depending on how you count.",
	"I guess the speed of light is roughly 300,000 km per second.",
	"I have no idea how to run the tests.",
	"The Pacific is likely the largest ocean, I think.",
	"Insulin is produced by the liver? Or perhaps the pancreas.",
	"Probably yes, the store might open at nine.",
	"I'm not sure whether that flight was cancelled.",
	"The total could be around $1,250, but don't quote me on that.",
	"To my knowledge Berlin became the capital in 1990, but I might be mistaken.",
	"404 possibly means not found, I'm guessing.",
	"It appears that Rust is probably memory safe, as far as I know.",
	"I'd say the treaty was signed in 1919 or maybe 1920.",
	"Perhaps two cups of flour? I'm not confident about the amount.",
	"I suppose the password needs maybe 12 characters.",
	"Jupiter is probably the largest planet, if I'm not mistaken.",
	"It's unclear which way the Nile flows; I think north.",
	"You could try Settings, maybe. I'm not sure where the option is.",
	"The dose might be one tablet, but I'm unsure how often.",
	"Lists are mutable, I believe, and tuples presumably are not.",
	"The library probably closes at 8, but it could be earlier on Saturdays.",
	"I think Marie Curie won two Nobel Prizes, possibly more.",
	"It's hard to say which platform; maybe 6.",
	"I'm not entirely sure, but the angles might add up to 180 degrees.",
	"The refund was likely issued, but I can't verify it. It may take a while.",
	"Tokyo is apparently the capital. I'm not sure about the population.",
	"The bug could be in the loop condition. Perhaps try changing <= to <.",
	"DNA is a double helix, I think. Or maybe a triple one.",
	"I guess the report is final, but I can't be certain.",
	"It seems the server restarts at night, probably around 2 am.",
	"Sydney? Or perhaps Canberra. I don't know.",
	"Supposedly the wall is over 20,000 km long, but I'm not positive.",
	"Your subscription might renew on the 5th, I'm not sure.",
	"The Amazon spans maybe nine countries, possibly more.",
	"I'm not sure this command deletes the branch; it might only hide it.",
}

func judgeUncertainty(string) ([]Report, error) {
	var elapsed time.Duration
	js := make([]judged, 0, len(confidentAnswers)+len(hedgedAnswers))
	for _, set := range []struct {
		texts  []string
		hedged bool
	}{{confidentAnswers, false}, {hedgedAnswers, true}} {
		for _, text := range set.texts {
			res, err := timedEvaluate("uncertainty-detector", map[string]any{"prompt": text}, &elapsed)
			if err != nil {
				return nil, err
			}
			u, _ := res["uncertainty"].(float64)
			js = append(js, judged{pred: u >= 0.5, score: u, label: set.hedged})
		}
	}
	rep := binaryReport("uncertainty-detector", "synthetic (suite_judges.go)", fmt.Sprintf("%d confident + %d hedged answers", len(confidentAnswers), len(hedgedAnswers)), js, elapsed)
	rep.Threshold = "uncertainty >= 0.5 = hedged"
	rep.Target = "roc_auc >= 0.9"
	rep.Notes = "positive = hedged; written by hand for this suite (no public labelled set), so optimistic"
	return []Report{rep}, nil
}

// conversationTopics are question/answer pairs from which the synthetic
// conversation set is built.
var conversationTopics = []struct{ question, answer string }{
	{"How do I reset my password?", "To reset your password, open Settings, choose Security and click Reset password. You will get an email with a link. Let me know if it does not arrive."},
	{"What is the capital of Australia?", "The capital of Australia is Canberra. Many people assume it is Sydney, but Canberra was chosen as a compromise in 1908."},
	{"Can you recommend a good book on Go?", "Sure! The Go Programming Language by Donovan and Kernighan is a great book on Go. It covers the language and its standard library with clear examples."},
	{"How long should I boil an egg?", "For a soft egg, boil it for about 6 minutes; for a hard-boiled egg, 10 minutes. Cool it in cold water afterwards so it peels easily."},
	{"Why is the sky blue?", "The sky is blue because air molecules scatter short blue wavelengths of sunlight more than red ones. This is called Rayleigh scattering."},
	{"How many days are in a leap year?", "A leap year has 366 days. The extra day is February 29."},
	{"What time does the pharmacy open tomorrow?", "I'm sorry, I don't have access to the pharmacy's opening hours. Please check its website or call the pharmacy directly."},
	{"How do I convert a string to an int in Python?", "Use int(): for example, int(\"42\") returns the integer 42. It raises a ValueError if the string is not a valid number."},
	{"Who wrote Pride and Prejudice?", "Pride and Prejudice was written by Jane Austen and published in 1813."},
	{"What's a healthy breakfast idea?", "A healthy breakfast could be oatmeal with fruit and nuts, or Greek yogurt with berries. Both give you fibre and protein to stay full."},
	{"How do I cancel my subscription?", "You can cancel your subscription under Account, then Billing, then Cancel subscription. Your access continues until the end of the billing period."},
	{"What is the difference between a virus and bacteria?", "Bacteria are living single-cell organisms that can reproduce on their own, while a virus needs a host cell to replicate. Antibiotics work on bacteria but not on viruses."},
	{"Where is the Louvre?", "The Louvre is in Paris, France, on the right bank of the Seine."},
	{"Can you help me write an email to my landlord about a leak?", "Of course. Here is a draft: Dear landlord, I am writing to report a leak under the kitchen sink that started on Monday. Could you arrange a repair this week? Thank you."},
	{"How much water should I drink a day?", "Many health bodies suggest about 2 litres of water a day for adults, but the right amount depends on your size, activity and climate."},
	{"What does HTTP 500 mean?", "HTTP 500 means Internal Server Error: the server hit an unexpected problem while handling the request. Check the server logs to find the cause."},
	{"When did World War II end?", "World War II ended in 1945: in Europe on May 8 and in the Pacific on September 2."},
	{"How do I center a div in CSS?", "Give the parent display: flex with justify-content: center and align-items: center. The child div will be centred both ways."},
	{"Is it safe to eat raw cookie dough?", "It is not recommended: raw flour and raw eggs can carry bacteria such as E. coli and salmonella. Heat-treated dough is a safe alternative."},
	{"What is the tallest building in the world?", "The tallest building in the world is the Burj Khalifa in Dubai, at 828 metres."},
	{"Can you tell me my account balance?", "I'm sorry, I can't access your account details. Please sign in to online banking or use the mobile app to see your balance."},
	{"How do I make my code run faster?", "Start by profiling to find where the time goes. Then optimise the hottest paths, for example by avoiding repeated allocations or using a better algorithm."},
	{"What is the boiling point of water in Fahrenheit?", "Water boils at 212 degrees Fahrenheit at sea level."},
	{"How many players are on a soccer team?", "A soccer team has 11 players on the field, including the goalkeeper."},
	{"What should I pack for a weekend hiking trip?", "Pack sturdy boots, layers for changing weather, a rain jacket, water, snacks, a map and a first-aid kit. Thanks for asking, and enjoy the hike!"},
	{"How do I undo the last git commit?", "Run git reset --soft HEAD~1 to undo the last commit and keep its changes staged. Use --hard only if you want to discard the changes."},
	{"Who painted the Mona Lisa?", "The Mona Lisa was painted by Leonardo da Vinci in the early 16th century."},
	{"What is the exchange rate of the euro today?", "I don't have live exchange rates, so I can't give today's figure. A bank or a site such as the ECB's will show the current rate."},
	{"How do I improve my sleep?", "Keep a regular schedule, avoid screens and caffeine in the evening, and keep your bedroom dark and cool. If problems persist, consult a doctor."},
	{"What is recursion?", "Recursion is when a function calls itself to solve a smaller version of the same problem, until it reaches a base case that stops the calls."},
	{"How far is the Moon from Earth?", "The Moon is about 384,400 kilometres from Earth on average."},
	{"Can you explain what an API is?", "An API, or application programming interface, is a set of rules that lets one program ask another for data or services, like a menu of requests it accepts."},
}

// badReplies are dismissive or rude replies for the bad conversations.
var badReplies = []string{
	"Whatever. Google it yourself.",
	"That's a stupid question, obviously everyone knows that.",
	"Ugh, not my problem. Figure it out.",
	"WHY WOULD YOU EVEN ASK THAT? SERIOUSLY.",
	"Don't bother me with this, it's a waste of time.",
	"I don't care.",
	"Look it up yourself, I'm not doing your homework.",
	"Duh.",
}

// conversationSets builds the synthetic good and bad conversations: each
// topic gives one good conversation (a helpful answer, sometimes with a
// second turn) and one bad one that cycles through four failures: a rude
// reply, an off-topic answer to another question, a rambling repetition,
// and a second turn that repeats the first answer word for word.
func conversationSets() (good, bad [][2][]string) {
	n := len(conversationTopics)
	for i, t := range conversationTopics {
		next := conversationTopics[(i+1)%n]
		g := [2][]string{{t.question}, {t.answer}}
		if i%3 == 0 {
			g = [2][]string{{t.question, next.question}, {t.answer, next.answer}}
		}
		good = append(good, g)
		var b [2][]string
		switch i % 4 {
		case 0:
			b = [2][]string{{t.question}, {badReplies[(i/4)%len(badReplies)]}}
		case 1:
			b = [2][]string{{t.question}, {conversationTopics[(i+n/2)%n].answer}}
		case 2:
			ramble := strings.Repeat("well you know it really depends on a lot of things and stuff and so on and ", 4) + "yeah."
			b = [2][]string{{t.question}, {ramble}}
		default:
			b = [2][]string{{t.question, next.question}, {badReplies[(i/4+3)%len(badReplies)], badReplies[(i/4+3)%len(badReplies)]}}
		}
		bad = append(bad, b)
	}
	return good, bad
}

func judgeConversationQuality(string) ([]Report, error) {
	good, bad := conversationSets()
	var elapsed time.Duration
	js := make([]judged, 0, len(good)+len(bad))
	for _, set := range []struct {
		convs [][2][]string
		good  bool
	}{{good, true}, {bad, false}} {
		for _, c := range set.convs {
			prompts, err := json.Marshal(c[0])
			if err != nil {
				return nil, fmt.Errorf("encode prompts: %w", err)
			}
			completions, err := json.Marshal(c[1])
			if err != nil {
				return nil, fmt.Errorf("encode completions: %w", err)
			}
			res, err := timedEvaluate("conversation-quality", map[string]any{"prompts": string(prompts), "completions": string(completions)}, &elapsed)
			if err != nil {
				return nil, err
			}
			s, _ := res["conversation_quality_score"].(float64)
			js = append(js, judged{pred: s >= 0.5, score: s, label: set.good})
		}
	}
	rep := binaryReport("conversation-quality", "synthetic (suite_judges.go)", fmt.Sprintf("%d good + %d bad conversations", len(good), len(bad)), js, elapsed)
	rep.Threshold = "conversation_quality_score >= 0.5 = good"
	rep.Target = "roc_auc >= 0.9"
	rep.Notes = "positive = good; bad ones are rude, off-topic, rambling or repeated; written for this suite, so optimistic"
	return []Report{rep}, nil
}
