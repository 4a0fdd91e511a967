package eval

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// The chart's geometry, in SVG user units.
const (
	chartW, chartH           = 860, 470
	plotL, plotR             = 80, 600 // the plot's left and right edges
	plotT, plotB             = 80, 400 // its top and bottom edges
	legendX                  = 625
	chartFont                = "font-family=\"Helvetica, Arial, sans-serif\""
	chartGrid, chartAxisText = "#d9d9d9", "#333333"
)

// armColor gives each arm a colour of ColorBrewer's Dark2, which stays
// apart for most kinds of colour blindness; an arm is also told by its
// label.
var armColor = map[string]string{
	ArmSingle:          "#1b9e77",
	ArmSelfConsistency: "#d95f02",
	ArmDebate:          "#7570b3",
	ArmVote:            "#e7298a",
}

// niceStep is a tick step of 1, 2 or 5 times a power of ten near span/n.
func niceStep(span float64, n int) float64 {
	if span <= 0 {
		return 1
	}
	raw := span / float64(n)
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

// Chart returns chart.svg: each arm's accuracy (a dot, with its 95% Wilson
// interval as a bar) against its mean tokens per item, and a legend with
// the numbers. A plain SVG 1.1 document, no script, no external resource.
func (rep *Report) Chart() []byte {
	var b bytes.Buffer
	esc := func(s string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(s))
		return e.String()
	}
	maxTok := 0.0
	for _, a := range rep.Arms {
		maxTok = max(maxTok, a.TokensPerItem)
	}
	step := niceStep(maxTok*1.1, 5)
	xMax := step * math.Ceil(maxTok*1.1/step)
	if xMax <= 0 {
		xMax = 1
	}
	x := func(t float64) float64 { return plotL + t/xMax*(plotR-plotL) }
	y := func(acc float64) float64 { return plotB - acc*(plotB-plotT) }

	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" role="img" aria-labelledby="title">`+"\n",
		chartW, chartH, chartW, chartH)
	title := "Accuracy against mean tokens per item"
	fmt.Fprintf(&b, "<title id=\"title\">%s</title>\n", esc(title))
	fmt.Fprintf(&b, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", chartW, chartH)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"28\" %s font-size=\"17\" fill=\"%s\">%s</text>\n", plotL, chartFont, chartAxisText, esc(title))
	sub := fmt.Sprintf("%d items; bars: 95%% Wilson intervals", rep.Items)
	if rep.Model != "" {
		sub = "model " + rep.Model + "; " + sub
	}
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"48\" %s font-size=\"12\" fill=\"#666666\">%s</text>\n", plotL, chartFont, esc(sub))
	if rep.Stub {
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"66\" %s font-size=\"12\" font-weight=\"bold\" fill=\"#b2182b\">%s</text>\n", plotL, chartFont,
			esc("Offline stub: these numbers test the harness, they are not findings."))
	}

	// Grid and axes.
	for i := 0; i <= 5; i++ {
		acc := float64(i) / 5
		fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1\"/>\n", plotL, y(acc), plotR, y(acc), chartGrid)
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%.1f\" %s font-size=\"12\" text-anchor=\"end\" fill=\"%s\">%.1f</text>\n", plotL-8, y(acc)+4, chartFont, chartAxisText, acc)
	}
	for t := 0.0; t <= xMax+step/2; t += step {
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n", x(t), plotT, x(t), plotB, chartGrid)
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%d\" %s font-size=\"12\" text-anchor=\"middle\" fill=\"%s\">%s</text>\n", x(t), plotB+18, chartFont, chartAxisText, tokensLabel(t))
	}
	fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", plotL, plotB, plotR, plotB, chartAxisText)
	fmt.Fprintf(&b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", plotL, plotT, plotL, plotB, chartAxisText)
	fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" %s font-size=\"13\" text-anchor=\"middle\" fill=\"%s\">mean tokens per item</text>\n", (plotL+plotR)/2, plotB+44, chartFont, chartAxisText)
	fmt.Fprintf(&b, "<text transform=\"translate(%d %d) rotate(-90)\" %s font-size=\"13\" text-anchor=\"middle\" fill=\"%s\">accuracy</text>\n", 28, (plotT+plotB)/2, chartFont, chartAxisText)

	// The arms: interval bar with caps, dot, short label; the legend.
	for i, a := range rep.Arms {
		color := armColor[a.Name]
		if color == "" {
			color = "#000000"
		}
		ly := plotT + 10 + i*58
		fmt.Fprintf(&b, "<circle cx=\"%d\" cy=\"%d\" r=\"5\" fill=\"%s\"/>\n", legendX+5, ly, color)
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" %s font-size=\"13\" font-weight=\"bold\" fill=\"%s\">%s</text>\n", legendX+16, ly+4, chartFont, color, esc(armLabel(a)))
		if a.N == 0 {
			fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" %s font-size=\"12\" fill=\"%s\">no items answered</text>\n", legendX+16, ly+21, chartFont, chartAxisText)
			continue
		}
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" %s font-size=\"12\" fill=\"%s\">%.3f [%.3f, %.3f], n = %d</text>\n",
			legendX+16, ly+21, chartFont, chartAxisText, a.Accuracy, a.CI[0], a.CI[1], a.N)
		fmt.Fprintf(&b, "<text x=\"%d\" y=\"%d\" %s font-size=\"12\" fill=\"%s\">%.0f tokens per item</text>\n",
			legendX+16, ly+37, chartFont, chartAxisText, a.TokensPerItem)

		cx := x(a.TokensPerItem)
		fmt.Fprintf(&b, "<g stroke=\"%s\" stroke-width=\"2\">", color)
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cx, y(a.CI[0]), cx, y(a.CI[1]))
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cx-6, y(a.CI[0]), cx+6, y(a.CI[0]))
		fmt.Fprintf(&b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", cx-6, y(a.CI[1]), cx+6, y(a.CI[1]))
		b.WriteString("</g>\n")
		fmt.Fprintf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"1.5\"><title>%s</title></circle>\n",
			cx, y(a.Accuracy), color, esc(fmt.Sprintf("%s: accuracy %.3f [%.3f, %.3f], %.0f tokens per item", a.Name, a.Accuracy, a.CI[0], a.CI[1], a.TokensPerItem)))
		lx, anchor := cx+10, "start"
		if cx > plotR-110 { // near the legend: label on the left
			lx, anchor = cx-10, "end"
		}
		fmt.Fprintf(&b, "<text x=\"%.1f\" y=\"%.1f\" %s font-size=\"12\" text-anchor=\"%s\" fill=\"%s\">%s</text>\n",
			lx, y(a.Accuracy)-8+float64(i%2)*20, chartFont, anchor, color, esc(a.Name))
	}
	b.WriteString("</svg>\n")
	return b.Bytes()
}

// tokensLabel writes a tick's token count: 1500 as "1.5k".
func tokensLabel(t float64) string {
	switch {
	case t >= 1000:
		s := fmt.Sprintf("%.1f", t/1000)
		return strings.TrimSuffix(s, ".0") + "k"
	default:
		return fmt.Sprintf("%.0f", t)
	}
}
