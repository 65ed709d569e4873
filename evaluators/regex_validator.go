package evaluators

import (
	"context"
	"errors"

	"github.com/evalcol/evalcol/evaluators/internal/pyregex"
)

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
	explain: explainRegex("config.regex"),
	pass:    passWhenTrue("is_valid_regex"),
}

func runRegexValidator(_ context.Context, req Request) (Result, error) {
	if !req.Has("regex") {
		return nil, invalidf("config.regex", "config.regex is required")
	}
	return matchRegex(req, "config.regex", req.String("regex"))
}

// compileRegex compiles pattern with the request's regex flags (through
// regexCache).
func compileRegex(req Request, pattern string) (*pyregex.Regexp, error) {
	return regexCache.Compile(pattern, pyregex.Flags{
		IgnoreCase: !req.Bool("case_sensitive"),
		DotAll:     req.Bool("dot_include_nl"),
		MultiLine:  req.Bool("multi_line"),
	})
}

// regexCache holds the compiled patterns of both regex evaluators: the
// processor sends the same pattern with every span. It is created once and
// synchronises its own state.
var regexCache = pyregex.NewCache(pyregex.DefaultCacheSize, pyregex.DefaultTimeout)

// matchRegex searches the input text for pattern (taken from field) with
// the request's regex flags and returns is_valid_regex = (found ==
// should_match). A pattern that does not compile or a search that times
// out is invalid input.
func matchRegex(req Request, field, pattern string) (Result, error) {
	re, err := compileRegex(req, pattern)
	if err != nil {
		return nil, &Error{Kind: KindInvalidInput, Field: field, Msg: field + " is not a valid regex", Err: err}
	}
	found, err := re.Search(req.Text("text"))
	if err != nil {
		if errors.Is(err, pyregex.ErrTimeout) {
			return nil, invalidf(field, "%s: regex timed out after %v (the pattern backtracks too much on this text)", field, re.Timeout())
		}
		return nil, &Error{Kind: KindInternal, Msg: "regex search failed", Err: err}
	}
	return Result{"is_valid_regex": found == req.Bool("should_match")}, nil
}
