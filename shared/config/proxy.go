package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ProxyError refuses a [proxy] launch_profile that cannot be honoured: it
// names a profile the file does not define, or one that sets no values.
// Launch and resume exit 2 on it, before doing anything else.
type ProxyError struct {
	File    string // the config file; empty for a config not read from one
	Profile string // the launch_profile value
	// Undefined is true when no such profile exists, false when it exists
	// but sets no values.
	Undefined bool
	Hint      string
}

func (e *ProxyError) Error() string {
	in := "the config"
	if e.File != "" {
		in = e.File
	}
	if e.Undefined {
		return fmt.Sprintf("[proxy] launch_profile %q is not defined in %s", e.Profile, in)
	}
	return fmt.Sprintf("[proxy] launch_profile %q sets no values in %s", e.Profile, in)
}

// vars pairs each lower-case variable name with its value, in the order
// ProxyEnv returns them.
func (p ProxyProfile) vars() [4][2]string {
	return [4][2]string{
		{"http_proxy", p.HTTPProxy},
		{"https_proxy", p.HTTPSProxy},
		{"no_proxy", p.NoProxy},
		{"all_proxy", p.AllProxy},
	}
}

// Empty reports whether the profile sets none of its variables, which makes
// it unusable as a launch_profile.
func (p ProxyProfile) Empty() bool { return p == ProxyProfile{} }

// ProxyEnv returns the variables of the [proxy] launch_profile: every proxy
// variable in lower and upper case, those the profile leaves out set to ""
// so that the caller's own values cannot leak through. It returns nil, nil
// when launch_profile is unset, and a *ProxyError when it cannot be honoured.
func (c *Config) ProxyEnv() ([]string, error) {
	if c == nil || c.Proxy.LaunchProfile == "" {
		return nil, nil
	}
	name := c.Proxy.LaunchProfile
	p, ok := c.Proxy.Profiles[name]
	if !ok {
		hint := fmt.Sprintf("define [proxy.profiles.%s], or remove launch_profile from [proxy]", name)
		if defined := slices.Sorted(maps.Keys(c.Proxy.Profiles)); len(defined) > 0 {
			hint += "; defined profiles: " + strings.Join(defined, ", ")
		}
		return nil, &ProxyError{File: c.Path, Profile: name, Undefined: true, Hint: hint}
	}
	if p.Empty() {
		return nil, &ProxyError{File: c.Path, Profile: name,
			Hint: fmt.Sprintf("set http_proxy, https_proxy, no_proxy or all_proxy in [proxy.profiles.%s], or remove launch_profile from [proxy]", name)}
	}
	env := make([]string, 0, 8)
	for _, kv := range p.vars() {
		env = append(env, kv[0]+"="+kv[1], strings.ToUpper(kv[0])+"="+kv[1])
	}
	return env, nil
}
