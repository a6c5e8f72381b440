package redact

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestTail(t *testing.T) {
	tests := []struct {
		name   string
		stderr string
		args   []string
		want   string
	}{
		{
			name:   "argument values are scrubbed wherever they appear",
			stderr: "posting to https://hooks.example/T0K3N-abc123 failed\nretrying T0K3N-abc123\n",
			args:   []string{"--url", "https://hooks.example/T0K3N-abc123"},
			want:   "posting to [arg 2] failed\nretrying T0K3N-abc123",
		},
		{
			name:   "the value of a --flag=value argument is scrubbed on its own",
			stderr: "error: token s3cr3t-value rejected\n",
			args:   []string{"--token=s3cr3t-value"},
			want:   "error: token [arg 1] rejected",
		},
		{
			name:   "a value alone on a line is scrubbed",
			stderr: "bad key s3cr3t-value\n",
			args:   []string{"--key=s3cr3t-value", "-v"},
			want:   "bad key [arg 1]",
		},
		{
			name:   "longer values first",
			stderr: "abcdef and abc\n",
			args:   []string{"abc", "abcdef"},
			want:   "[arg 2] and [arg 1]",
		},
		{
			name:   "URL credentials withhold the line",
			stderr: "cloning https://alice:hunter2@git.example/repo.git\nfatal: nope\n",
			want:   Withheld + "\nfatal: nope",
		},
		{
			name:   "a token as the URL user withholds the line",
			stderr: "GET https://ghp_abcdefgh@api.example/x\nok\n",
			want:   Withheld + "\nok",
		},
		{
			name:   "auth headers withhold the line",
			stderr: "> Authorization: Bearer abc.def.ghi\n> proxy-authorization: Basic dXNlcjpwYXNz\n> Cookie: session=1\n> X-Api-Key: k\n> Accept: */*\n",
			want:   strings.Repeat(Withheld+"\n", 4) + "> Accept: */*",
		},
		{
			name:   "bearer tokens and key assignments anywhere",
			stderr: "curl -H 'bearer abcdef123456'\nAPI_KEY=xyz\naccess_token: q\nplain line\n",
			want:   strings.Repeat(Withheld+"\n", 3) + "plain line",
		},
		{
			name: "keys inside JSON that is itself inside a string",
			stderr: `body: {\"password\": \"hunter2\"}` + "\n" +
				`{\"token\":\"abc\"}` + "\n" +
				`{\\\"api_key\\\": \"k\"}` + "\n" +
				`{'secret' : 'x'}` + "\n" +
				`{\"authorization\":\"Basic x\"}` + "\n" +
				"done\n",
			want: strings.Repeat(Withheld+"\n", 5) + "done",
		},
		{
			name: "credentials in a URL's query string",
			stderr: "GET https://api.example/v1?key=AIzaSyD-abc\n" +
				"PUT https://acct.blob.example/c/b?sv=2022&se=2026&sig=abc%2Bdef\n" +
				"redirect to https://app.example/cb#state=1&access_token=ya29.x\n" +
				"https://example.com/search?q=hello&page=2\n",
			want: strings.Repeat(Withheld+"\n", 3) + "https://example.com/search?q=hello&page=2",
		},
		{
			name: "signed URLs and OAuth client secrets",
			stderr: "https://bucket.s3.example/o?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2026&X-Amz-Date=1\n" +
				"https://bucket.s3.example/o?X-Amz-Date=1&X-Amz-Signature=0123abcd\n" +
				"POST /oauth/token?grant_type=x&client_secret=s3cr3t\n" +
				"HTTP 403\n",
			want: strings.Repeat(Withheld+"\n", 3) + "HTTP 403",
		},
		{
			name: "cloud credential files and keys named for what they unlock",
			stderr: "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n" +
				"AWS_SESSION_TOKEN=FwoGZXIvYXdzE\n" +
				"\"private_key\": \"-----BEGIN PRIVATE KEY-----\"\n" +
				"credentials: abc\n" +
				"exit status 3\n",
			want: strings.Repeat(Withheld+"\n", 4) + "exit status 3",
		},
		{
			name:   "ordinary words near keys are left alone",
			stderr: "tokens used: 1200\nprimary monkey business\nPWD=/home/me\n",
			want:   "tokens used: 1200\nprimary monkey business\nPWD=/home/me",
		},
		{
			name:   "line and paragraph separators and invisible formatting are escaped",
			stderr: "one\u2028two\u2029three \u2060joined\u061c\n",
			want:   `one\u2028two\u2029three \u2060joined\u061c`,
		},
		{
			name:   "control characters are escaped",
			stderr: "\x1b[31mred\x1b[0m\tand\rbell\a \u202eevil \u0085\n",
			want:   `\x1b[31mred\x1b[0m\x09and\x0dbell\x07 \u202eevil \u0085`,
		},
		{
			name:   "invalid UTF-8 is replaced",
			stderr: "bad \xff byte\n",
			want:   "bad \uFFFD byte",
		},
		{
			name: "empty",
			want: "",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Tail([]byte(tc.stderr), tc.args)
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Fatalf("tail (-want +got):\n%s", d)
			}
		})
	}
}

func TestTailKeepsTheLast240Characters(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 9) + "é\n")
	}
	b.WriteString("the end\n")
	got := Tail([]byte(b.String()), nil)
	if n := utf8.RuneCountInString(got); n != TailChars {
		t.Fatalf("tail is %d characters, want %d", n, TailChars)
	}
	if !strings.HasSuffix(got, "é\nthe end") {
		t.Fatalf("tail does not end with the last lines: %q", got[len(got)-20:])
	}
}

func TestTailScrubsBeforeCutting(t *testing.T) {
	secret := "zz-" + strings.Repeat("s", 300)
	got := Tail([]byte("leading\n"+secret+" failed\n"), []string{secret})
	if strings.Contains(got, "sss") {
		t.Fatalf("part of a long argument survived: %q", got)
	}
	if got != "leading\n[arg 1] failed" {
		t.Fatalf("got %q", got)
	}
}
