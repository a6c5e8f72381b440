module forgectl.dev/forgectl

go 1.26.0

require (
	forgectl.dev/shared v0.0.0
	github.com/google/go-cmp v0.7.0
	github.com/klauspost/compress v1.20.4
	github.com/ktr0731/go-fuzzyfinder v0.9.0
	github.com/peterbourgon/ff/v3 v3.4.0
	golang.org/x/sys v0.50.0
	golang.org/x/term v0.37.0
	golang.org/x/text v0.31.0
)

require (
	github.com/BurntSushi/toml v1.6.0 // indirect
	github.com/gdamore/encoding v1.0.1 // indirect
	github.com/gdamore/tcell/v2 v2.13.10 // indirect
	github.com/ktr0731/go-ansisgr v0.1.0 // indirect
	github.com/lucasb-eyer/go-colorful v1.3.0 // indirect
	github.com/mattn/go-runewidth v0.0.16 // indirect
	github.com/nsf/termbox-go v1.1.1 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
)

replace forgectl.dev/shared => ../shared
