package evaluators

import "context"

var regexValidator = Definition{
	Slug:        "regex-validator",
	Category:    CategoryFormatting,
	Description: "Validates the text against the regex in config (Python re syntax).",
	Inputs:      []Field{textInput("text", "Text", "The text to search.")},
	Config: append([]Field{
		{Name: "regex", Type: TypeString, Label: "Pattern", Description: "The regex pattern, in Python re syntax. Required: a request without it is a 400."},
	}, regexFlags()...),
	Outputs: []Field{boolOutput("is_valid_regex", "Is valid", "Whether (the pattern is found in the text) == should_match.")},
	Side:    SideOutput,
	Score:   "is_valid_regex",
	PassDoc: "is_valid_regex == true",
	run:     runRegexValidator,
	pass:    passWhenTrue("is_valid_regex"),
}

func runRegexValidator(ctx context.Context, req Request) (Result, error) {
	return nil, errNotImplemented
}
