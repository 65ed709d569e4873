package console

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Charts are SVG drawn on the server: the template places rects, lines and
// labels at the coordinates computed here (no script, no inline style).

// Geometry of a chart's viewBox.
const (
	chartW      = 640
	chartH      = 200
	chartLeft   = 44 // room for the count axis
	chartRight  = 40 // room for the rate axis
	chartTop    = 10
	chartBottom = 26 // room for the time axis
)

// chartSeg is one coloured part of a bar, linking to the spans it counts.
type chartSeg struct {
	Y, H  float64
	Class string
	Link  string
	Title string
}

// chartBar is one stacked bar.
type chartBar struct {
	X, W float64
	Segs []chartSeg
}

// chartLabel is an axis label or grid line position.
type chartLabel struct {
	X, Y float64
	Text string
}

// barChart is a stacked bar chart with an optional rate line (0..100 %).
type barChart struct {
	W, H                       int
	PlotX, PlotY, PlotW, PlotH float64
	Bars                       []chartBar
	YTicks, XTicks, RateTicks  []chartLabel
	Rate                       string // polyline points
	RateDots                   []chartLabel
}

// stack is the input of one bar: its segments' counts (bottom first) with
// their class, link and title, and the rate to plot (-1 for none).
type stack struct {
	Counts []int64
	Class  []string
	Links  []string
	Titles []string
	Rate   float64
}

// newBarChart lays out bars for buckets starting at from, width bucket
// (ms); label formats the time axis.
func newBarChart(from, bucket int64, stacks []stack, withRate bool) barChart {
	c := barChart{W: chartW, H: chartH, PlotX: chartLeft, PlotY: chartTop,
		PlotW: chartW - chartLeft - chartRight, PlotH: chartH - chartTop - chartBottom}
	var maxCount int64 = 1
	for _, s := range stacks {
		var total int64
		for _, n := range s.Counts {
			total += n
		}
		maxCount = max(maxCount, total)
	}
	top := niceCeil(maxCount)
	n := max(len(stacks), 1)
	slot := c.PlotW / float64(n)
	barW := max(slot*0.72, 1)
	var pts []string
	for i, s := range stacks {
		x := c.PlotX + float64(i)*slot + (slot-barW)/2
		bar := chartBar{X: round2(x), W: round2(barW)}
		y := c.PlotY + c.PlotH
		for j, cnt := range s.Counts {
			if cnt == 0 {
				continue
			}
			h := float64(cnt) / float64(top) * c.PlotH
			y -= h
			bar.Segs = append(bar.Segs, chartSeg{Y: round2(y), H: round2(max(h, 0.5)), Class: s.Class[j], Link: s.Links[j], Title: s.Titles[j]})
		}
		c.Bars = append(c.Bars, bar)
		if withRate && s.Rate >= 0 {
			rx, ry := round2(x+barW/2), round2(c.PlotY+c.PlotH*(1-s.Rate))
			pts = append(pts, strconv.FormatFloat(rx, 'f', -1, 64)+","+strconv.FormatFloat(ry, 'f', -1, 64))
			c.RateDots = append(c.RateDots, chartLabel{X: rx, Y: ry, Text: strconv.FormatFloat(s.Rate*100, 'f', 1, 64) + "% pass"})
		}
	}
	c.Rate = strings.Join(pts, " ")
	for i := 0; i <= 4; i++ {
		v := top * int64(i) / 4
		c.YTicks = append(c.YTicks, chartLabel{X: c.PlotX - 6, Y: round2(c.PlotY + c.PlotH*(1-float64(i)/4)), Text: strconv.FormatInt(v, 10)})
		if withRate {
			c.RateTicks = append(c.RateTicks, chartLabel{X: c.PlotX + c.PlotW + 6, Y: round2(c.PlotY + c.PlotH*(1-float64(i)/4)), Text: strconv.Itoa(i*25) + "%"})
		}
	}
	every := max(1, (n+5)/6) // at most ~6 time labels
	for i := 0; i < len(stacks); i += every {
		t := from + int64(i)*bucket
		c.XTicks = append(c.XTicks, chartLabel{X: round2(c.PlotX + (float64(i)+0.5)*slot), Y: float64(chartH - 8), Text: timeLabel(t, bucket)})
	}
	return c
}

// histogram is a histogram chart of counts per bin.
// newEdgeHistogram is newHistogram over bins of unequal widths: edges
// holds len(bins)+1 bounds (the last may be +Inf), ticked where they are.
func newEdgeHistogram(edges []float64, bins []int64, title func(i int) string) barChart {
	c := newHistogram(0, 1, bins, title)
	c.XTicks = nil
	slot := c.PlotW / float64(max(len(bins), 1))
	for i := 0; i <= len(bins); i += max(1, len(bins)/5) {
		text := "∞"
		if !math.IsInf(edges[i], 1) {
			text = formatScore(edges[i])
		}
		c.XTicks = append(c.XTicks, chartLabel{X: round2(c.PlotX + float64(i)*slot), Y: float64(chartH - 8), Text: text})
	}
	return c
}

func newHistogram(lo, hi float64, bins []int64, title func(i int) string) barChart {
	stacks := make([]stack, len(bins))
	for i, n := range bins {
		stacks[i] = stack{Counts: []int64{n}, Class: []string{"bin"}, Links: []string{""}, Titles: []string{title(i)}, Rate: -1}
	}
	c := newBarChart(0, 0, stacks, false)
	c.XTicks = nil
	width := (hi - lo) / float64(max(len(bins), 1))
	slot := c.PlotW / float64(max(len(bins), 1))
	for i := 0; i <= len(bins); i += max(1, len(bins)/5) {
		c.XTicks = append(c.XTicks, chartLabel{X: round2(c.PlotX + float64(i)*slot), Y: float64(chartH - 8), Text: formatScore(lo + float64(i)*width)})
	}
	return c
}

// niceCeil returns the top of a count axis for a largest count n: four
// ticks of a step of 1, 2, 3 or 5 times a power of ten.
func niceCeil(n int64) int64 {
	for step := int64(1); ; step *= 10 {
		for _, m := range []int64{1, 2, 3, 5} {
			if top := 4 * m * step; top >= n {
				return top
			}
		}
	}
}

// timeLabel formats a bucket start for the axis: the time of day for
// buckets under a day, the date otherwise (UTC).
func timeLabel(ms, bucket int64) string {
	t := time.UnixMilli(ms).UTC()
	if bucket >= 24*3600*1000 {
		return t.Format("Jan 2")
	}
	if bucket >= 3600*1000 {
		return t.Format("Jan 2 15:04")
	}
	return t.Format("15:04")
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }

// lineSeries is one line of a line chart: its points and a dot per point
// with its value for the hover.
type lineSeries struct {
	Class, Label string
	Points       string // polyline points
	Dots         []chartLabel
}

// lineChart is a chart of lines over time buckets, its value axis from 0
// to a round top.
type lineChart struct {
	W, H                       int
	PlotX, PlotY, PlotW, PlotH float64
	YTicks, XTicks             []chartLabel
	Series                     []lineSeries
}

// newLineChart lays out series (one value per bucket, NaN where there is
// none) over buckets starting at from, width bucket (ms); format renders a
// value on the axis and in the hover.
func newLineChart(from, bucket int64, classes, labels []string, series [][]float64, format func(float64) string) lineChart {
	c := lineChart{W: chartW, H: chartH, PlotX: chartLeft, PlotY: chartTop,
		PlotW: chartW - chartLeft - chartRight, PlotH: chartH - chartTop - chartBottom}
	top, n := 0.0, 1
	for _, s := range series {
		n = max(n, len(s))
		for _, v := range s {
			if !math.IsNaN(v) {
				top = max(top, v)
			}
		}
	}
	top = niceFloatCeil(top)
	slot := c.PlotW / float64(n)
	for k, s := range series {
		ls := lineSeries{Class: classes[k], Label: labels[k]}
		var pts []string
		for i, v := range s {
			if math.IsNaN(v) {
				continue
			}
			x, y := round2(c.PlotX+(float64(i)+0.5)*slot), round2(c.PlotY+c.PlotH*(1-v/top))
			pts = append(pts, strconv.FormatFloat(x, 'f', -1, 64)+","+strconv.FormatFloat(y, 'f', -1, 64))
			ls.Dots = append(ls.Dots, chartLabel{X: x, Y: y, Text: timeLabel(from+int64(i)*bucket, bucket) + ": " + labels[k] + " " + format(v)})
		}
		ls.Points = strings.Join(pts, " ")
		c.Series = append(c.Series, ls)
	}
	for i := 0; i <= 4; i++ {
		c.YTicks = append(c.YTicks, chartLabel{X: c.PlotX - 6, Y: round2(c.PlotY + c.PlotH*(1-float64(i)/4)), Text: format(top * float64(i) / 4)})
	}
	every := max(1, (n+5)/6)
	for i := 0; i < n; i += every {
		c.XTicks = append(c.XTicks, chartLabel{X: round2(c.PlotX + (float64(i)+0.5)*slot), Y: float64(chartH - 8), Text: timeLabel(from+int64(i)*bucket, bucket)})
	}
	return c
}

// niceFloatCeil is the top of a value axis for a largest value v: four
// ticks of a step of 1, 2, 2.5 or 5 times a power of ten.
func niceFloatCeil(v float64) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v/4)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if 4*m*p >= v {
			return 4 * m * p
		}
	}
	return 40 * p
}
