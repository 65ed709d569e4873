package evaluators

import "context"

var placeholderRegex = Definition{
	Slug:        "placeholder-regex",
	Category:    CategoryFormatting,
	Description: "Validates the text against a regex given in the input (Python re syntax).",
	Inputs: []Field{
		textInput("placeholder_value", "Pattern", "The regex pattern, in Python re syntax."),
		textInput("text", "Text", "The text to search."),
		// Traceloop's Node SDK 0.27 lists placeholder_name as required;
		// its Python SDK does not send it. Accepted and not used: the
		// pattern is placeholder_value.
		{Name: "placeholder_name", Type: TypeString, Label: "Placeholder name", Description: "The name of the placeholder the pattern stands for; accepted for compatibility with Traceloop's SDKs and not used (the pattern is placeholder_value)."},
	},
	Config:  regexFlags(),
	Outputs: []Field{boolOutput("is_valid_regex", "Is valid", "Whether (the pattern is found in the text) == should_match.")},
	Side:    SideOutput,
	Score:   "is_valid_regex",
	PassDoc: "is_valid_regex == true",
	run:     runPlaceholderRegex,
	explain: explainRegex("input.placeholder_value"),
	pass:    passWhenTrue("is_valid_regex"),
}

func runPlaceholderRegex(_ context.Context, req Request) (Result, error) {
	return matchRegex(req, "input.placeholder_value", req.Text("placeholder_value"))
}
