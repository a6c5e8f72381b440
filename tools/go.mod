module forgectl.dev/tools

go 1.26

require forgectl.dev/shared v0.0.0

replace forgectl.dev/shared => ../shared
