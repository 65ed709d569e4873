package console

import (
	"strconv"

	"github.com/evalcol/evalcol/internal/pricing"
	"github.com/evalcol/evalcol/internal/warehouse"
)

// usageCost prices usage with the console's table: the cost of the models
// it knows, ok false when it knows none of them (no cost shown rather
// than a wrong one), partial when some tokens are of a model it does not
// know.
func (c *Console) usageCost(usage []warehouse.ModelUsage) (cost float64, ok, partial bool) {
	for _, u := range usage {
		v, known := c.opts.Prices.Cost(u.Model, u.InputTokens, u.OutputTokens)
		if !known {
			partial = true
			continue
		}
		cost, ok = cost+v, true
	}
	return cost, ok, partial && ok
}

// costText renders a cost for a page: "" when unknown, a leading "≥" when
// some tokens could not be priced.
func (c *Console) costText(usage []warehouse.ModelUsage) string {
	cost, ok, partial := c.usageCost(usage)
	if !ok {
		return ""
	}
	s := formatCost(cost)
	if partial {
		s = "≥ " + s
	}
	return s
}

// formatCost renders USD with the precision small amounts need: $12.35,
// $0.0421, $0.000035.
func formatCost(usd float64) string {
	switch {
	case usd == 0:
		return "$0"
	case usd >= 100:
		return "$" + strconv.FormatFloat(usd, 'f', 0, 64)
	case usd >= 1:
		return "$" + strconv.FormatFloat(usd, 'f', 2, 64)
	}
	return "$" + strconv.FormatFloat(usd, 'g', 3, 64)
}

// defaultPrices is the shipped table, for a console built without one.
func defaultPrices() (*pricing.Table, error) { return pricing.Default() }
