//go:build !race

package picker

// raceBuild says the tests run with -race, so the harness is built with it.
const raceBuild = false
