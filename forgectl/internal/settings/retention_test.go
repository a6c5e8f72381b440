package settings

import "testing"

func TestReadRetention(t *testing.T) {
	for _, tc := range []struct {
		doc            string
		present, valid bool
		days           float64
		err            bool
	}{
		{``, false, false, 0, false},
		{" \n", false, false, 0, false},
		{`{}`, false, false, 0, false},
		{`{"cleanupPeriodDays": 90}`, true, true, 90, false},
		{`{"cleanupPeriodDays": 90.0}`, true, true, 90, false},
		{`{"cleanupPeriodDays": 1e2}`, true, true, 100, false},
		{`{"cleanupPeriodDays": 7, "cleanupPeriodDays": 3650}`, true, true, 3650, false},
		{`{"CleanupPeriodDays": 7}`, false, false, 0, false},
		{`{"cleanupPeriodDays": 0}`, true, false, 0, false},
		{`{"cleanupPeriodDays": -5}`, true, false, 0, false},
		{`{"cleanupPeriodDays": 1.5}`, true, false, 0, false},
		{`{"cleanupPeriodDays": "30"}`, true, false, 0, false},
		{`{"cleanupPeriodDays": null}`, true, false, 0, false},
		{`{"cleanupPeriodDays": 1e999}`, true, false, 0, false},
		{"\ufeff{\"cleanupPeriodDays\": 5}", true, true, 5, false},
		{`{"cleanupPeriodDays": 5,}`, false, false, 0, true},
		{`[1]`, false, false, 0, true},
	} {
		r, err := ReadRetention([]byte(tc.doc))
		if (err != nil) != tc.err || r.Present != tc.present || r.Valid != tc.valid || r.Days != tc.days {
			t.Errorf("%q: %+v, %v", tc.doc, r, err)
		}
	}
}
