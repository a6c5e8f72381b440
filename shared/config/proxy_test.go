package config

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestProxyEnv(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"no proxy table", "", nil},
		{"no launch_profile", "[proxy.profiles.corp]\nhttp_proxy = \"http://p\"\n", nil},
		{"empty launch_profile", "[proxy]\nlaunch_profile = \"\"\n", nil},
		{
			name: "omitted keys are injected empty, both cases",
			src: `[proxy]
launch_profile = "corp"
[proxy.profiles.corp]
http_proxy = "http://proxy.corp:3128"
https_proxy = "http://proxy.corp:3129"
no_proxy = "localhost,127.0.0.1"
`,
			want: []string{
				"http_proxy=http://proxy.corp:3128", "HTTP_PROXY=http://proxy.corp:3128",
				"https_proxy=http://proxy.corp:3129", "HTTPS_PROXY=http://proxy.corp:3129",
				"no_proxy=localhost,127.0.0.1", "NO_PROXY=localhost,127.0.0.1",
				"all_proxy=", "ALL_PROXY=",
			},
		},
		{
			name: "only all_proxy",
			src:  "[proxy]\nlaunch_profile = \"socks\"\n[proxy.profiles.socks]\nall_proxy = \"socks5://127.0.0.1:1080\"\n",
			want: []string{
				"http_proxy=", "HTTP_PROXY=", "https_proxy=", "HTTPS_PROXY=", "no_proxy=", "NO_PROXY=",
				"all_proxy=socks5://127.0.0.1:1080", "ALL_PROXY=socks5://127.0.0.1:1080",
			},
		},
		{
			name: "the named profile, not another",
			src:  "[proxy]\nlaunch_profile = \"b\"\n[proxy.profiles.a]\nhttp_proxy = \"http://a\"\n[proxy.profiles.b]\nno_proxy = \"*\"\n",
			want: []string{
				"http_proxy=", "HTTP_PROXY=", "https_proxy=", "HTTPS_PROXY=", "no_proxy=*", "NO_PROXY=*", "all_proxy=", "ALL_PROXY=",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := mustParse(t, tt.src)
			got, err := cfg.ProxyEnv()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ProxyEnv (-want +got):\n%s", diff)
			}
		})
	}
}

func TestProxyEnvRefusals(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want *ProxyError
		msg  string
	}{
		{
			name: "undefined, no profiles",
			src:  "[proxy]\nlaunch_profile = \"corp\"\n",
			want: &ProxyError{File: "/c/config.toml", Profile: "corp", Undefined: true,
				Hint: "define [proxy.profiles.corp], or remove launch_profile from [proxy]"},
			msg: `[proxy] launch_profile "corp" is not defined in /c/config.toml`,
		},
		{
			name: "undefined, others defined",
			src:  "[proxy]\nlaunch_profile = \"Corp\"\n[proxy.profiles.corp]\nhttp_proxy = \"x\"\n[proxy.profiles.home]\nhttp_proxy = \"y\"\n",
			want: &ProxyError{File: "/c/config.toml", Profile: "Corp", Undefined: true,
				Hint: "define [proxy.profiles.Corp], or remove launch_profile from [proxy]; defined profiles: corp, home"},
			msg: `[proxy] launch_profile "Corp" is not defined in /c/config.toml`,
		},
		{
			name: "empty table",
			src:  "[proxy]\nlaunch_profile = \"corp\"\n[proxy.profiles.corp]\n",
			want: &ProxyError{File: "/c/config.toml", Profile: "corp",
				Hint: "set http_proxy, https_proxy, no_proxy or all_proxy in [proxy.profiles.corp], or remove launch_profile from [proxy]"},
			msg: `[proxy] launch_profile "corp" sets no values in /c/config.toml`,
		},
		{
			name: "only empty strings and unknown keys",
			src:  "[proxy]\nlaunch_profile = \"corp\"\n[proxy.profiles.corp]\nhttp_proxy = \"\"\nftp_proxy = \"x\"\n",
			want: &ProxyError{File: "/c/config.toml", Profile: "corp",
				Hint: "set http_proxy, https_proxy, no_proxy or all_proxy in [proxy.profiles.corp], or remove launch_profile from [proxy]"},
			msg: `[proxy] launch_profile "corp" sets no values in /c/config.toml`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse("/c/config.toml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			env, err := cfg.ProxyEnv()
			if env != nil {
				t.Errorf("env = %q alongside a refusal", env)
			}
			var pe *ProxyError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ProxyError", err)
			}
			if diff := cmp.Diff(tt.want, pe); diff != "" {
				t.Errorf("ProxyError (-want +got):\n%s", diff)
			}
			if err.Error() != tt.msg {
				t.Errorf("message %q, want %q", err.Error(), tt.msg)
			}
		})
	}
}

func TestProxyEnvWithoutFile(t *testing.T) {
	cfg := &Config{Proxy: Proxy{LaunchProfile: "x"}}
	_, err := cfg.ProxyEnv()
	if err == nil || err.Error() != `[proxy] launch_profile "x" is not defined in the config` {
		t.Errorf("err = %v", err)
	}
	var nilCfg *Config
	if env, err := nilCfg.ProxyEnv(); env != nil || err != nil {
		t.Errorf("nil config: %q, %v", env, err)
	}
}
