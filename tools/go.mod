module forgectl.dev/tools

go 1.26.0

require (
	forgectl.dev/shared v0.0.0
	github.com/google/go-cmp v0.7.0
	golang.org/x/term v0.37.0
)

require (
	github.com/klauspost/compress v1.20.4 // indirect
	golang.org/x/sys v0.50.0 // indirect
)

replace forgectl.dev/shared => ../shared
