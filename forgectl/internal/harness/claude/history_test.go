package claude

import "testing"

func TestHistoryLine(t *testing.T) {
	for _, tc := range []struct {
		line    string
		id      string
		ts      int64
		display string
		ok      bool
	}{
		{`{"display":"please say hello","pastedContents":{},"timestamp":1795970465615,"project":"/p","sessionId":"s1"}`, "s1", 1795970465615, "please say hello", true},
		{`{"display":"quote \"sessionId\":\"fake\" and é","pastedContents":{"1":{"id":1,"type":"text","content":"\"timestamp\":1"}},"timestamp":5,"project":"/p","sessionId":"s2"}`, "s2", 5, `quote "sessionId":"fake" and é`, true},
		{`{"display":"old line","timestamp":5,"project":"/p"}`, "", 0, "", false},
		{`{"display":"cut","timestamp":5,"sessionId":"s3"`, "", 0, "", false},
		{`{"display":"no time","sessionId":"s4"}`, "", 0, "", false},
	} {
		id, ts, display, ok := historyLine([]byte(tc.line))
		if id != tc.id || ts != tc.ts || display != tc.display || ok != tc.ok {
			t.Errorf("%s:\n got %q %d %q %v", tc.line, id, ts, display, ok)
		}
	}
}
