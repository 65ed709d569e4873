package evaluators

import "testing"

func TestAnswerCompleteness(t *testing.T) {
	in := func(q, c, ctx string) map[string]any {
		return map[string]any{"question": q, "completion": c, "context": ctx}
	}
	hours := "Our store is open Monday to Friday from 9am to 6pm, and Saturday from 10am to 4pm. We are closed on Sundays."
	runCases(t, "answer-completeness", []evalCase{
		{name: "short complete answer", input: in("What is the capital of France?", "Paris.", "The capital of France is Paris."), want: Result{"answer_completeness_score": 1.0}, pass: passes},
		{name: "full answer", input: in("When is the store open?", "Monday to Friday 9am to 6pm, Saturday 10am to 4pm, closed on Sundays.", hours), min: map[string]float64{"answer_completeness_score": 0.8}, pass: passes},
		{name: "partial answer", input: in("When is the store open?", "It is open on weekdays.", hours), max: map[string]float64{"answer_completeness_score": 0.5}, pass: fails},
		{name: "wrong answer", input: in("What is the capital of France?", "Lyon.", "The capital of France is Paris."), want: Result{"answer_completeness_score": 0.0}, pass: fails},
		{name: "empty completion", input: in("What is the capital of France?", "", "The capital of France is Paris."), want: Result{"answer_completeness_score": 0.0}},
		{name: "missing context", input: map[string]any{"question": "q", "completion": "c"}, errField: "input.context", errMsg: "input.context is required"},
	})
}

func TestContextRelevance(t *testing.T) {
	in := func(q, ctx string) map[string]any { return map[string]any{"query": q, "context": ctx} }
	runCases(t, "context-relevance", []evalCase{
		{name: "answering sentence", input: in("What is the capital of France?", "France is in Europe. The capital of France is Paris. It has many museums."), min: map[string]float64{"relevance_score": 0.5}, pass: passes},
		{name: "who question with a name", input: in("Who wrote Hamlet?", "Hamlet is a tragedy written by William Shakespeare around 1600."), min: map[string]float64{"relevance_score": 0.5}, pass: passes},
		{name: "unrelated", input: in("What is the capital of France?", "Penguins live in the southern hemisphere and eat fish."), max: map[string]float64{"relevance_score": 0.1}, pass: fails},
		{name: "same topic, not the answer", input: in("How many people live in Paris?", "Paris is known for the Eiffel Tower."), max: map[string]float64{"relevance_score": 0.5}, pass: fails},
		{name: "completion and model accepted", input: map[string]any{"query": "Who wrote Hamlet?", "context": "Hamlet was written by William Shakespeare.", "completion": "Shakespeare"}, config: map[string]any{"model": "gpt-4o"}, min: map[string]float64{"relevance_score": 0.5}},
		{name: "missing query", input: map[string]any{"context": "x"}, errField: "input.query", errMsg: "input.query is required"},
		{name: "model must be a string", input: in("q", "c"), config: map[string]any{"model": 4.0}, errField: "config.model", errMsg: "config.model must be a string, got number"},
	})
}

func TestInstructionAdherence(t *testing.T) {
	in := func(i, r string) map[string]any { return map[string]any{"instructions": i, "response": r} }
	bullets := "- First point about the topic\n- Second relevant consideration\n- Final concluding thought"
	runCases(t, "instruction-adherence", []evalCase{
		{name: "bullets and formal", input: in("Respond in exactly 3 bullet points and use formal language.", bullets), want: Result{"instruction_adherence_score": 1.0}, pass: passes},
		{name: "neither", input: in("Respond in exactly 3 bullet points and use formal language.", "Yeah so basically it's cool, dude!"), want: Result{"instruction_adherence_score": 0.0}, pass: fails},
		{name: "half", input: in("Respond in exactly 3 bullet points and use formal language.", "- It's one\n- It's two\n- It's three"), want: Result{"instruction_adherence_score": 0.5}, pass: passes},
		{name: "word limit", input: in("Answer in at most 5 words.", "Paris is the capital of France."), want: Result{"instruction_adherence_score": 0.0}},
		{name: "lowercase and no commas", input: in("Write in all lowercase letters and do not use any commas.", "the sky is blue and the sea is green"), want: Result{"instruction_adherence_score": 1.0}},
		{name: "JSON in a fence", input: in("Return the answer as JSON.", "```json\n{\"capital\": \"Paris\"}\n```"), want: Result{"instruction_adherence_score": 1.0}},
		{name: "not JSON", input: in("Return the answer as JSON.", "The capital is Paris."), want: Result{"instruction_adherence_score": 0.0}},
		{name: "include and avoid words", input: in(`Include the word "railway" and do not use the word "cheap".`, "The railway is cheap."), want: Result{"instruction_adherence_score": 0.5}},
		{name: "start and end", input: in(`Start your response with "Dear customer" and end it with "Regards".`, "Dear customer, your order shipped. Regards"), want: Result{"instruction_adherence_score": 1.0}},
		{name: "no constraint: relevance", input: in("Explain how photosynthesis works in plants.", "Photosynthesis lets plants turn light, water and carbon dioxide into sugar and oxygen."), min: map[string]float64{"instruction_adherence_score": 0.5}, pass: passes},
		{name: "no constraint: off topic", input: in("Explain how photosynthesis works in plants.", "The football match ended two to one."), max: map[string]float64{"instruction_adherence_score": 0.3}, pass: fails},
		{name: "empty response", input: in("Answer in one word.", ""), want: Result{"instruction_adherence_score": 0.0}},
		{name: "missing response", input: map[string]any{"instructions": "x"}, errField: "input.response", errMsg: "input.response is required"},
	})
}

func TestIntentChange(t *testing.T) {
	in := func(p, c string) map[string]any { return map[string]any{"prompts": p, "completions": c} }
	runCases(t, "intent-change", []evalCase{
		{name: "explicit change", input: in(`["I want to book a hotel", "Actually, I need a flight instead"]`, `["Sure, I can help with hotel booking", "No problem, let me search for flights"]`),
			want: Result{"pass": false, "score": 0, "reason": "~turn 2"}, pass: fails},
		{name: "follow-up", input: in(`["What is the capital of France?", "And what is its population?"]`, `["Paris.", "About 2 million."]`), want: Result{"pass": true, "score": 1}, pass: passes},
		{name: "same subject", input: in(`["Book a hotel in Rome for May", "Make it a hotel near the Colosseum"]`, `["Sure.", "Done."]`), want: Result{"pass": true, "score": 1}},
		{name: "unrelated subject", input: in(`["Book a hotel in Rome for May", "Write a poem about penguins"]`, `["Sure.", "Here it is."]`), want: Result{"pass": false, "score": 0, "reason": "~unrelated subject"}},
		{name: "never mind", input: in(`["Find flights to Oslo", "never mind, cancel that"]`, `["Searching.", "Cancelled."]`), want: Result{"pass": false}},
		{name: "one prompt", input: in(`["Book a hotel"]`, `[]`), want: Result{"pass": true, "score": 1}},
		{name: "objects", input: in(`[{"role": "user", "content": "Book a hotel"}, {"role": "user", "content": "Actually, a flight"}]`, `[]`), want: Result{"pass": false}},
		{name: "prompts not an array", input: in(`{}`, `[]`), errField: "input.prompts"},
		{name: "completions not an array", input: in(`[]`, `nope`), errField: "input.completions"},
	})
}

func TestToneDetection(t *testing.T) {
	text := func(s string) map[string]any { return map[string]any{"text": s} }
	runCases(t, "tone-detection", []evalCase{
		{name: "neutral", input: text("The capital of France is Paris."), want: Result{"tone": "neutral", "score": 1.0}, pass: passes},
		{name: "joy", input: text("I am so happy with this, thank you!"), want: Result{"tone": "joy"}, min: map[string]float64{"score": 0.5}, pass: passes},
		{name: "anger", input: text("This is unacceptable, I am furious about the delay."), want: Result{"tone": "anger"}, min: map[string]float64{"score": 0.5}},
		{name: "sadness", input: text("I feel so sad and lonely since my dog died."), want: Result{"tone": "sadness"}},
		{name: "fear", input: text("I'm terrified and anxious about the surgery tomorrow."), want: Result{"tone": "fear"}},
		{name: "surprise", input: text("Wow, I did not expect that at all?!"), want: Result{"tone": "surprise"}},
		{name: "disgust", input: text("That food was disgusting and gross."), want: Result{"tone": "disgust"}},
		{name: "negated joy is not joy", input: text("I am not happy with this order."), want: Result{"tone": "neutral"}},
		{name: "one emotion word in a long text stays unsure", input: text("The quarterly report lists revenue, costs, staff numbers, office locations, the board members, the audit results and a happy note on a small profit."),
			max: map[string]float64{"score": 0.7}},
		{name: "shouting", input: text("WHY IS THIS STILL BROKEN YOU IDIOTS"), want: Result{"tone": "anger"}},
		{name: "missing text", input: map[string]any{}, errField: "input.text", errMsg: "input.text is required"},
	})
}

func TestTopicAdherence(t *testing.T) {
	in := func(c, topics string) map[string]any {
		return map[string]any{"question": "Tell me about machine learning", "completion": c, "reference_topics": topics}
	}
	ai := "artificial intelligence, data science, algorithms"
	runCases(t, "topic-adherence", []evalCase{
		{name: "on topic", input: in("Machine learning is a subset of AI that enables systems to learn from data.", ai), min: map[string]float64{"adherence_score": 0.8}, pass: passes},
		{name: "off topic", input: in("My favourite pizza has mushrooms and olives. The football match was great.", ai), max: map[string]float64{"adherence_score": 0.2}, pass: fails},
		{name: "digression", input: in("Algorithms learn patterns from data. Anyway, my favourite pizza has mushrooms, olives, peppers, onions and extra cheese on a thin crust.", ai), max: map[string]float64{"adherence_score": 0.6}},
		{name: "no topics", input: in("Algorithms learn from data.", " , "), want: Result{"adherence_score": 0.0}},
		{name: "missing topics", input: map[string]any{"question": "q", "completion": "c"}, errField: "input.reference_topics", errMsg: "input.reference_topics is required"},
	})
}
