module forgectl.dev/shared

go 1.26.0

require golang.org/x/sys v0.50.0

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/google/go-cmp v0.7.0
)

require github.com/peterbourgon/ff/v3 v3.4.0
