package evaluators

import "context"

var conversationQuality = Definition{
	Slug:        "conversation-quality",
	Category:    CategoryQuality,
	Description: "Rates a conversation on tone, clarity, flow, responsiveness and transparency.",
	Inputs: []Field{
		{Name: "prompts", Type: TypeString, Required: true, JSONArray: true, Label: "Prompts", Description: "The user turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
		{Name: "completions", Type: TypeString, Required: true, JSONArray: true, Label: "Completions", Description: "The assistant turns: a JSON array (of strings or of {role, content} objects) serialized into a string."},
	},
	Outputs: []Field{scoreOutput("conversation_quality_score", "Conversation quality score", "0 (poor) to 1 (excellent).")},
	Side:    SideBoth,
	Score:   "conversation_quality_score",
	PassDoc: "conversation_quality_score >= 0.5",
	run:     runConversationQuality,
	pass:    passWhenAtLeastHalf("conversation_quality_score"),
}

func runConversationQuality(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
