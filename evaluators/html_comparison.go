package evaluators

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/evalcol/evalcol/evaluators/internal/htmlsim"
)

var htmlComparison = Definition{
	Slug:        "html-comparison",
	Category:    CategoryFormatting,
	Description: "Scores the structural and content similarity of two HTML documents.",
	Inputs: []Field{
		textInput("html1", "First HTML", "The first document."),
		textInput("html2", "Second HTML", "The second document."),
	},
	Outputs: []Field{scoreOutput("similarity_score", "Similarity score", "0 (disjoint) to 1 (same structure, attributes and text).")},
	Side:    SideOutput,
	Score:   "similarity_score",
	PassDoc: "similarity_score >= 0.5",
	run:     runHTMLComparison,
	pass:    passWhenAtLeastHalf("similarity_score"),
}

// runHTMLComparison scores the two documents with htmlsim: a weighted mean
// of tag-tree (pq-gram), attribute and visible-text similarity.
func runHTMLComparison(_ context.Context, req Request) (Result, error) {
	sim, err := htmlsim.Compare(req.Text("html1"), req.Text("html2"))
	if err != nil {
		var pe *htmlsim.ParseError
		if !errors.As(err, &pe) {
			return nil, &Error{Kind: KindInternal, Msg: "html comparison failed", Err: err}
		}
		field := "input.html" + strconv.Itoa(pe.Document)
		if strings.Contains(pe.Err.Error(), "exceeds 512") {
			return nil, invalidf(field, "%s: elements are nested deeper than %d levels, the most the HTML parser accepts", field, htmlsim.MaxDepth)
		}
		return nil, invalidf(field, "%s cannot be parsed as HTML: %v", field, pe.Err)
	}
	return Result{"similarity_score": sim.Score}, nil
}
