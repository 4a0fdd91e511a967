module github.com/duelogic/duelogic/examples/web

go 1.25.0

require (
	github.com/chromedp/chromedp v0.23.0
	github.com/duelogic/duelogic v0.0.0
	github.com/google/go-cmp v0.7.0
)

require (
	github.com/chromedp/cdproto v0.159.0 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	golang.org/x/sync v0.22.0 // indirect
)

replace github.com/duelogic/duelogic => ../..
