module forgectl.dev/resume-snapshot

go 1.26.0

require (
	forgectl.dev/shared v0.0.0
	github.com/google/go-cmp v0.7.0
	golang.org/x/sys v0.50.0
)

replace forgectl.dev/shared => ../shared
